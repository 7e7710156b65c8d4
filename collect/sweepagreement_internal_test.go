package collect

import (
	"math"
	"slices"
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

// swept is repetition k whose sweep took its steps from saturation and
// measured steps (target ops/s, p99 µs), each holding its rate, against
// an SLO of 2000 µs.
func swept(k int, saturation float64, steps ...[2]float64) Repetition {
	sw := &SweepResult{Saturation: saturation, Resolution: 0.1, SLOP99: 2000, SLOGiven: true}
	for i, s := range steps {
		sw.Steps = append(sw.Steps, sweep.Step{Index: i + 1, Kind: sweep.KindBisect, Target: s[0], Achieved: s[0], P99: s[1]})
	}
	sw.findKnee()
	return Repetition{Index: k, Sweep: sw}
}

// Two sweeps of one cluster agree when their knees lie within 3% of each
// other; beyond that, within the cluster's own noise when the ranges each
// sweep's own p99 noise leaves its knee in meet, widened by how far the
// saturations they were found from lie apart; a sweep without a knee
// gives no agreement, and says which.
func TestSweepAgreement(t *testing.T) {
	for _, c := range []struct {
		name        string
		reps        []Repetition
		apart, run  float64
		noise       []float64
		ranges      []sweep.Range
		goal, agree bool
		problem     string
		text        []string
	}{
		// No repeat, no noise: each knee is known to the step above it.
		{"close", []Repetition{
			swept(1, 1200, [2]float64{500, 1000}, [2]float64{1000, 1900}, [2]float64{1100, 2500}),
			swept(2, 1250, [2]float64{500, 1000}, [2]float64{1025, 1900}, [2]float64{1100, 2500})},
			0.025, 50.0 / 1200, []float64{0, 0}, []sweep.Range{{Low: 1000, High: 1100}, {Low: 1025, High: 1100}}, true, true, "",
			[]string{"r1 1000, r2 1025: 2.5% apart, within the 3% goal", "by up to r1 0%, r2 0%", "r1 1000–1100, r2 1025–1100 ops/s"}},
		// r1 measured 1000 twice, 1200 and 1500 µs: 25% noise, so 1200's
		// 2300 µs is not clearly past the SLO and the range reaches the
		// resolution past it (1200 + 0.1 × 1200); r2's 1300 lies in it.
		{"noisy", []Repetition{
			swept(1, 1200, [2]float64{500, 1000}, [2]float64{1000, 1200}, [2]float64{1000, 1500}, [2]float64{1200, 2300}),
			swept(2, 1250, [2]float64{500, 1000}, [2]float64{1300, 1900}, [2]float64{1500, 2600})},
			0.3, 50.0 / 1200, []float64{0.25, 0}, []sweep.Range{{Low: 1000, High: 1320}, {Low: 1300, High: 1500}}, false, true, "",
			[]string{"30.0% apart, over the 3% goal, within this cluster's own noise", "by up to r1 25%, r2 0%"}},
		// Ranges 1000–1100 and 1500–1600, the saturations 0.8% apart.
		{"apart", []Repetition{
			swept(1, 1200, [2]float64{500, 1000}, [2]float64{1000, 1900}, [2]float64{1100, 2500}),
			swept(2, 1210, [2]float64{500, 1000}, [2]float64{1500, 1900}, [2]float64{1600, 2500}),
			swept(3, 1205, [2]float64{500, 1000}, [2]float64{1025, 1900}, [2]float64{1100, 2500})},
			0.5, 10.0 / 1200, []float64{0, 0, 0}, []sweep.Range{{Low: 1000, High: 1100}, {Low: 1500, High: 1600}, {Low: 1025, High: 1100}}, false, false, "",
			[]string{"50.0% apart, over the 3% goal, and beyond this cluster's own noise"}},
		// Ranges 1000–1100 and 1150–1250 do not meet, but the second run
		// was 10% faster: 1150 ≤ 1100 × 1.1.
		{"drifted", []Repetition{
			swept(1, 1000, [2]float64{500, 1000}, [2]float64{1000, 1900}, [2]float64{1100, 2500}),
			swept(2, 1100, [2]float64{500, 1000}, [2]float64{1150, 1900}, [2]float64{1250, 2500})},
			0.15, 0.1, []float64{0, 0}, []sweep.Range{{Low: 1000, High: 1100}, {Low: 1150, High: 1250}}, false, true, "",
			[]string{"15.0% apart, over the 3% goal, within this cluster's own noise", "lie 10.0% apart"}},
		// r2 measured 500 twice, 1000 and 2100 µs (its knee is 500, below
		// the first that missed): noise 110% leaves an SLO of 2000 µs no
		// room even at 500, and its range takes in r1's knee.
		{"unplaced", []Repetition{
			swept(1, 1200, [2]float64{500, 1000}, [2]float64{1000, 1900}, [2]float64{1100, 2500}),
			swept(2, 1200, [2]float64{500, 1000}, [2]float64{500, 2100}, [2]float64{1000, 1900}, [2]float64{1100, 9000})},
			1, 0, []float64{0, 1.1}, []sweep.Range{{Low: 1000, High: 1100}, {Low: 0, High: 1100}}, false, true, "",
			[]string{"100.0% apart, over the 3% goal, within this cluster's own noise", "r2's noise left its SLO no room: that sweep could not place its knee."}},
		{"no knee", []Repetition{
			swept(1, 1200, [2]float64{500, 1000}, [2]float64{1000, 1900}, [2]float64{1100, 2500}),
			swept(2, 1250, [2]float64{500, 3000})},
			0, 0, nil, nil, false, false, "r2's sweep found no knee",
			[]string{"r1 1000, r2 0; no agreement to give: r2's sweep found no knee"}},
	} {
		a := sweepAgreementOf(c.reps)
		if a == nil {
			t.Errorf("%s: no agreement", c.name)
			continue
		}
		if math.Abs(a.Apart-c.apart) > 1e-9 || math.Abs(a.RunApart-c.run) > 1e-9 || !slices.Equal(a.Noise, c.noise) || !slices.Equal(a.Ranges, c.ranges) ||
			a.WithinGoal != c.goal || a.WithinNoise != c.agree || a.Problem != c.problem || a.Goal != 0.03 || len(a.Knees) != len(c.reps) {
			t.Errorf("%s: %+v, want apart %v, run %v, noise %v, ranges %v, goal %v, within noise %v, problem %q",
				c.name, a, c.apart, c.run, c.noise, c.ranges, c.goal, c.agree, c.problem)
		}
		for _, want := range c.text {
			if !strings.Contains(a.Text(), want) {
				t.Errorf("%s: %q lacks %q", c.name, a.Text(), want)
			}
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

// A sweep's report says how well it knows its knee: the range its own p99
// noise leaves the knee in, or, when the noise leaves the SLO no room,
// that it cannot place it.
func TestSweepReportSaysTheKneeRange(t *testing.T) {
	placed := swept(1, 1200, [2]float64{500, 1000}, [2]float64{1000, 1500}, [2]float64{1000, 1600}, [2]float64{1100, 2500})
	unplaced := swept(1, 1200, [2]float64{500, 1000}, [2]float64{500, 2500}, [2]float64{1000, 2500})
	for _, c := range []struct {
		rep  Repetition
		want string
	}{
		// 1600/1500 − 1 ≈ 7%: 1000's p99 × 1.07 within 2000 µs, 1100's
		// ÷ 1.07 over it.
		{placed, "moved by up to 7% between two measurements of it: given that noise, the knee lies between 1000 and 1100 ops/s."},
		// 2500/1000 − 1 = 150%: not even 500 clear of the SLO, nor 1000
		// (2500 ÷ 2.5) clearly past it: the range reaches the resolution
		// past it, 1000 + 0.1 × 1200.
		{unplaced, "moved by up to 150% between two measurements of it: that leaves the SLO no room, and this sweep cannot place its knee above any rate it measured (only below 1120 ops/s)."},
	} {
		md := sweepMarkdown(&WorkloadResult{Name: "workloadc", Sweep: c.rep.Sweep})
		if !strings.Contains(md, c.want) {
			t.Errorf("the sweep's report lacks %q:\n%s", c.want, md)
		}
	}
}
