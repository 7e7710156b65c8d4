//go:build integration

package ysql

import (
	"context"
	"testing"
)

// TestIntegrationReadColumnsAsJDBC reads named fields as YCSB's JDBC
// binding does with PgJDBC's ResultSet.getString(name): a column whose
// name differs only in case is found (every read verified), and a field
// the row does not have makes the read an ERROR.
func TestIntegrationReadColumnsAsJDBC(t *testing.T) {
	props, conn := testDB(t)
	load(t, props, conn, "-p", "dataintegrity=true")
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `ALTER TABLE usertable RENAME COLUMN field3 TO "FIELD3"`); err != nil {
		t.Fatal(err)
	}
	// One field a read: a read of field3 not found leaves nothing to verify.
	r := runWorkload(t, props, "workloadc", "-p", "dataintegrity=true", "-p", "operationcount=200", "-p", "readallfields=false")
	if r.int("READ", "Return=OK") != 200 || r.int("VERIFY", "Return=OK") != 200 {
		t.Errorf("FIELD3 for field3: %d reads OK, %d verified, want 200 of each\n%s", r.int("READ", "Return=OK"), r.int("VERIFY", "Return=OK"), r.stdout)
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE usertable DROP COLUMN field9`); err != nil {
		t.Fatal(err)
	}
	r = runWorkload(t, props, "workloadc", "-p", "dataintegrity=true", "-p", "operationcount=200")
	if r.int("READ", "Return=ERROR") != 200 || r.int("READ", "Return=OK") != 0 {
		t.Errorf("no field9: %d reads ERROR, %d OK, want 200 ERROR\n%s", r.int("READ", "Return=ERROR"), r.int("READ", "Return=OK"), r.stdout)
	}
}
