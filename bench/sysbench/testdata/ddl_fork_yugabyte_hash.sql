-- table 1
CREATE TABLE sbtest1(
  id SERIAL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id )
)  ;
ALTER SEQUENCE sbtest1_id_seq cache 1000;
CREATE INDEX k_1 ON sbtest1(k);
-- bulk load: 10000 rows;
-- table 2
CREATE TABLE sbtest2(
  id SERIAL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id )
)  ;
ALTER SEQUENCE sbtest2_id_seq cache 1000;
CREATE INDEX k_2 ON sbtest2(k);
-- bulk load: 10000 rows;
