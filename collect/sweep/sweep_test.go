package sweep

import (
	"math"
	"strings"
	"testing"
)

// simulate is a server that serves up to capacity ops/s, its p99 1 ms
// until 85% of capacity and growing steeply past it.
func simulate(capacity, target float64) Step {
	achieved := math.Min(target, capacity)
	p99 := 1000.0
	if u := target / capacity; u > 0.85 {
		p99 = 1000 * math.Exp(20*(u-0.85))
	}
	return Step{Target: target, Achieved: achieved, P99: p99, FirstHalfP99: p99, SecondHalfP99: p99}
}

// drive runs a plan's steps against the simulated server of capacity
// 10000 ops/s until the plan has none left (40 at most).
func drive(p Plan) []Step {
	var done []Step
	for i := 0; i < 40; i++ {
		target, kind, extend, more := p.Next(done)
		if !more {
			break
		}
		s := simulate(10000, target)
		s.Index, s.Kind, s.Extended = len(done)+1, kind, extend
		done = append(done, s)
	}
	return done
}

// The plan's steps, driven against a simulated server, run the fractions,
// bisect to 2% of the saturation throughput and confirm: the knee is where
// the SLO (twice the lowest step's p99) breaks, within the resolution.
func TestPlanFindsTheKnee(t *testing.T) {
	p := Plan{Saturation: 10000, Fractions: DefaultFractions}
	done := drive(p)
	if n := len(done); n > p.MaxSteps() || done[n-1].Kind != KindConfirm {
		t.Fatalf("%d steps (bound %d), last %+v", n, p.MaxSteps(), done[len(done)-1])
	}
	k := KneeOf(done, p.SLO(done))
	// 1000·e^(20(u−0.85)) = 2000 at u = 0.85 + ln 2 / 20 ≈ 0.8847.
	want := 10000 * (0.85 + math.Ln2/20)
	if k == nil || k.Target > want || want-k.Target > DefaultResolution*10000 || !k.Confirmed || k.Above == nil || k.Below == nil {
		t.Fatalf("knee %+v, want within 2%% below %.0f", k, want)
	}
}

// A coarser resolution stops the bisection sooner: against the same
// simulated server, 10% runs fewer steps than the default 2%, within its
// bound, and its knee is still below the SLO's break by no more than 10%.
func TestCoarserResolutionRunsFewerSteps(t *testing.T) {
	fine := drive(Plan{Saturation: 10000, Fractions: []float64{20, 100}})
	p := Plan{Saturation: 10000, Fractions: []float64{20, 100}, Resolution: 0.10}
	coarse := drive(p)
	k := KneeOf(coarse, p.SLO(coarse))
	if len(coarse) >= len(fine) || len(coarse) > p.MaxSteps() {
		t.Errorf("%d steps at 10%% (bound %d), %d at 2%%", len(coarse), p.MaxSteps(), len(fine))
	}
	want := 10000 * (0.85 + math.Ln2/20)
	if k == nil || k.Target > want || want-k.Target > 0.10*10000 {
		t.Errorf("knee %+v, want within 10%% below %.0f", k, want)
	}
	if p.MaxSteps() >= (Plan{Fractions: p.Fractions}).MaxSteps() {
		t.Errorf("bound %d at 10%%, not below the default's %d", p.MaxSteps(), Plan{Fractions: p.Fractions}.MaxSteps())
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if err := (Plan{Fractions: []float64{50}, Resolution: bad}).Check(); err == nil || !strings.HasPrefix(err.Error(), "sweep_resolution") {
			t.Errorf("resolution %g: %v", bad, err)
		}
	}
}

// A step whose p99 moved between its halves is run again once, extended,
// and the extended one stands for it.
func TestUnstableStepIsExtendedOnce(t *testing.T) {
	p := Plan{Saturation: 1000, Fractions: []float64{50, 100}}
	s := Step{Index: 1, Kind: KindFraction, Target: 500, Achieved: 500, P99: 900, FirstHalfP99: 800, SecondHalfP99: 1000}
	target, kind, extend, more := p.Next([]Step{s})
	if !more || !extend || target != 500 || kind != KindFraction {
		t.Fatalf("next after an unstable step: %g %s %v %v", target, kind, extend, more)
	}
	ext := s
	ext.Index, ext.Extended, ext.P99 = 2, true, 700
	if target, _, extend, _ := p.Next([]Step{s, ext}); extend || target != 1000 {
		t.Errorf("after the extension: %g extend=%v", target, extend)
	}
	if f := final([]Step{s, ext}); len(f) != 1 || f[0].P99 != 700 {
		t.Errorf("the extended step does not stand for the first: %+v", f)
	}
}

func TestStepRules(t *testing.T) {
	ok := Step{Target: 1000, Achieved: 995, Late: 0.0005, P99: 100}
	if !ok.Counts() || !ok.Good(200) {
		t.Error("positive control")
	}
	for name, s := range map[string]Step{
		"behind its target": {Target: 1000, Achieved: 970, P99: 100},
		"late starts":       {Target: 1000, Achieved: 1000, Late: 0.002, P99: 100},
	} {
		if s.Counts() || s.Good(200) {
			t.Errorf("%s counted", name)
		}
	}
	if (Step{Target: 1000, Achieved: 1000, P99: 300}).Good(200) {
		t.Error("a step past the SLO is good")
	}
	for _, bad := range []Plan{{Fractions: []float64{10, 0}}, {Fractions: nil}, {Fractions: []float64{10}, SLOP99: -1}} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := (Plan{Fractions: []float64{10, -5}}).Check(); err == nil || !strings.Contains(err.Error(), "sweep_fractions: -5") {
		t.Errorf("error names neither setting nor value: %v", err)
	}
}

// A step an agent ended early (sysbench's full event queue) neither counts
// nor is good, however its figures look: the bisection treats it as the
// first step past the knee.
func TestStoppedStepIsNotGood(t *testing.T) {
	s := simulate(10000, 5000)
	if !s.Counts() || !s.Good(2000) {
		t.Fatalf("control: %+v should count and be good", s)
	}
	s.Stopped = "client-1: the event queue is full"
	if s.Counts() || s.Good(2000) {
		t.Errorf("a stopped step counts (%v) or is good (%v)", s.Counts(), s.Good(2000))
	}
	steps := []Step{simulate(10000, 1000), simulate(10000, 3000), s}
	steps[0].Index, steps[1].Index, steps[2].Index = 1, 2, 3
	for i := range steps {
		steps[i].Kind = KindFraction
	}
	k := KneeOf(steps, 2000)
	if k == nil || k.Step != 2 || k.Above == nil || *k.Above != 3 {
		t.Errorf("knee %+v: want step 2 with the stopped step 3 above it", k)
	}
}

// When the lowest step was extended, the SLO is twice the extended run's
// p99, the one that stands, not the unstable first run's.
func TestSLOTakesTheExtendedLowestStep(t *testing.T) {
	done := []Step{
		{Index: 1, Kind: KindFraction, Target: 280, Achieved: 280, P99: 6000},
		{Index: 2, Kind: KindFraction, Target: 280, Achieved: 281, P99: 16500, Extended: true},
		{Index: 3, Kind: KindFraction, Target: 420, Achieved: 420, P99: 3000},
	}
	if got := (Plan{}).SLO(done); got != 33000 {
		t.Errorf("SLO %v µs, want 33000 (twice the extended step's p99)", got)
	}
	if got := (Plan{}).SLO(done[:1]); got != 12000 {
		t.Errorf("SLO of the first run alone %v µs, want 12000", got)
	}
	if got := (Plan{SLOP99: 5000}).SLO(done); got != 5000 {
		t.Errorf("a given SLO: %v, want 5000", got)
	}
}
