package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/profiles"
)

// Every shape problem of a gate file is refused with its file, line and
// field; a file with several problems names each.
func TestParseRefuses(t *testing.T) {
	dir := t.TempDir()
	noResult := filepath.Join(dir, "empty-run")
	if err := os.Mkdir(noResult, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"unknown metric", "baseline: published\ngates:\n  - {workload: '*', metric: p98, op: '<=', ratio: 1.1}\n",
			[]string{"g.yaml:3: gates[0].metric: unknown metric \"p98\""}},
		{"bad op", "gates:\n  - {workload: '*', metric: max, op: '<', value: 5}\n",
			[]string{"g.yaml:2: gates[0].op: \"<\": want >= or <="}},
		{"ratio and value", "baseline: published\ngates:\n  - {workload: '*', metric: max, op: '<=', ratio: 1, value: 5}\n",
			[]string{"g.yaml:3: gates[0].ratio: both ratio and value"}},
		{"neither ratio nor value", "gates:\n  - {workload: '*', metric: max, op: '<='}\n",
			[]string{"g.yaml:2: gates[0].ratio: neither ratio nor value"}},
		{"a negative bound", "gates:\n  - {workload: '*', metric: max, op: '<=', value: -1}\n",
			[]string{"g.yaml:2: gates[0].value: \"-1\": want a number"}},
		{"a zero ratio", "baseline: published\ngates:\n  - {workload: '*', metric: max, op: '<=', ratio: 0}\n",
			[]string{"g.yaml:3: gates[0].ratio: 0"}},
		{"no workload, metric or op", "gates:\n  - {value: 1}\n",
			[]string{"gates[0].workload: missing", "gates[0].metric: missing", "gates[0].op: missing"}},
		{"an unknown rule field", "gates:\n  - {workload: '*', metric: max, op: '<=', value: 1, percentile: 99}\n",
			[]string{"g.yaml:2: gates[0].percentile: unknown field"}},
		{"a missing baseline run", "baseline: {run: " + noResult + "}\ngates:\n  - {workload: '*', metric: max, op: '<=', ratio: 1}\n",
			[]string{"g.yaml:1: baseline.run: " + noResult + " has no result.json"}},
		{"a missing history directory", "baseline:\n  history: {dir: " + filepath.Join(dir, "nope") + ", last: 0}\ngates: []\n",
			[]string{"g.yaml:2: baseline.history.dir: ", "g.yaml:2: baseline.history.last: \"0\""}},
		{"a store series other than auto", "baseline:\n  history: {series: mine, window: 2}\ngates: []\n",
			[]string{"g.yaml:2: baseline.history.series: \"mine\": want auto", "g.yaml:2: baseline.history.window: \"2\": want a whole number of builds, at least 4"}},
		{"a store series and a directory", "baseline:\n  history: {series: auto, dir: " + dir + "}\ngates: []\n",
			[]string{"g.yaml:2: baseline.history.series: given with dir"}},
		{"a history of neither", "baseline:\n  history: {window: 30}\ngates: []\n",
			[]string{"g.yaml:2: baseline.history: neither dir nor series"}},
		{"an unknown baseline", "baseline: yesterday\ngates: []\n",
			[]string{"g.yaml:1: baseline: \"yesterday\": want published"}},
		{"no gates", "baseline: published\n", []string{"g.yaml:1: gates: missing"}},
		{"gates not a list", "gates: {workload: '*'}\n", []string{"g.yaml:1: gates: want a list"}},
		{"an unknown top-level field", "gate: []\ngates: []\n", []string{"g.yaml:1: gate: unknown field"}},
		{"not YAML", "gates: [\n", []string{"g.yaml"}},
		{"only a comment", "# gates to come\n", []string{"g.yaml:1: gates: the file is empty"}},
		{"a list of workloads", "gates:\n  - {workload: [a, b], metric: max, op: '<=', value: 1}\n",
			[]string{"g.yaml:2: gates[0].workload: want a single name"}},
		{"everything at once", "baseline: published\ngates:\n  - {workload: '*', metric: p98, op: '<=', ratio: 1}\n  - {workload: '*', metric: max, op: '=', value: 1}\n",
			[]string{"g.yaml:3: gates[0].metric", "g.yaml:4: gates[1].op"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse("g.yaml", []byte(c.text))
			if err == nil {
				t.Fatalf("accepted: %+v", f)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// The example parses into its three rules, each with its line.
func TestParseExample(t *testing.T) {
	text := `baseline: published            # or: run: runs/<id>   or: history: {dir: results/, last: 5}
gates:
  - {workload: "*", metric: throughput, op: ">=", ratio: 0.9}
  - {workload: workloada, operation: READ, metric: p99, op: "<=", ratio: 1.15}
  - {workload: "*", metric: error_rate, op: "<=", value: 0.001}
`
	f, err := Parse("g.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if f.Baseline.Source != SourcePublished || len(f.Gates) != 3 {
		t.Fatalf("%+v", f)
	}
	g := f.Gates[1]
	if g.Workload != "workloada" || g.Operation != "READ" || g.Metric != "p99" || g.Op != "<=" || *g.Ratio != 1.15 || g.Line != 4 {
		t.Errorf("%+v", g)
	}
	if v := f.Gates[2].Value; v == nil || *v != 0.001 || f.Gates[2].Ratio != nil {
		t.Errorf("%+v", f.Gates[2])
	}
}

// The history baseline takes its directory and count; last defaults to 5.
func TestParseHistory(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse("g.yaml", []byte("baseline:\n  history: {dir: "+dir+"}\ngates: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Baseline.Source != SourceHistory || f.Baseline.Dir != dir || f.Baseline.Last != 5 {
		t.Errorf("%+v", f.Baseline)
	}
}

// Checked against the profile: an unknown workload or operation is named
// with its line, and a published baseline is refused for a table that
// is not self-consistent (sysbench's).
func TestCheckAgainstProfile(t *testing.T) {
	ycsb, err := profiles.Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	sysbench, err := profiles.Get("sysbench-ysql")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		profile *profiles.Profile
		text    string
		want    []string
	}{
		{"an unknown workload", ycsb, "gates:\n  - {workload: workloadz, metric: max, op: '<=', value: 1}\n",
			[]string{"g.yaml:2: gates[0].workload: profile ycsb-ysql has no workload \"workloadz\""}},
		{"an unknown operation", ycsb, "gates:\n  - {workload: '*', operation: EVENT, metric: max, op: '<=', value: 1}\n",
			[]string{"g.yaml:2: gates[0].operation: profile ycsb-ysql measures no operation \"EVENT\""}},
		{"sysbench's published table", sysbench, "baseline: published\ngates:\n  - {workload: '*', metric: throughput, op: '>=', ratio: 0.9}\n",
			[]string{"g.yaml:1: baseline: published: profile sysbench-ysql's published table is not self-consistent"}},
		{"a ratio without a baseline", ycsb, "gates:\n  - {workload: '*', metric: max, op: '<=', ratio: 1}\n",
			[]string{"g.yaml:1: baseline: missing, and a gate has a ratio", "--history DIR"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse("g.yaml", []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			err = f.Check(ScopeOf(c.profile))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to say %q", err, w)
				}
			}
		})
	}
	ok := "baseline: published\ngates:\n  - {workload: workloadc, operation: READ, metric: mean, op: '<=', ratio: 1.2}\n  - {workload: '*', operation: '*', metric: p99, op: '<=', value: 9000}\n"
	f, err := Parse("g.yaml", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(ScopeOf(ycsb)); err != nil {
		t.Errorf("a file naming what the profile has: %v", err)
	}
	// A ratio without a baseline in the file is whole with --history.
	f, err = Parse("g.yaml", []byte("gates:\n  - {workload: '*', metric: max, op: '<=', ratio: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.UseHistory(t.TempDir(), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(ScopeOf(ycsb)); err != nil || f.Baseline.Last != DefaultHistoryLast {
		t.Errorf("a ratio with --history: %v, %+v", err, f.Baseline)
	}
}
