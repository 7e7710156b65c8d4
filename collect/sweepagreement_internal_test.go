package collect

import (
	"math"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/sweep"
)

// sweptRep is repetition k whose sweep took its steps from saturation
// and found its knee at knee ops/s (none when knee is 0), no step above it
// having broken.
func sweptRep(k int, saturation, knee float64) Repetition {
	sw := &SweepResult{Saturation: saturation, Resolution: 0.1}
	if knee > 0 {
		sw.Knee, sw.MaxSustainable = &sweep.Knee{Target: knee, Achieved: knee}, knee
	}
	return Repetition{Index: k, Sweep: sw}
}

// brokeAt is rep with a step (index 9) above its knee that was not good,
// at target ops/s.
func brokeAt(rep Repetition, target float64) Repetition {
	above := 9
	rep.Sweep.Knee.Above = &above
	rep.Sweep.Steps = append(rep.Sweep.Steps, sweep.Step{Index: 9, Kind: sweep.KindBisect, Target: target})
	return rep
}

// Two sweeps of one cluster agree when their knees lie within 3% of each
// other; beyond that, within the cluster's own noise when the knees are
// no further apart than the saturations they were found from plus the
// precision of their bisection; a sweep without a knee gives no
// agreement, and says which.
func TestSweepAgreement(t *testing.T) {
	for _, c := range []struct {
		name                string
		reps                []Repetition
		apart, run, bracket float64
		goal, noise         bool
		problem, text       string
	}{
		// (1025−1000)/1000; (1250−1200)/1200; max(0.1×1200/1000, 0.1×1250/1025).
		{"close", []Repetition{sweptRep(1, 1200, 1000), sweptRep(2, 1250, 1025)}, 0.025, 50.0 / 1200, 125.0 / 1025, true, true, "",
			"r1 1000, r2 1025: 2.5% apart, within the 3% goal"},
		// (1100−1000)/1000 = 10% ≤ 50/1200 + 0.12.
		{"noisy", []Repetition{sweptRep(1, 1200, 1000), sweptRep(2, 1250, 1100)}, 0.1, 50.0 / 1200, 0.12, false, true, "",
			"10.0% apart, over the 3% goal, within this cluster's own noise"},
		{"apart", []Repetition{sweptRep(1, 1200, 1000), sweptRep(2, 1210, 1500), sweptRep(3, 1205, 1010)}, 0.5, 10.0 / 1200, 0.12, false, false, "",
			"50.0% apart, over the 3% goal, and beyond this cluster's own noise"},
		// The bracket is the step above the knee that broke: the wider of
		// (1030−1000)/1000 and (1120−1100)/1100, not the resolution's 12%;
		// 10% > 50/1200 + 3%.
		{"bracketed", []Repetition{brokeAt(sweptRep(1, 1200, 1000), 1030), brokeAt(sweptRep(2, 1250, 1100), 1120)}, 0.1, 50.0 / 1200, 0.03, false, false, "",
			"10.0% apart, over the 3% goal, and beyond this cluster's own noise"},
		{"no knee", []Repetition{sweptRep(1, 1200, 1000), sweptRep(2, 1250, 0)}, 0, 0, 0, false, false, "r2's sweep found no knee",
			"r1 1000, r2 0; no agreement to give: r2's sweep found no knee"},
	} {
		a := sweepAgreementOf(c.reps)
		if a == nil {
			t.Errorf("%s: no agreement", c.name)
			continue
		}
		if math.Abs(a.Apart-c.apart) > 1e-9 || math.Abs(a.RunApart-c.run) > 1e-9 || math.Abs(a.Bracket-c.bracket) > 1e-9 ||
			a.WithinGoal != c.goal || a.WithinNoise != c.noise || a.Problem != c.problem || a.Goal != 0.03 || len(a.Knees) != len(c.reps) {
			t.Errorf("%s: %+v, want apart %v, run %v, bracket %v, goal %v, noise %v, problem %q", c.name, a, c.apart, c.run, c.bracket, c.goal, c.noise, c.problem)
		}
		if !strings.Contains(a.Text(), c.text) {
			t.Errorf("%s: %q lacks %q", c.name, a.Text(), c.text)
		}
	}
	// One sweep, or none: nothing to agree.
	if a := sweepAgreementOf([]Repetition{sweptRep(1, 1200, 1000), {Index: 2}}); a != nil {
		t.Errorf("one sweep of two repetitions: %+v", a)
	}
}

// A repeated, swept workload's spread gives its knees as
// max_sustainable_throughput, the median of them for gates; a repetition
// whose sweep found no knee adds no value.
func TestSpreadOfTheKnees(t *testing.T) {
	sp := (&WorkloadResult{Spread: spreadsOf([]Repetition{sweptRep(1, 1200, 1000), sweptRep(2, 1250, 0), sweptRep(3, 1300, 1100), sweptRep(4, 1300, 1050)})}).
		FindSpread("", MetricMaxSustainable)
	if sp == nil || sp.Median != 1050 || len(sp.Values) != 3 || sp.Unit != UnitRate || sp.Min != 1000 || sp.Max != 1100 {
		t.Fatalf("knees' spread %+v, want the median 1050 of 1000, 1100, 1050 in ops/s", sp)
	}
	if sp := (&WorkloadResult{Spread: spreadsOf([]Repetition{{Index: 1}, {Index: 2}})}).FindSpread("", MetricMaxSustainable); sp != nil {
		t.Errorf("repetitions not swept have a knees' spread: %+v", sp)
	}
}
