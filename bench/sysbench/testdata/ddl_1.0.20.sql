-- table 1
CREATE TABLE sbtest1(
  id SERIAL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
)  ;
-- bulk load: 10000 rows;
CREATE INDEX k_1 ON sbtest1(k);
-- table 2
CREATE TABLE sbtest2(
  id SERIAL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
)  ;
-- bulk load: 10000 rows;
CREATE INDEX k_2 ON sbtest2(k);
