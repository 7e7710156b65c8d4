//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/compare"
	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/internal/testenv"
)

// A release gate end to end, on one quick local run (postgres flavor) of
// 3 repetitions: run --gate with gates no machine reaches exits 99 with
// complete results of 3 repetitions per workload, each with its own
// record files, and verdict.json and junit.xml holding one failed gate per
// workload, on the median of the 3; gate on
// the finished run with gates every machine holds exits 0 and rewrites the
// verdict as all passed; compare puts the run beside a fixture of the same
// profile.
func TestE2EGateRunThenGateThenCompare(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.150"
	cleanupRuns(t, runs)
	// 1e12 ops/s is out of any machine's reach; an error rate of at most a
	// half is within a working database's.
	fail := writeGate(t, "gates:\n"+
		"  - {workload: \"*\", metric: throughput, op: \">=\", value: 1e12}\n"+
		"  - {workload: \"*\", metric: error_rate, op: \"<=\", value: 0.5}\n")
	copyTo := filepath.Join(t.TempDir(), "reports", "junit.xml")
	r := ybbench(t, "run", "--local", "--flavor=postgres", "--db-hosts=1", "--workloads=workloada,workloadc",
		"--records=2000", "--operations=20000", "--duration=5s", "--repeat=3",
		"--runs-dir="+runs, "--subnet="+subnet+".0/24", "--gate="+fail, "--junit="+copyTo)
	dir := runDirIn(t, runs, 0)
	if r.code != 99 {
		t.Fatalf("run --gate FAIL: exit %d, want 99 (a gate failed on complete results)\n%s", r.code, r.stderr)
	}
	if st := readLedger(t, dir).State; st != "torn-down" {
		t.Errorf("ledger state %q after run: a failed gate must not stop the teardown", st)
	}
	assertNothingRemains(t, dir, subnet+".")

	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, b)
	var res collect.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	workloads := []string{"workloada", "workloadc"}
	// throughput is each workload's median over its repetitions (what the
	// gates take), tputs its values in the order run.
	throughput := map[string]float64{}
	tputs := map[string][]float64{}
	for _, w := range res.Workloads {
		if sp := w.FindSpread("", "throughput"); sp != nil {
			throughput[w.Name], tputs[w.Name] = sp.Median, sp.Values
		}
		if len(w.Repetitions) != 3 || len(tputs[w.Name]) != 3 {
			t.Errorf("%s: %d repetitions, throughputs %v; want 3", w.Name, len(w.Repetitions), tputs[w.Name])
		}
		for _, rep := range w.Repetitions {
			if p := collect.MeasuredPhaseOf(rep.Phases); p == nil || !p.Complete {
				t.Errorf("%s r%d's run phase is not complete: %+v", w.Name, rep.Index, p)
			}
		}
		// Each repetition's agent records are files of their own, none
		// empty, none the same as another's.
		seen := map[string]string{}
		for k := 1; k <= 3; k++ {
			for _, ph := range []string{"load", "run"} {
				files, _ := filepath.Glob(filepath.Join(dir, "agents", "*", fmt.Sprintf("%s-r%d-%s.jsonl", w.Name, k, ph)))
				if len(files) != 1 {
					t.Errorf("%s r%d %s: record files %q, want 1", w.Name, k, ph, files)
					continue
				}
				b, err := os.ReadFile(files[0])
				if err != nil || len(b) == 0 {
					t.Errorf("%s: %d bytes (%v)", files[0], len(b), err)
					continue
				}
				if other, ok := seen[string(b)]; ok {
					t.Errorf("%s holds the same records as %s", files[0], other)
				}
				seen[string(b)] = files[0]
			}
		}
	}
	for _, w := range workloads {
		if throughput[w] <= 0 {
			t.Errorf("result.json: %s's throughput is %v", w, throughput[w])
		}
	}

	// verdict.json (readVerdict checks it against its schema): every
	// workload's throughput gate failed, on the figure result.json has, and
	// its error-rate gate passed.
	v := readVerdict(t, dir)
	if v.RunID != filepath.Base(dir) || v.GateFile != fail || !v.Complete || v.Outcome != verdict.Fail ||
		v.Failed != len(workloads) || v.Passed != len(workloads) || v.CannotEvaluate != 0 || len(v.Gates) != 2*len(workloads) {
		t.Errorf("verdict after run: run %s, file %s, complete %v, %s: %d passed, %d failed, %d cannot be evaluated of %d gates",
			v.RunID, v.GateFile, v.Complete, v.Outcome, v.Passed, v.Failed, v.CannotEvaluate, len(v.Gates))
	}
	failed := map[string]int{}
	for _, g := range v.Gates {
		switch g.Metric {
		case "throughput":
			if g.Outcome != verdict.Fail || g.Measured == nil || *g.Measured != throughput[g.Workload] || g.Repetitions != 3 {
				t.Errorf("%s throughput gate: %s, measured %v over %d repetitions; result.json's median of 3 is %v", g.Workload, g.Outcome, g.Measured, g.Repetitions, throughput[g.Workload])
			}
			if g.Outcome == verdict.Fail {
				failed[g.Workload]++
			}
		case "error_rate":
			if g.Outcome != verdict.Pass {
				t.Errorf("%s error-rate gate: %s (measured %v)", g.Workload, g.Outcome, g.Measured)
			}
		}
	}
	for _, w := range workloads {
		if failed[w] != 1 {
			t.Errorf("%s has %d failed gates, want 1", w, failed[w])
		}
	}

	// The reports come after the verdict and open with it: report.md's
	// first section, and report.html (one file, every chart inline) beside
	// it with the failed gates and the repetitions' spread.
	assertReportsOpenWithVerdict(t, dir, "fail")

	// junit.xml: its counts, from the suite's attributes and from its test
	// cases, are the verdict's (no stage failed), and --junit copied it.
	inRun, err := os.ReadFile(filepath.Join(dir, verdict.JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	if copied, err := os.ReadFile(copyTo); err != nil || !bytes.Equal(copied, inRun) {
		t.Errorf("--junit %s is not the run's junit.xml: %v", copyTo, err)
	}
	want := junitTally{Tests: len(v.Gates), Failures: v.Failed}
	if attrs, cases := readJUnit(t, inRun); attrs != want || cases != want {
		t.Errorf("junit.xml after run: suite %+v, test cases %+v; the verdict's %+v", attrs, cases, want)
	}

	// ybbench gate on the finished run: bounds every machine holds, and the
	// run as its own baseline (ratio 1 of itself), rewrite the verdict.
	pass := writeGate(t, "baseline: {run: "+dir+"}\ngates:\n"+
		"  - {workload: \"*\", metric: throughput, op: \">=\", value: 1}\n"+
		"  - {workload: \"*\", metric: error_rate, op: \"<=\", value: 0.5}\n"+
		"  - {workload: \"*\", operation: READ, metric: p99, op: \"<=\", ratio: 1}\n")
	if g := ybbench(t, "gate", "--run", dir, "--gate", pass); g.code != 0 {
		t.Fatalf("gate PASS: exit %d, want 0\n%s%s", g.code, g.stdout, g.stderr)
	}
	v2 := readVerdict(t, dir)
	if v2.GateFile != pass || v2.Outcome != verdict.Pass || v2.Failed != 0 || v2.CannotEvaluate != 0 ||
		v2.Passed != len(v2.Gates) || len(v2.Gates) != 3*len(workloads) || v2.Created.Before(v.Created) {
		t.Errorf("verdict after gate: file %s, %s: %d passed, %d failed, %d cannot be evaluated of %d gates, created %v (first %v)",
			v2.GateFile, v2.Outcome, v2.Passed, v2.Failed, v2.CannotEvaluate, len(v2.Gates), v2.Created, v.Created)
	}
	for _, g := range v2.Gates {
		if g.Outcome != verdict.Pass {
			t.Errorf("gate %s %s %s: %s %s", g.Workload, g.Operation, g.Metric, g.Outcome, g.Reason)
		}
	}
	// gate renders the reports again with its verdict.
	assertReportsOpenWithVerdict(t, dir, "pass")
	inRun, err = os.ReadFile(filepath.Join(dir, verdict.JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	want = junitTally{Tests: len(v2.Gates)}
	if attrs, cases := readJUnit(t, inRun); attrs != want || cases != want {
		t.Errorf("junit.xml after gate: suite %+v, test cases %+v; the verdict's %+v", attrs, cases, want)
	}

	// compare with a fixture of the same profile: Markdown for people, and
	// JSON whose workloada figures are each result.json's.
	fixture := filepath.Join(testenv.RepoRoot(), "collect", "testdata", "ycsb-ysql.result.json")
	fb, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var fres collect.Result
	if err := json.Unmarshal(fb, &fres); err != nil {
		t.Fatal(err)
	}
	md := ybbench(t, "compare", dir, fixture)
	if md.code != 0 || !strings.Contains(md.stdout, filepath.Base(dir)) || !strings.Contains(md.stdout, fres.RunID) ||
		!strings.Contains(md.stdout, "| workloada | (workload) | throughput |") {
		t.Errorf("compare: exit %d\n%s%s", md.code, md.stdout, md.stderr)
	}
	js := ybbench(t, "compare", "--format=json", dir, fixture)
	if js.code != 0 {
		t.Fatalf("compare --format=json: exit %d\n%s", js.code, js.stderr)
	}
	var c compare.Comparison
	if err := json.Unmarshal([]byte(js.stdout), &c); err != nil {
		t.Fatalf("compare --format=json: %v\n%s", err, js.stdout)
	}
	if len(c.Runs) != 2 || c.Runs[0].ID != filepath.Base(dir) || c.Runs[1].ID != fres.RunID {
		t.Fatalf("compare's runs %+v, want %s then %s", c.Runs, filepath.Base(dir), fres.RunID)
	}
	fixtureThroughput := 0.0
	for _, w := range fres.Workloads {
		if w.Name == "workloada" {
			fixtureThroughput = w.Throughput
		}
	}
	rows := 0
	for _, row := range c.Figures {
		if row.Workload != "workloada" {
			continue
		}
		rows++
		if len(row.Runs) != 2 || len(row.Runs[0].Values) != 3 || len(row.Runs[1].Values) != 1 {
			t.Errorf("workloada %s %s: not a figure of both runs: %+v", row.Operation, row.Metric, row.Runs)
			continue
		}
		if row.Operation == "" && row.Metric == "throughput" &&
			(fmt.Sprint(row.Runs[0].Values) != fmt.Sprint(tputs["workloada"]) || row.Runs[1].Values[0] != fixtureThroughput) {
			t.Errorf("workloada throughput compared as %v and %v; the results have %v and %v",
				row.Runs[0].Values, row.Runs[1].Values[0], tputs["workloada"], fixtureThroughput)
		}
	}
	// The workload's throughput and error rate, and eight figures of each
	// of READ and UPDATE.
	if rows != 2+2*len(verdict.Metrics) {
		t.Errorf("compare has %d workloada figures of both runs, want %d", rows, 2+2*len(verdict.Metrics))
	}
}

// junitTally is a JUnit report's counts.
type junitTally struct{ Tests, Failures, Errors, Skipped int }

// readJUnit reads a junit.xml's single suite: the counts its attributes
// state and the counts of its test cases.
func readJUnit(t *testing.T, b []byte) (attrs, cases junitTally) {
	t.Helper()
	var s struct {
		XMLName  xml.Name `xml:"testsuite"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Cases    []struct {
			Failure *struct{} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatalf("junit.xml: %v\n%s", err, b)
	}
	attrs = junitTally{s.Tests, s.Failures, s.Errors, s.Skipped}
	cases.Tests = len(s.Cases)
	for _, c := range s.Cases {
		if c.Failure != nil {
			cases.Failures++
		}
		if c.Error != nil {
			cases.Errors++
		}
		if c.Skipped != nil {
			cases.Skipped++
		}
	}
	return attrs, cases
}

// assertReportsOpenWithVerdict checks that report.md's first section is
// the verdict with outcome, and that report.html shows the same outcome
// before its first workload, with each repeated workload's spread and
// charts drawn inline.
func assertReportsOpenWithVerdict(t *testing.T, dir, outcome string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.SplitN(string(md), "\n\n", 3); len(parts) < 2 || parts[1] != "## Verdict: "+outcome {
		t.Errorf("report.md does not open with the verdict (%s):\n%.600s", outcome, md)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	v, w := strings.Index(page, outcome), strings.Index(page, "workloada")
	if v < 0 || w < 0 || v > w || !strings.Contains(page, "<svg") {
		t.Errorf("report.html: verdict %q at %d, first workload at %d, svg %v", outcome, v, w, strings.Contains(page, "<svg"))
	}
	if strings.Contains(page, "src=\"http") || strings.Contains(page, "href=\"http") {
		t.Error("report.html loads something from the network")
	}
	for _, r := range []string{"r1", "r2", "r3"} {
		if !strings.Contains(page, r) {
			t.Errorf("report.html names no repetition %s", r)
		}
	}
}
