// Package sweep is the throughput–latency sweep's arithmetic: which target
// rate the next step offers, when a step counts, and where the knee is.
// The orchestrator asks it for each next step from the steps done so far
// (so a resumed sweep picks up where its ledger stopped), and the
// collector draws the same curve and knee from the same steps.
package sweep

import (
	"fmt"
	"math"
	"sort"
)

// DefaultFractions are the open-model steps' targets, as percents of the
// saturation throughput.
var DefaultFractions = []float64{10, 25, 50, 70, 80, 90, 95, 100, 110}

// The rules a step is held to.
const (
	// Counts: achieved ÷ offered at least this, and late starts at most
	// MaxLate, or the step measured its own backlog.
	MinAchieved = 0.98
	MaxLate     = 0.001
	// Good (below the knee): achieved ÷ target at least this, and its p99
	// within the SLO.
	GoodAchieved = 0.99
	// DefaultResolution is where bisection stops unless the plan says:
	// when the bracket is this share of the saturation throughput.
	DefaultResolution = 0.02
	// Stable: the p99 of a step's second half within this share of its
	// first half's, or the step is extended once.
	Stability = 0.10
)

// Kinds of step.
const (
	KindFraction = "fraction"
	KindBisect   = "bisect"
	KindConfirm  = "confirm"
)

// Step is one open-model step as measured.
type Step struct {
	Index  int     `json:"index"`
	Kind   string  `json:"kind"`
	Target float64 `json:"target_ops_per_sec"`
	// Achieved is the step's measured throughput; Late the share of its
	// operations that started late; Errors its failed operations.
	Achieved float64 `json:"achieved_ops_per_sec"`
	Late     float64 `json:"late_share"`
	Errors   int64   `json:"errors"`
	// Latencies (µs, from the intended start: coordinated omission
	// corrected).
	P50  float64 `json:"p50_us"`
	P95  float64 `json:"p95_us"`
	P99  float64 `json:"p99_us"`
	P999 float64 `json:"p99_9_us"`
	// FirstHalfP99 and SecondHalfP99 are the p99 of each half of the
	// step's ticks; Extended marks a step run again, twice as long, for
	// its p99 was not stable.
	FirstHalfP99  float64 `json:"first_half_p99_us"`
	SecondHalfP99 float64 `json:"second_half_p99_us"`
	Extended      bool    `json:"extended,omitempty"`
	// Stopped says why an agent ended the step before its time (sysbench's
	// event queue filled: the step offered more than the database took);
	// such a step neither counts nor is good.
	Stopped string `json:"stopped,omitempty"`
	// LimitedBy is what limited the step (collect/bottleneck).
	LimitedBy string `json:"limited_by,omitempty"`
}

// Counts reports whether a step measured the rate it was offered.
func (s Step) Counts() bool {
	return s.Stopped == "" && s.Target > 0 && s.Achieved/s.Target >= MinAchieved && s.Late <= MaxLate
}

// Good reports whether a step is below the knee under the SLO.
func (s Step) Good(sloP99 float64) bool {
	return s.Stopped == "" && s.Target > 0 && s.Achieved/s.Target >= GoodAchieved && s.Late <= MaxLate && s.P99 <= sloP99
}

// Stable reports whether a step's p99 held over its two halves.
func (s Step) Stable() bool {
	if s.FirstHalfP99 <= 0 {
		return true
	}
	return math.Abs(s.SecondHalfP99-s.FirstHalfP99)/s.FirstHalfP99 <= Stability
}

// Plan is a sweep's settings: the saturation throughput its steps are
// fractions of, the fractions, the SLO on p99 (0: twice the lowest
// step's p99), and the share of the saturation throughput the bisection
// narrows the knee's bracket to (0: DefaultResolution). A coarser
// resolution runs fewer steps, for a knee known less closely.
type Plan struct {
	Saturation float64
	Fractions  []float64
	SLOP99     float64
	Resolution float64
}

// Bisection is the share of the saturation throughput the bracket is
// bisected to.
func (p Plan) Bisection() float64 {
	if p.Resolution > 0 {
		return p.Resolution
	}
	return DefaultResolution
}

// Check refuses a plan that cannot be run, naming the setting.
func (p Plan) Check() error {
	if len(p.Fractions) == 0 {
		return fmt.Errorf("sweep_fractions: none given")
	}
	for _, f := range p.Fractions {
		if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("sweep_fractions: %g: a step's share of the saturation throughput must be above 0", f)
		}
	}
	if p.SLOP99 < 0 {
		return fmt.Errorf("slo_p99: must not be negative")
	}
	if p.Resolution < 0 || p.Resolution > 1 || math.IsNaN(p.Resolution) {
		return fmt.Errorf("sweep_resolution: %g%%: a share of the saturation throughput above 0 and at most 100%%", 100*p.Resolution)
	}
	return nil
}

// MaxSteps bounds how many steps a sweep runs after its saturation step:
// the fractions, the bisection down to its resolution, the confirmation, and
// each of those extended once at most.
func (p Plan) MaxSteps() int {
	hi := 0.0
	for _, f := range p.Fractions {
		hi = math.Max(hi, f)
	}
	r := p.Bisection()
	bisect := int(math.Ceil(math.Log2(math.Max(hi/100, r) / r)))
	return 2 * (len(p.Fractions) + bisect + 1)
}

// SLO is the p99 bound the steps are held to: the plan's, or twice the
// lowest step's p99 once it ran (0 before). An extended step's p99 is the
// one that stands, as everywhere else (final): the first run's was not
// stable, which is why it was extended.
func (p Plan) SLO(done []Step) float64 {
	if p.SLOP99 > 0 {
		return p.SLOP99
	}
	done = final(done)
	low := -1
	for i, s := range done {
		if s.Kind == KindFraction && (low < 0 || s.Target < done[low].Target) {
			low = i
		}
	}
	if low < 0 {
		return 0
	}
	return 2 * done[low].P99
}

// Next is the step after done: its target and kind, and whether there is
// one. A step whose p99 was not stable is run again, extended, once.
func (p Plan) Next(done []Step) (target float64, kind string, extend, more bool) {
	if n := len(done); n > 0 && !done[n-1].Stable() && !done[n-1].Extended {
		return done[n-1].Target, done[n-1].Kind, true, true
	}
	steps := final(done)
	fractions := 0
	for _, s := range steps {
		if s.Kind == KindFraction {
			fractions++
		}
	}
	if fractions < len(p.Fractions) {
		return p.Saturation * sorted(p.Fractions)[fractions] / 100, KindFraction, false, true
	}
	for _, s := range steps {
		if s.Kind == KindConfirm {
			return 0, "", false, false
		}
	}
	slo := p.SLO(steps)
	lo, hi := bracket(steps, slo)
	if lo == nil {
		return 0, "", false, false // not even the lowest step was good: no knee to confirm
	}
	if hi != nil && hi.Target-lo.Target > p.Bisection()*p.Saturation {
		return (lo.Target + hi.Target) / 2, KindBisect, false, true
	}
	return lo.Target, KindConfirm, false, true
}

// final are the steps that stand: an extended step replaces the one it
// extends.
func final(done []Step) []Step {
	var out []Step
	for _, s := range done {
		if s.Extended && len(out) > 0 && out[len(out)-1].Target == s.Target {
			out[len(out)-1] = s
			continue
		}
		out = append(out, s)
	}
	return out
}

// bracket is the highest good step and the lowest step above it that is
// not good (nil when there is none), ignoring confirmations.
func bracket(steps []Step, slo float64) (lo, hi *Step) {
	byTarget := append([]Step(nil), steps...)
	sort.SliceStable(byTarget, func(i, j int) bool { return byTarget[i].Target < byTarget[j].Target })
	for i := range byTarget {
		s := &byTarget[i]
		if s.Kind == KindConfirm {
			continue
		}
		if s.Good(slo) {
			if hi == nil {
				lo = s
			}
			continue
		}
		if lo != nil && hi == nil {
			hi = s
		}
		if lo == nil {
			return nil, nil
		}
	}
	return lo, hi
}

func sorted(f []float64) []float64 {
	out := append([]float64(nil), f...)
	sort.Float64s(out)
	return out
}
