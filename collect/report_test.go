package collect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
)

// report.md is rendered from a result alone: each profile's fixture
// result (testdata/<profile>.result.json, checked against the schema)
// renders the pinned text, which shows the safety settings the run had.
func TestReportProfiles(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		t.Run(p.Name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", p.Name+".result.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := collect.Validate(b); err != nil {
				t.Fatal(err)
			}
			res, err := collect.ReadResult(b)
			if err != nil {
				t.Fatal(err)
			}
			var s strings.Builder
			if err := collect.WriteMarkdown(&s, res); err != nil {
				t.Fatal(err)
			}
			out := s.String()
			auth := "database authentication " + res.Environment.DBAuth + " (db_auth)"
			keys := "refused (accept_new_host_keys)"
			if res.Environment.AcceptNewHostKeys {
				keys = "accepted on first use (accept_new_host_keys)"
			}
			for _, want := range []string{auth, keys, "duration 1m0s (**overridden**)", "Published figures: " + p.Baseline.Source} {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q", want)
				}
			}
			if p.Name == "kv-ycql" && !strings.Contains(out, "The published row itself: 64 threads ÷ (throughput × mean latency) = 1.27, within the tolerance of ±0.30") {
				t.Error("the batch row's own thread count is not used")
			}
			golden.Check(t, p.Name+".report.md", []byte(out))
		})
	}
}
