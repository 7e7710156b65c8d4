package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/pipeline"
)

// gatedRun is a finished run of runs holding the fixture result of
// collect's tests, changed by change (nil: as it is).
func gatedRun(t *testing.T, runs, id string, change func(m map[string]any)) string {
	t.Helper()
	dir := makeRun(t, runs, id, "alice", wholeRun, pipeline.OutcomeSucceeded, pipeline.RunTornDown)
	b, err := os.ReadFile(filepath.Join("..", "..", "collect", "testdata", "ycsb-ysql.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		m["run_id"] = id
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, pipeline.ResultFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeGate(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gates.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readVerdict reads and validates the verdict.json of a run directory.
func readVerdict(t *testing.T, dir string) *verdict.Verdict {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, verdict.VerdictFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := verdict.Validate(b); err != nil {
		t.Fatalf("verdict.json: %v", err)
	}
	var v verdict.Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// ybbench gate on a finished run: verdict.json beside result.json, a line
// per gate, and the exit the verdict calls for.
func TestCLIGate(t *testing.T) {
	runs := t.TempDir()
	dir := gatedRun(t, runs, "ycsb-ysql-260101-0000-aaaaaaaa", nil)
	// The fixture's throughput (33 ops/s) is far below the published
	// 37 443; it made no errors; the published table has no p99.
	fail := writeGate(t, "baseline: published\ngates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 0.9}\n  - {workload: \"*\", metric: error_rate, op: \"<=\", value: 0.001}\n")
	pass := writeGate(t, "gates:\n  - {workload: \"*\", metric: throughput, op: \">=\", value: 10}\n  - {workload: \"*\", metric: error_rate, op: \"<=\", value: 0.001}\n")
	missing := writeGate(t, "baseline: published\ngates:\n  - {workload: workloada, operation: READ, metric: p99, op: \"<=\", ratio: 1.15}\n  - {workload: workloadc, metric: max, op: \"<=\", value: 10000}\n")

	r := cli(t, nil, "gate", "--runs-dir", runs, "--run", "ycsb-ysql-260101-0000-aaaaaaaa", "--gate", fail)
	if r.code != 99 || !strings.Contains(r.stderr, "3 failed") {
		t.Fatalf("failing gates: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	v := readVerdict(t, dir)
	if v.Outcome != verdict.Fail || v.Failed != 3 || v.Passed != 3 || len(v.Gates) != 6 {
		t.Errorf("verdict %s %d failed %d passed of %d", v.Outcome, v.Failed, v.Passed, len(v.Gates))
	}
	if !hasLine(r.stdout, "fail workloada - throughput 33.33 ops/s 37443 ops/s 0.0008902 >= 0.9 × baseline") || !strings.Contains(r.stdout, "verdict: fail") {
		t.Errorf("the table:\n%s", r.stdout)
	}

	if r := cli(t, nil, "gate", "--run", dir, "--gate", pass); r.code != 0 {
		t.Errorf("passing gates: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := readVerdict(t, dir); v.Outcome != verdict.Pass || v.Passed != 6 {
		t.Errorf("verdict %s, %d passed", v.Outcome, v.Passed)
	}

	if r := cli(t, nil, "gate", "--run", dir, "--gate", missing); r.code != 99 {
		t.Errorf("a gate without a baseline row: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := readVerdict(t, dir); v.Outcome != verdict.CannotEvaluate || v.CannotEvaluate != 1 || !strings.Contains(v.Gates[0].Reason, "no p99 READ") {
		t.Errorf("verdict %s: %+v", v.Outcome, v.Gates)
	}
	r = cli(t, nil, "gate", "--run", dir, "--gate", missing, "--gate-missing=warn")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: 1 gates could not be evaluated") {
		t.Errorf("--gate-missing=warn: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A previous run as the baseline: the same figures pass a ratio of 1.
func TestCLIGateAgainstAPreviousRun(t *testing.T) {
	runs := t.TempDir()
	prev := gatedRun(t, runs, "ycsb-ysql-260101-0000-bbbbbbbb", func(map[string]any) {})
	dir := gatedRun(t, runs, "ycsb-ysql-260101-0100-cccccccc", func(map[string]any) {})
	g := writeGate(t, "baseline: {run: "+prev+"}\ngates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 1}\n  - {workload: \"*\", operation: \"*\", metric: p99, op: \"<=\", ratio: 1}\n")
	if r := cli(t, nil, "gate", "--run", dir, "--gate", g); r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	v := readVerdict(t, dir)
	if v.Baseline.Source != verdict.SourceRun || strings.Join(v.Baseline.Runs, ",") != "ycsb-ysql-260101-0000-bbbbbbbb" || v.Passed != 8 {
		t.Errorf("baseline %+v, %d passed", v.Baseline, v.Passed)
	}
}

// A bad gate file exits 2 naming each problem's line and writes no
// verdict; so does a run without results; a run whose measured phase did
// not finish has no verdict on its numbers (exit 5), which is written.
func TestCLIGateRefuses(t *testing.T) {
	runs := t.TempDir()
	dir := gatedRun(t, runs, "ycsb-ysql-260101-0000-dddddddd", nil)
	bad := writeGate(t, "baseline: published\ngates:\n  - {workload: workloadz, metric: throughput, op: \">=\", ratio: 0.9}\n  - {workload: \"*\", metric: p98, op: \"<=\", value: 1}\n")
	r := cli(t, nil, "gate", "--run", dir, "--gate", bad)
	if r.code != 2 || !strings.Contains(r.stderr, bad+":4: gates[1].metric") {
		t.Errorf("a bad metric: exit %d\n%s", r.code, r.stderr)
	}
	unknown := writeGate(t, "gates:\n  - {workload: workloadz, operation: EVENT, metric: throughput, op: \">=\", value: 1}\n")
	r = cli(t, nil, "gate", "--run", dir, "--gate", unknown)
	if r.code != 2 || !strings.Contains(r.stderr, unknown+":2: gates[0].workload") || !strings.Contains(r.stderr, unknown+":2: gates[0].operation") {
		t.Errorf("an unknown workload and operation: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, verdict.VerdictFile)); !os.IsNotExist(err) {
		t.Errorf("a verdict was written for a bad gate file: %v", err)
	}

	empty := makeRun(t, runs, "ycsb-ysql-260101-0000-eeeeeeee", "alice", []string{"up"}, "", pipeline.RunActive)
	if r := cli(t, nil, "gate", "--run", empty, "--gate", unknown); r.code != 2 || !strings.Contains(r.stderr, "no result.json") {
		t.Errorf("no results: exit %d\n%s", r.code, r.stderr)
	}

	cut := gatedRun(t, runs, "ycsb-ysql-260101-0000-ffffffff", func(m map[string]any) {
		w := m["workloads"].([]any)[2].(map[string]any)
		w["phases"].([]any)[1].(map[string]any)["complete"] = false
	})
	ok := writeGate(t, "gates:\n  - {workload: \"*\", metric: throughput, op: \">=\", value: 1}\n")
	r = cli(t, nil, "gate", "--run", cut, "--gate", ok)
	if r.code != 5 || !strings.Contains(r.stderr, "workloadc's run phase did not complete") {
		t.Errorf("incomplete results: exit %d\n%s", r.code, r.stderr)
	}
	if v := readVerdict(t, cut); v.Complete {
		t.Error("the verdict of an incomplete run says complete")
	}
}

// hasLine says whether a line of out is want, blanks apart.
func hasLine(out, want string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == want {
			return true
		}
	}
	return false
}

// run --gate checks the gate file with the settings, before the run
// exists: a bad one is exit 2 naming its lines (a file that does not
// parse; one naming what the profile lacks, beside the other prechecks'
// refusals: no Terraform here), and
// no run directory is made.
func TestCLIRunChecksTheGateFileFirst(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	bad := writeGate(t, "gates:\n  - {workload: \"*\", metric: p98, op: \"<=\", value: 1}\n")
	r := cli(t, nil, "run", "--local", "--runs-dir", runs, "--gate", bad)
	if r.code != 2 || !strings.Contains(r.stderr, bad+":2: gates[0].metric") {
		t.Errorf("a bad metric: exit %d\n%s", r.code, r.stderr)
	}
	unknown := writeGate(t, "baseline: published\ngates:\n  - {workload: workloadz, metric: throughput, op: \">=\", ratio: 0.9}\n")
	r = cli(t, nil, "run", "sysbench-ysql", "--local", "--runs-dir", runs, "--gate", unknown)
	for _, want := range []string{unknown + ":3: gates[0].workload: profile sysbench-ysql has no workload \"workloadz\"",
		unknown + ":1: baseline: published: profile sysbench-ysql's published table is not self-consistent", "threads"} {
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, want 2 saying %q:\n%s", r.code, want, r.stderr)
		}
	}
	okGate := writeGate(t, "gates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 0.9}\n")
	nowhere := filepath.Join(t.TempDir(), "results")
	r = cli(t, nil, "run", "--local", "--runs-dir", runs, "--gate", okGate, "--history", nowhere)
	if r.code != 2 || !strings.Contains(r.stderr, "--history "+nowhere+": not a directory of results") {
		t.Errorf("a history that is not there: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(runs); !os.IsNotExist(err) {
		t.Errorf("the runs directory was made: %v", err)
	}
}

// ybbench gate writes junit.xml beside verdict.json, with the ledger's
// failed stages as errored test cases, and --junit copies it: the counts
// a JUnit reader takes from the test cases are the verdict's.
func TestCLIGateJUnit(t *testing.T) {
	runs := t.TempDir()
	dir := gatedRun(t, runs, "ycsb-ysql-260101-0000-aaaaaaaa", nil)
	l, err := pipeline.OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Begin("bench/workloadc/run", "", nil); err != nil {
		t.Fatal(err)
	}
	if err := l.End("bench/workloadc/run", errors.New("agent client-1: exit status 1"), nil); err != nil {
		t.Fatal(err)
	}
	gates := writeGate(t, "baseline: published\ngates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 0.9}\n  - {workload: workloada, operation: READ, metric: p99, op: \"<=\", ratio: 1.15}\n")
	for _, c := range []struct {
		missing                     string
		failures, skipped, wantExit int
	}{
		{"fail", 4, 0, 99}, // three throughputs fail, the p99 has no baseline row
		{"warn", 3, 1, 99},
	} {
		copyTo := filepath.Join(t.TempDir(), "reports", "junit.xml")
		r := cli(t, nil, "gate", "--run", dir, "--gate", gates, "--gate-missing", c.missing, "--junit", copyTo)
		if r.code != c.wantExit {
			t.Fatalf("--gate-missing=%s: exit %d\n%s%s", c.missing, r.code, r.stdout, r.stderr)
		}
		v := readVerdict(t, dir)
		inRun, err := os.ReadFile(filepath.Join(dir, verdict.JUnitFile))
		if err != nil {
			t.Fatal(err)
		}
		copied, err := os.ReadFile(copyTo)
		if err != nil || !bytes.Equal(inRun, copied) {
			t.Fatalf("--junit %s is not the run's junit.xml: %v", copyTo, err)
		}
		var s struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		}
		if err := xml.Unmarshal(inRun, &s); err != nil {
			t.Fatal(err)
		}
		var failures, errs, skipped int
		var errored []string
		for _, tc := range s.Cases {
			if tc.Failure != nil {
				failures++
			}
			if tc.Error != nil {
				errs++
				errored = append(errored, tc.Name)
			}
			if tc.Skipped != nil {
				skipped++
			}
		}
		if len(s.Cases) != len(v.Gates)+1 || failures != c.failures || skipped != c.skipped ||
			failures+skipped != v.Failed+v.CannotEvaluate || errs != 1 || errored[0] != "bench/workloadc/run" {
			t.Errorf("--gate-missing=%s: %d cases, %d failures, %d skipped, errored %v; verdict: %d gates, %d failed, %d cannot be evaluated",
				c.missing, len(s.Cases), failures, skipped, errored, len(v.Gates), v.Failed, v.CannotEvaluate)
		}
	}
	if r := cli(t, nil, "run", "--local", "--junit", "x.xml"); r.code != 2 || !strings.Contains(r.stderr, "without --gate") {
		t.Errorf("run --junit without --gate: exit %d\n%s", r.code, r.stderr)
	}
}

// --history DIR: the baseline is the median of the last runs of a results
// directory, whatever the gate file names; --history-last takes fewer.
// The history's runs scale the fixture's throughput by 0.5, 2 and 1 (in
// the order they were created), so the median of all three is the gated
// run's own figure and that of the last two 1.5 times it. report.md shows
// the verdict first.
func TestCLIGateAgainstHistory(t *testing.T) {
	runs, history := t.TempDir(), t.TempDir()
	dir := gatedRun(t, runs, "ycsb-ysql-260101-0300-99999999", func(map[string]any) {})
	for i, f := range []float64{0.5, 2, 1} {
		id := "ycsb-ysql-260101-000" + strconv.Itoa(i) + "-0000000" + strconv.Itoa(i)
		src := gatedRun(t, t.TempDir(), id, func(m map[string]any) {
			m["created"] = "2026-01-01T0" + strconv.Itoa(i) + ":00:00Z"
			for _, w := range m["workloads"].([]any) {
				w := w.(map[string]any)
				if v, ok := w["throughput"].(float64); ok {
					w["throughput"] = v * f
				}
			}
		})
		if err := os.MkdirAll(filepath.Join(history, id), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(src, pipeline.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(history, id, pipeline.ResultFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The file names the published table: --history wins over it.
	g := writeGate(t, "baseline: published\ngates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 0.9}\n")
	if r := cli(t, nil, "gate", "--run", dir, "--gate", g, "--history", history); r.code != 0 {
		t.Fatalf("the median of three: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	v := readVerdict(t, dir)
	if v.Baseline.Source != verdict.SourceHistory || v.Baseline.Path != history || len(v.Baseline.Runs) != 3 || v.Passed != 3 {
		t.Errorf("baseline %+v, %d passed", v.Baseline, v.Passed)
	}
	for _, gt := range v.Gates {
		if gt.Ratio == nil || math.Abs(*gt.Ratio-1) > 1e-9 {
			t.Errorf("%s: ratio %v, want 1 (the median of 0.5, 2 and 1 times the run's own)", gt.Workload, gt.Ratio)
		}
	}
	r := cli(t, nil, "gate", "--run", dir, "--gate", g, "--history", history, "--history-last", "2")
	if r.code != 99 {
		t.Fatalf("the median of the last two: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	v = readVerdict(t, dir)
	if strings.Join(v.Baseline.Runs, ",") != "ycsb-ysql-260101-0001-00000001,ycsb-ysql-260101-0002-00000002" || v.Failed != 3 {
		t.Errorf("baseline %+v, %d failed", v.Baseline, v.Failed)
	}
	for _, gt := range v.Gates {
		if gt.Ratio == nil || math.Abs(*gt.Ratio-1/1.5) > 1e-9 {
			t.Errorf("%s: ratio %v, want 1/1.5", gt.Workload, gt.Ratio)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, pipeline.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.SplitN(string(md), "\n\n", 3); len(parts) < 2 || !strings.HasPrefix(parts[1], "## Verdict: fail") {
		t.Errorf("report.md does not open with the verdict:\n%.400s", md)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--history", filepath.Join(history, "nothing")}, "not a directory of results"},
		{[]string{"--history-last", "2"}, "without --history"},
		{[]string{"--history", history, "--history-last", "-1"}, "at least 1"},
	} {
		args := append([]string{"gate", "--run", dir, "--gate", g}, c.args...)
		if r := cli(t, nil, args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
}
