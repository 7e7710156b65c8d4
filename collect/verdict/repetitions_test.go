package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/sweep"
)

// repeated is the collector's fixture result of 3 repetitions.
func repeated(t *testing.T) *collect.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "repeat3.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A repeated workload is gated on its medians over the repetitions, not on
// its median repetition's own figures, and each gate says over how many;
// a previous run of repetitions is a baseline of its medians too. The
// verdict matches its schema.
func TestGatesUseTheMedian(t *testing.T) {
	r := repeated(t)
	w := &r.Workloads[0]
	p99 := w.FindSpread("READ", "p99")
	if p99 == nil || len(p99.Values) != 3 {
		t.Fatalf("the fixture has no READ p99 spread: %+v", p99)
	}
	// The median repetition's own p99 is made to differ from the median
	// of the p99s, so that taking the one for the other is caught.
	p := collect.MeasuredPhaseOf(w.Phases)
	p.Find("READ").Latency.P99 = int64(p99.Median) * 10
	prev := repeated(t)
	f := gateFile(t, `baseline: published
gates:
  - {workload: workloada, operation: READ, metric: p99, op: "<=", ratio: 1.15}
  - {workload: workloada, metric: error_rate, op: "<=", value: 0.001}
`)
	// The previous run is given as the baseline source a run: file names.
	v := Evaluate(f, r, Run{Dir: "prev", Result: prev}, t0)
	if len(v.Gates) != 2 {
		t.Fatalf("%d gates", len(v.Gates))
	}
	g := v.Gates[0]
	if g.Outcome != Pass || g.Measured == nil || *g.Measured != p99.Median || g.Baseline == nil || *g.Baseline != p99.Median || g.Repetitions != 3 {
		t.Errorf("gate %+v (measured %v baseline %v), want a pass at the median %v of 3", g, val(g.Measured), val(g.Baseline), p99.Median)
	}
	if g := v.Gates[1]; g.Repetitions != 3 || g.Outcome != Pass {
		t.Errorf("error rate gate %+v", g)
	}
	if got := gateFigures(g); !strings.Contains(got, "(median of 3)") {
		t.Errorf("the JUnit message %q does not say it is a median", got)
	}
	path := filepath.Join(t.TempDir(), VerdictFile)
	if err := Write(path, v); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(doc); err != nil || !strings.Contains(string(doc), `"repetitions": 3`) {
		t.Errorf("the verdict (%v):\n%s", err, doc)
	}
}

// A repetition whose measured phase did not complete leaves the run
// incomplete, though the median repetition completed.
func TestIncompleteRepetition(t *testing.T) {
	r := repeated(t)
	w := &r.Workloads[1]
	for i := range w.Repetitions {
		if w.Repetitions[i].Index != w.MedianRepetition {
			collect.MeasuredPhaseOf(w.Repetitions[i].Phases).Complete = false
			break
		}
	}
	f := gateFile(t, `baseline: published
gates:
  - {workload: "*", metric: error_rate, op: "<=", value: 0.001}
`)
	v := Evaluate(f, r, nil, t0)
	if v.Complete || len(v.Incomplete) != 1 || !strings.Contains(v.Incomplete[0], w.Name) || !strings.Contains(v.Incomplete[0], "repetition r") {
		t.Errorf("complete %v, incomplete %q", v.Complete, v.Incomplete)
	}
}

// A repeated, swept workload is gated on the median of its repetitions'
// knees, each repetition having swept after its own run; a repetition
// whose sweep found no knee leaves the gate unjudged, naming it.
func TestSweptRepetitionsGateTheMedianKnee(t *testing.T) {
	r := repeated(t)
	w := &r.Workloads[0]
	knees := []float64{900, 1200, 1000}
	for i := range w.Repetitions {
		w.Repetitions[i].Sweep = &collect.SweepResult{Knee: &sweep.Knee{Achieved: knees[i]}, MaxSustainable: knees[i]}
	}
	// The median repetition's own knee is not the median knee.
	w.Sweep = w.Repetitions[0].Sweep
	w.Spread = append(w.Spread, collect.SpreadOf("", collect.MetricMaxSustainable, knees))
	f := gateFile(t, "gates:\n  - {workload: workloada, metric: max_sustainable_throughput, op: \">=\", value: 950}\n")
	g := Evaluate(f, r, nil, t0).Gates[0]
	if g.Outcome != Pass || g.Measured == nil || *g.Measured != 1000 || g.Repetitions != 3 {
		t.Errorf("gate %+v (measured %v), want a pass at the median knee 1000 of 3", g, val(g.Measured))
	}
	// A knee whose sweep's own noise left the SLO no room is no figure to
	// gate on; one placed within a range is (the control).
	w.Repetitions[1].Sweep.KneeRange, w.Repetitions[1].Sweep.P99RepeatNoise = &sweep.Range{Low: 0, High: 1500}, 1.4
	g = Evaluate(f, r, nil, t0).Gates[0]
	if g.Outcome != CannotEvaluate || !strings.Contains(g.Reason, "workloada r2's sweep could not place its knee: the p99 of one rate moved 140% between two measurements of it") {
		t.Errorf("a repetition whose knee could not be placed: gate %+v", g)
	}
	w.Repetitions[1].Sweep.KneeRange, w.Repetitions[1].Sweep.P99RepeatNoise = &sweep.Range{Low: 1100, High: 1300}, 0.2
	if g = Evaluate(f, r, nil, t0).Gates[0]; g.Outcome != Pass {
		t.Errorf("a repetition whose knee lies in a range: gate %+v", g)
	}
	w.Repetitions[2].Sweep.Knee = nil
	g = Evaluate(f, r, nil, t0).Gates[0]
	if g.Outcome != CannotEvaluate || !strings.Contains(g.Reason, "workloada r3's sweep found no knee") {
		t.Errorf("a repetition without a knee: gate %+v", g)
	}
}
