package collect_test

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
)

// The report's caveat block, rendered from the result Aggregate builds of
// a fixture run directory: for a local run of PostgreSQL on a 2-core
// machine and for an inventory run of YugabyteDB (golden), each stating
// what its run directory says and nothing it does not.
func TestReportCaveats(t *testing.T) {
	p, err := profiles.Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		site         fixtureSite
		want, absent []string
	}{
		{name: "local-postgres", site: localPostgresSite,
			want: []string{
				"**Not YugabyteDB:** The database was PostgreSQL 15.14 (primary db-1, streaming replicas db-2, db-3, synchronous commit to a quorum) — not YugabyteDB",
				"The 4 hosts were not machines of their own: they shared one machine (2 cores) with the orchestrator",
				"ulimit -n (open files) on db-1, db-2, db-3, client-1 is 1024, below the recommended 1048576",
				"**Overridden by the user:** records, operations, threads, load\\_threads (--quick); duration (--duration).",
				"**Chosen, not asked for:** flavor postgres — the default for YSQL on this machine",
				"`YBBENCH_AGENT_PROPERTIES=ysql.passwd=REDACTED bin/ybbench run --local --quick --duration 1m` — by ybbench 1.0.0 (commit 0123abc, go1.26.0); started 2025-03-01 12:00:00 UTC.",
			},
			absent: []string{"flavor, ", "flavor."}},
		{name: "inventory", site: inventorySite,
			want: []string{
				"**Overridden by the user:** duration.",
				"**Preflight warnings:** clock of db-2 measured with ±12ms uncertainty (slow round trips).",
				"https://REDACTED@downloads.example/yugabyte-2.20.1.0.tar.gz?REDACTED",
			},
			absent: []string{"Not YugabyteDB", "One machine", "Chosen", "Then:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixtureRunAt(t, dir, p, c.site)
			res, err := collect.Aggregate(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := collect.ValidateResult(res); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := collect.WriteCaveats(&b, res); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("the caveats lack %q:\n%s", w, got)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(got, a) {
					t.Errorf("the caveats say %q:\n%s", a, got)
				}
			}
			var report strings.Builder
			if err := collect.WriteMarkdown(&report, res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(report.String(), "profile ycsb-ysql\n\n"+got) {
				t.Error("the report does not open with its caveats")
			}
			golden.Check(t, "caveats-"+c.name+".md", []byte(got))
			golden.Check(t, "report-"+c.name+".md", []byte(report.String()))
		})
	}
}
