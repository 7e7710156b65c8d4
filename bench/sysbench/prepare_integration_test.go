//go:build integration

package sysbench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record"
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

// TestIntegrationPrepareSummaryCarriesTheDDL: the DDL prepare's summary
// lists (each table's statements) is what collect reads as the phase's
// DDL (record.PhaseSummary): the first table's statements, and how many
// tables the database holds.
func TestIntegrationPrepareSummaryCarriesTheDDL(t *testing.T) {
	d := newTestDB(t)
	r := d.must(t, "oltp_read_only", "--tables=3", "--table-size=20", "--threads=1", "prepare")
	if r.summary == nil {
		t.Fatal("prepare wrote no summary")
	}
	b, err := json.Marshal(r.summary)
	if err != nil {
		t.Fatal(err)
	}
	var s record.PhaseSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("collect cannot read prepare's summary: %v", err)
	}
	tables := d.int(t, "SELECT count(*) FROM pg_class WHERE relname LIKE 'sbtest%' AND relkind = 'r'")
	if !strings.HasPrefix(s.DDL, "CREATE TABLE sbtest1") || !strings.HasSuffix(s.DDL, fmt.Sprintf("(the first of %d tables)", tables)) || tables != 3 {
		t.Errorf("the summary's DDL %q; the database holds %d tables", s.DDL, tables)
	}
}
