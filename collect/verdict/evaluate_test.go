package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/profiles"
)

// figures are one workload's run phase, for building results by hand.
type figures struct {
	throughput        float64
	readMean, readP99 float64 // µs
	reads, readErrors int64
	writes            int64
}

func resultOf(id string, created time.Time, ws map[string]figures) *collect.Result {
	r := &collect.Result{Schema: collect.ResultSchema, RunID: id, Profile: "ycsb-ysql", Created: created,
		Parameters: map[string]string{"threads": "64", "flavor": "yugabyte"}, Database: &collect.Database{Flavor: "yugabyte"}}
	for _, name := range []string{"workloada", "workloadc"} {
		f, ok := ws[name]
		if !ok {
			continue
		}
		p := collect.PhaseResult{Phase: "run", Complete: true, WindowMS: 10_000, Measurements: []collect.MeasurementResult{
			{Name: "READ", Count: f.reads, Errors: f.readErrors, Latency: collect.LatencySummary{Mean: f.readMean, P99: int64(f.readP99)}},
		}}
		if f.writes > 0 {
			p.Measurements = append(p.Measurements, collect.MeasurementResult{Name: "UPDATE", Count: f.writes, Latency: collect.LatencySummary{Mean: 2000, P99: 5000}})
		}
		r.Workloads = append(r.Workloads, collect.WorkloadResult{Name: name, Throughput: f.throughput,
			Phases: []collect.PhaseResult{{Phase: "load", Complete: true}, p}})
	}
	return r
}

var (
	t0  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run = resultOf("now", t0.Add(time.Hour), map[string]figures{
		"workloada": {throughput: 900, readMean: 1500, readP99: 4000, reads: 9000, readErrors: 9, writes: 1000},
		"workloadc": {throughput: 2000, readMean: 1000, readP99: 3000, reads: 20000},
	})
	published = &collect.BaselineResult{Consistent: true, Baseline: profiles.Baseline{Rows: []profiles.BaselineRow{
		{Workload: "workloada", Throughput: 1000, Latencies: []profiles.Published{{Op: "READ", MS: 1.2, Statistic: "mean"}}},
	}}}
)

func gateFile(t *testing.T, text string) *File {
	t.Helper()
	f, err := Parse("g.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Each rule form against each baseline source: the outcome, and the
// figures it was decided on, worked out by hand from the results above.
func TestEvaluateRules(t *testing.T) {
	withTable := *run
	withTable.Baseline = published
	inconsistent := *run
	inconsistent.Baseline = &collect.BaselineResult{Consistent: false, Inconsistencies: []string{"workloada: 2.00"}, Baseline: published.Baseline}
	prev := Run{Dir: "runs/prev", Result: resultOf("prev", t0, map[string]figures{
		"workloada": {throughput: 1000, readMean: 1000, readP99: 5000, reads: 10000, writes: 1000},
	})}
	type want struct {
		workload, operation, outcome string
		measured, baseline, bound    float64
		reason                       string
	}
	for _, c := range []struct {
		name   string
		result *collect.Result
		base   Baseline
		rule   string
		want   []want
	}{
		{"throughput of every workload, published", &withTable, Published{&withTable},
			"{workload: '*', metric: throughput, op: '>=', ratio: 0.9}",
			[]want{{"workloada", "", Pass, 900, 1000, 900, ""},
				{"workloadc", "", CannotEvaluate, 0, 0, 0, "no row for workloadc"}}},
		{"a published mean of one operation", &withTable, Published{&withTable},
			"{workload: workloada, operation: READ, metric: mean, op: '<=', ratio: 1.15}",
			[]want{{"workloada", "READ", Fail, 1500, 1200, 1380, ""}}},
		{"a p99 the published table has no column of", &withTable, Published{&withTable},
			"{workload: workloada, operation: READ, metric: p99, op: '<=', ratio: 1.15}",
			[]want{{"workloada", "READ", CannotEvaluate, 0, 0, 0, "has no p99 READ (it has mean READ)"}}},
		{"a published table that is not self-consistent", &inconsistent, Published{&inconsistent},
			"{workload: workloada, metric: throughput, op: '>=', ratio: 0.5}",
			[]want{{"workloada", "", CannotEvaluate, 0, 0, 0, "not self-consistent"}}},
		{"an absolute error rate of every workload", run, nil,
			"{workload: '*', metric: error_rate, op: '<=', value: 0.0005}",
			[]want{{"workloada", "", Fail, 9.0 / 10009, 0, 0.0005, ""}, {"workloadc", "", Pass, 0, 0, 0.0005, ""}}},
		{"an absolute p99 of every operation", run, nil,
			"{workload: workloada, operation: '*', metric: p99, op: '<=', value: 4500}",
			[]want{{"workloada", "READ", Pass, 4000, 0, 4500, ""}, {"workloada", "UPDATE", Fail, 5000, 0, 4500, ""}}},
		{"a latency rule without an operation takes every one", run, nil,
			"{workload: workloadc, metric: mean, op: '<=', value: 1000}",
			[]want{{"workloadc", "READ", Pass, 1000, 0, 1000, ""}}},
		{"an operation's own throughput", run, nil,
			"{workload: workloada, operation: UPDATE, metric: throughput, op: '>=', value: 100}",
			[]want{{"workloada", "UPDATE", Pass, 100, 0, 100, ""}}},
		{"a previous run's p99", run, prev,
			"{workload: workloada, operation: READ, metric: p99, op: '<=', ratio: 1.15}",
			[]want{{"workloada", "READ", Pass, 4000, 5000, 5750, ""}}},
		{"a previous run without the workload", run, prev,
			"{workload: workloadc, metric: throughput, op: '>=', ratio: 0.9}",
			[]want{{"workloadc", "", CannotEvaluate, 0, 0, 0, "run prev did not run workloadc"}}},
		{"an operation the run did not measure", run, nil,
			"{workload: workloadc, operation: UPDATE, metric: max, op: '<=', value: 1}",
			[]want{{"workloadc", "UPDATE", CannotEvaluate, 0, 0, 0, "measured no UPDATE"}}},
		{"a workload the run did not run", run, nil,
			"{workload: workloadb, metric: throughput, op: '>=', value: 1}",
			[]want{{"workloadb", "", CannotEvaluate, 0, 0, 0, "did not run workloadb"}}},
		{"a ratio of a zero baseline", run, Run{Dir: "z", Result: resultOf("z", t0, map[string]figures{"workloadc": {reads: 1}})},
			"{workload: workloadc, metric: throughput, op: '>=', ratio: 0.9}",
			[]want{{"workloadc", "", CannotEvaluate, 0, 0, 0, "the baseline is 0"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := "gates:\n  - " + c.rule + "\n"
			if strings.Contains(c.rule, "ratio") {
				text = "baseline: published\n" + text
			}
			v := Evaluate(gateFile(t, text), c.result, c.base, t0)
			if len(v.Gates) != len(c.want) {
				t.Fatalf("%d gates, want %d: %+v", len(v.Gates), len(c.want), v.Gates)
			}
			for i, w := range c.want {
				g := v.Gates[i]
				if g.Workload != w.workload || g.Operation != w.operation || g.Outcome != w.outcome {
					t.Errorf("gate %d: %s %s %s (%s), want %s %s %s", i, g.Workload, g.Operation, g.Outcome, g.Reason, w.workload, w.operation, w.outcome)
					continue
				}
				if w.outcome == CannotEvaluate {
					if !strings.Contains(g.Reason, w.reason) {
						t.Errorf("gate %d: reason %q, want it to say %q", i, g.Reason, w.reason)
					}
					continue
				}
				if !near(g.Measured, w.measured) || !near(g.Bound, w.bound) || (w.baseline != 0 && !near(g.Baseline, w.baseline)) {
					t.Errorf("gate %d: measured %v baseline %v bound %v, want %v %v %v", i, val(g.Measured), val(g.Baseline), val(g.Bound), w.measured, w.baseline, w.bound)
				}
				if w.baseline != 0 && !near(g.Ratio, w.measured/w.baseline) {
					t.Errorf("gate %d: ratio %v, want %v", i, val(g.Ratio), w.measured/w.baseline)
				}
			}
		})
	}
}

func near(p *float64, want float64) bool {
	if p == nil {
		return false
	}
	d := *p - want
	return d < 1e-9 && d > -1e-9
}

func val(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// The verdict's outcome and counts: a failure wins over a gate that cannot
// be evaluated, and only those stop a release (the latter unless warned of).
func TestVerdictOutcome(t *testing.T) {
	for _, c := range []struct {
		rules                 string
		outcome               string
		gated, gatedIfWarning bool
	}{
		{"  - {workload: workloadc, metric: throughput, op: '>=', value: 10}\n", Pass, false, false},
		{"  - {workload: workloadc, metric: throughput, op: '>=', value: 10}\n  - {workload: workloadb, metric: max, op: '<=', value: 1}\n", CannotEvaluate, true, false},
		{"  - {workload: workloadc, metric: throughput, op: '>=', value: 1e9}\n  - {workload: workloadb, metric: max, op: '<=', value: 1}\n", Fail, true, true},
	} {
		v := Evaluate(gateFile(t, "gates:\n"+c.rules), run, nil, t0)
		if v.Outcome != c.outcome || v.Gated(false) != c.gated || v.Gated(true) != c.gatedIfWarning {
			t.Errorf("%s: %s gated %v/%v, want %s %v/%v", c.rules, v.Outcome, v.Gated(false), v.Gated(true), c.outcome, c.gated, c.gatedIfWarning)
		}
		if v.Passed+v.Failed+v.CannotEvaluate != len(v.Gates) {
			t.Errorf("counts %d+%d+%d of %d gates", v.Passed, v.Failed, v.CannotEvaluate, len(v.Gates))
		}
	}
}

// A run whose measured phase did not finish is not complete, and its
// gates on that workload cannot be evaluated.
func TestIncompleteRun(t *testing.T) {
	r := resultOf("cut", t0, map[string]figures{"workloada": {throughput: 1, reads: 1}, "workloadc": {throughput: 1, reads: 1}})
	r.Workloads[1].Phases[1].Complete = false
	v := Evaluate(gateFile(t, "gates:\n  - {workload: '*', metric: throughput, op: '>=', value: 0.5}\n"), r, nil, t0)
	if v.Complete || len(v.Incomplete) != 1 || !strings.Contains(v.Incomplete[0], "workloadc") {
		t.Errorf("complete %v %v", v.Complete, v.Incomplete)
	}
	if v.Passed != 1 || v.CannotEvaluate != 1 || v.Gates[1].Workload != "workloadc" {
		t.Errorf("%+v", v.Gates)
	}
}

// The history baseline is the median of the last runs that had the gated
// run's profile, parameters and flavor; the others, and the run itself,
// are left out; with none left the gate cannot be evaluated.
func TestHistory(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r *collect.Result) {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.WriteJSON(filepath.Join(dir, name, "result.json"), r, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, tp := range []float64{5000, 1000, 1200, 800, 1100} { // the oldest (5000) is beyond last: 4
		write("h"+string(rune('0'+i)), resultOf("h"+string(rune('0'+i)), t0.Add(time.Duration(i)*time.Minute),
			map[string]figures{"workloada": {throughput: tp, reads: 1}}))
	}
	other := resultOf("other", t0.Add(time.Hour), map[string]figures{"workloada": {throughput: 1}})
	other.Parameters = map[string]string{"threads": "8", "flavor": "yugabyte"}
	write("other", other)
	pg := resultOf("pg", t0.Add(time.Hour), map[string]figures{"workloada": {throughput: 1}})
	pg.Database.Flavor = "postgres"
	write("pg", pg)
	write("self", run)

	h, err := ReadHistory(dir, 4, run)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Info().Runs; strings.Join(got, ",") != "h1,h2,h3,h4" {
		t.Errorf("runs %v, skipped %v", got, h.Skipped)
	}
	v := Evaluate(gateFile(t, "baseline: {history: {dir: "+dir+", last: 4}}\ngates:\n  - {workload: workloada, metric: throughput, op: '>=', ratio: 0.9}\n"), run, h, t0)
	g := v.Gates[0]
	if !near(g.Baseline, 1050) || g.Outcome != Fail { // median of 1000, 1200, 800, 1100; 900 < 945
		t.Errorf("%+v baseline %v", g, val(g.Baseline))
	}
	lone := resultOf("lone", t0.Add(time.Hour), map[string]figures{"workloada": {throughput: 1}})
	lone.Parameters = map[string]string{"threads": "16", "flavor": "yugabyte"}
	h, err = ReadHistory(dir, 4, lone)
	if err != nil {
		t.Fatal(err)
	}
	v = Evaluate(gateFile(t, "baseline: published\ngates:\n  - {workload: workloada, metric: throughput, op: '>=', ratio: 0.9}\n"), lone, h, t0)
	if g := v.Gates[0]; g.Outcome != CannotEvaluate || !strings.Contains(g.Reason, "this run's profile, parameters and flavor") {
		t.Errorf("%+v", g)
	}
}
