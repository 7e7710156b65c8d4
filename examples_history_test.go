package ybbench_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect/history/historytest"
	"github.com/ybbench/ybbench/collect/verdict"
)

// examples/gate-history.yaml judges a run by its series in a history
// store, as docs/history.md says to use it: runs imported into an
// embedded store, the last one gated. Six builds of 2% noise hold no
// change point, so every gate passes and says so; three builds are too
// few for the method, so its gates cannot be evaluated (exit 99), never
// passed.
func testExampleGateHistory(t *testing.T, bin string) {
	const file = "examples/gate-history.yaml"
	for _, c := range []struct {
		builds int
		code   int
		want   string
	}{{6, 0, "no change point"}, {3, 99, "too short to judge"}} {
		store := "sqlite:" + filepath.Join(t.TempDir(), "history.db")
		parent := t.TempDir()
		var dirs []string
		for i := 1; i <= c.builds; i++ {
			scale := 1 + 0.02*float64((i*7)%5-2)/2
			dirs = append(dirs, historytest.Run(t, parent, fmt.Sprintf("run-%d", i), time.Unix(1_800_000_000+int64(i)*600, 0), fmt.Sprintf("b%d", i), scale))
		}
		if r := runYbbench(t, bin, append([]string{"history", "import", "--history-url", store}, dirs...)...); r.code != 0 {
			t.Fatalf("history import: exit %d\n%s", r.code, r.stderr)
		}
		last := dirs[len(dirs)-1]
		ledger := `{"schema": "ybbench-run/1", "id": "run-last", "spec": {"profile": "ycsb-ysql"}, "state": "torn-down", "steps": []}`
		if err := os.WriteFile(filepath.Join(last, "run.json"), []byte(ledger), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runYbbench(t, bin, "gate", "--run", last, "--gate", file, "--history-url", store)
		var v verdict.Verdict
		b, err := os.ReadFile(filepath.Join(last, verdict.VerdictFile))
		if err == nil {
			err = json.Unmarshal(b, &v)
		}
		if err != nil || r.code != c.code || len(v.Gates) < 3 {
			t.Fatalf("%d builds: exit %d (want %d), %v\n%s", c.builds, r.code, c.code, err, r.stderr)
		}
		for _, g := range v.Gates {
			if g.Rule.Ratio == nil {
				continue // an absolute bound needs no history
			}
			if !strings.Contains(g.Note+g.Reason, c.want) {
				t.Errorf("%d builds: gate %s %s %s: %s / %s, want it to say %q", c.builds, g.Workload, g.Operation, g.Metric, g.Note, g.Reason, c.want)
			}
		}
	}
}
