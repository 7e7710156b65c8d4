package ysql

import (
	"strings"
	"testing"
)

func TestStatementsMatchYCSB(t *testing.T) {
	cases := map[string]string{
		readSQL("usertable"):                                    "SELECT * FROM usertable WHERE YCSB_KEY = $1",
		scanSQL("usertable", "org.postgresql.Driver"):           "SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY FETCH FIRST $2 ROWS ONLY",
		scanSQL("usertable", "com.mysql.Driver"):                "SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2",
		updateSQL("usertable", []string{"field3"}):              "UPDATE usertable SET field3=$1 WHERE YCSB_KEY = $2",
		updateSQL("usertable", []string{"field1", "field0"}):    "UPDATE usertable SET field1=$1, field0=$2 WHERE YCSB_KEY = $3",
		insertSQL("usertable", []string{"field1", "field0"}, 1): "INSERT INTO usertable (YCSB_KEY,field1,field0) VALUES($1,$2,$3)",
		insertSQL("t", []string{"a"}, 2):                        "INSERT INTO t (YCSB_KEY,a) VALUES($1,$2),($3,$4)",
		deleteSQL("usertable"):                                  "DELETE FROM usertable WHERE YCSB_KEY = $1",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// The range DDL on YugabyteDB is seed 000's, split at user10 … user98.
func TestRangeDDLIsSeed000(t *testing.T) {
	fields := []string{"field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8", "field9"}
	got := CreateTableDDL("usertable", fields, "range", true, true)
	want := "CREATE TABLE usertable (YCSB_KEY TEXT, FIELD0 TEXT, FIELD1 TEXT, FIELD2 TEXT, FIELD3 TEXT, FIELD4 TEXT, FIELD5 TEXT, FIELD6 TEXT, FIELD7 TEXT, FIELD8 TEXT, FIELD9 TEXT, PRIMARY KEY (YCSB_KEY ASC)) SPLIT AT VALUES (('user10'),('user14'),('user18'),('user22'),('user26'),('user30'),('user34'),('user38'),('user42'),('user46'),('user50'),('user54'),('user58'),('user62'),('user66'),('user70'),('user74'),('user78'),('user82'),('user86'),('user90'),('user94'),('user98'))"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if n := len(SplitPoints()); n != 23 {
		t.Errorf("%d split points, want 23", n)
	}
	pg := CreateTableDDL("usertable", fields[:1], "range", false, true)
	if strings.Contains(pg, "ASC") || strings.Contains(pg, "SPLIT") || !strings.Contains(pg, "PRIMARY KEY (YCSB_KEY)") {
		t.Errorf("PostgreSQL DDL %q", pg)
	}
	hash := CreateTableDDL("usertable", fields[:1], "hash", true, true)
	if hash != "CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT)" {
		t.Errorf("hash DDL %q", hash)
	}
}
