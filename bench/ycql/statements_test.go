package ycql

import "testing"

// The statements are the yugabyteCQL binding's (spec ycsb §7.2), and the
// DDL is run_ycql.sh's table with a replication map both servers accept.
func TestYCSBStatements(t *testing.T) {
	one := []string{"field3"}
	all := []string{"field1", "field0", "field7"}
	for _, c := range []struct{ got, want string }{
		{readCQL("usertable", nil), "SELECT * FROM usertable WHERE y_id = ? LIMIT 1"},
		{readCQL("usertable", one), "SELECT field3 FROM usertable WHERE y_id = ? LIMIT 1"},
		{scanCQL("usertable", nil), "SELECT * FROM usertable WHERE token(y_id) >= token(?) LIMIT ?"},
		{scanCQL("usertable", one), "SELECT field3 FROM usertable WHERE token(y_id) >= token(?) LIMIT ?"},
		{updateCQL("usertable", one), "UPDATE usertable SET field3 = ? WHERE y_id = ?"},
		{updateCQL("usertable", all), "UPDATE usertable SET field1 = ?, field0 = ?, field7 = ? WHERE y_id = ?"},
		{insertCQL("usertable", all), "INSERT INTO usertable (y_id, field1, field0, field7) VALUES (?, ?, ?, ?)"},
		{deleteCQL("usertable"), "DELETE FROM usertable WHERE y_id = ?"},
		{CreateKeyspaceCQL("ycsb", 3), "CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}"},
		{YCSBTableCQL("ycsb", "usertable", []string{"field0", "field1"}), "CREATE TABLE IF NOT EXISTS ycsb.usertable (y_id varchar PRIMARY KEY, field0 varchar, field1 varchar)"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	for nodes, rf := range map[int]int{0: 1, 1: 1, 2: 2, 3: 3, 9: 3} {
		if got := DefaultReplicationFactor(nodes); got != rf {
			t.Errorf("DefaultReplicationFactor(%d) = %d, want %d", nodes, got, rf)
		}
	}
}
