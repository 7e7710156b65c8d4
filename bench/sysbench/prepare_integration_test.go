//go:build integration

package sysbench

import (
	"os"
	"os/exec"
	"testing"
)

// TestIntegrationPrepareOrderPerThread reads the order of prepare from
// PostgreSQL's transaction ids (each statement autocommits): the fork
// creates every table of a thread before loading the first (its prepare is
// its create then its load, spec §2), 1.0.20 creates and loads table after
// table.
func TestIntegrationPrepareOrderPerThread(t *testing.T) {
	for _, c := range []struct {
		mode        string
		createFirst bool
	}{{"--compat=yb", true}, {"--compat=1.0.20", false}} {
		t.Run(c.mode, func(t *testing.T) {
			check := func(who string, d *testDB) {
				created3 := d.int(t, "SELECT xmin::text::bigint FROM pg_class WHERE relname = 'sbtest3'")
				loaded1 := d.int(t, "SELECT min(xmin::text::bigint) FROM sbtest1")
				if got := created3 < loaded1; got != c.createFirst {
					t.Errorf("%s: sbtest3 created (xid %d) before sbtest1 was loaded (xid %d): %v, want %v", who, created3, loaded1, got, c.createFirst)
				}
			}
			d := newTestDB(t)
			d.must(t, "oltp_point_select", c.mode, "--tables=3", "--table-size=50", "--threads=1", "prepare")
			check("ours", d)
			if sb, err := exec.LookPath("sysbench"); err == nil && !c.createFirst {
				// Debian's sysbench 1.0.20 on a database of its own.
				ref := newTestDB(t)
				cmd := exec.Command(sb, append([]string{"oltp_point_select", "--tables=3", "--table-size=50", "--threads=1", "prepare"}, ref.args()...)...)
				cmd.Env = append(os.Environ(), "PGPASSWORD="+ref.pg.Password)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("sysbench: %v\n%s", err, out)
				}
				check("sysbench 1.0.20", ref)
			}
		})
	}
}
