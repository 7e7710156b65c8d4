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
-- bulk load: 100000 rows;
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
-- bulk load: 100000 rows;
-- dropped on PostgreSQL: ASC in PRIMARY KEY (id ASC)
-- dropped on PostgreSQL: SPLIT AT VALUES((4166),(8333),(12500),(16666),(20833),(25000),(29166),(33333),(37500),(41666),(45833),(50000),(54166),(58333),(62500),(66666),(70833),(75000),(79166),(83333),(87500),(91666),(95833)) (24 tablets)
