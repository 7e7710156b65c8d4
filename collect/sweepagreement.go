package collect

import (
	"fmt"
	"math"
	"slices"

	"github.com/ybbench/ybbench/collect/sweep"
)

// SweepAgreementGoal is how far apart two sweeps of one cluster may find
// their knees and still be said to agree: the 3%.
const SweepAgreementGoal = 0.03

// SweepAgreement is how far apart the knees of a workload's sweeps lie,
// one sweep after each repetition's run, on one cluster. A knee is only
// worth planning with when a second sweep finds it again; where the
// machine's own noise is larger than the goal, the figures beside it say
// by how much: how far the p99 of one rate moved between two
// measurements of it within each sweep (which places each knee only
// within a range of rates), and how far the repetitions' run phases
// moved (the saturation each sweep takes its fractions of).
type SweepAgreement struct {
	// Knees are the repetitions' knees (achieved ops/s), in the order run;
	// 0 for a sweep that found none.
	Knees []float64 `json:"knees_ops_per_sec"`
	// Apart is (highest − lowest) ÷ lowest of the knees, when every sweep
	// found one; Goal the bound it is held to, WithinGoal whether it is.
	Apart      float64 `json:"apart,omitempty"`
	Goal       float64 `json:"goal"`
	WithinGoal bool    `json:"within_goal"`
	// Noise is each sweep's p99 repeat noise (sweep.RepeatNoise) and
	// Ranges the rates each sweep's knee could lie in given it
	// (sweep.KneeRange); RunApart is (highest − lowest) ÷ lowest of the
	// repetitions' run-phase throughputs. WithinNoise says whether the
	// ranges meet once widened by RunApart (the highest Low at most the
	// lowest High × (1 + RunApart)): the knees differ by no more than each
	// sweep's own noise and the cluster's drift between the runs explain.
	Noise       []float64     `json:"p99_repeat_noise,omitempty"`
	Ranges      []sweep.Range `json:"knee_ranges,omitempty"`
	RunApart    float64       `json:"run_apart,omitempty"`
	WithinNoise bool          `json:"within_noise"`
	// Problem says why there is no Apart: a sweep that found no knee, or
	// was not run.
	Problem string `json:"problem,omitempty"`
}

// sweepAgreementOf is the agreement of the repetitions' sweeps (nil when
// fewer than two repetitions were swept).
func sweepAgreementOf(reps []Repetition) *SweepAgreement {
	a := &SweepAgreement{Goal: SweepAgreementGoal}
	var found []*SweepResult
	swept := 0
	for _, r := range reps {
		if r.Sweep == nil {
			a.Knees = append(a.Knees, 0)
			if a.Problem == "" {
				a.Problem = fmt.Sprintf("r%d was not swept", r.Index)
			}
			continue
		}
		swept++
		if r.Sweep.Knee == nil {
			a.Knees = append(a.Knees, 0)
			if a.Problem == "" {
				a.Problem = fmt.Sprintf("r%d's sweep found no knee", r.Index)
			}
			continue
		}
		a.Knees = append(a.Knees, r.Sweep.MaxSustainable)
		found = append(found, r.Sweep)
	}
	if swept < 2 {
		return nil
	}
	if a.Problem != "" {
		return a
	}
	var runs []float64
	lows, highs := 0.0, math.Inf(1)
	for i, sw := range found {
		runs = append(runs, sw.Saturation)
		r := sw.KneeRange
		if r == nil { // a result written before knee ranges
			a.Problem = fmt.Sprintf("r%d's sweep has no knee range (written by an older ybbench: collect again)", i+1)
			return a
		}
		a.Noise, a.Ranges = append(a.Noise, sw.P99RepeatNoise), append(a.Ranges, *r)
		lows, highs = max(lows, r.Low), min(highs, r.High)
	}
	a.Apart, a.RunApart = apart(a.Knees), apart(runs)
	a.WithinGoal = a.Apart <= a.Goal
	a.WithinNoise = lows <= highs*(1+a.RunApart)
	return a
}

// apart is (highest − lowest) ÷ lowest of vs, all above 0.
func apart(vs []float64) float64 {
	lo, hi := slices.Min(vs), slices.Max(vs)
	if lo <= 0 {
		return 0
	}
	return (hi - lo) / lo
}

// Text is the agreement as the reports say it.
func (a *SweepAgreement) Text() string {
	knees := ""
	for i, k := range a.Knees {
		if i > 0 {
			knees += ", "
		}
		knees += fmt.Sprintf("r%d %s", i+1, num(k))
	}
	if a.Problem != "" {
		return fmt.Sprintf("Knees of the %d sweeps of this cluster (ops/s): %s; no agreement to give: %s.", len(a.Knees), knees, a.Problem)
	}
	verdict := fmt.Sprintf("within the %g%% goal", 100*a.Goal)
	if !a.WithinGoal {
		verdict = fmt.Sprintf("over the %g%% goal, ", 100*a.Goal)
		if a.WithinNoise {
			verdict += "within this cluster's own noise"
		} else {
			verdict += "and beyond this cluster's own noise"
		}
	}
	var noise, ranges, unplaced string
	for i, r := range a.Ranges {
		if i > 0 {
			noise, ranges = noise+", ", ranges+", "
		}
		if i < len(a.Noise) {
			noise += fmt.Sprintf("r%d %.0f%%", i+1, 100*a.Noise[i])
		}
		ranges += fmt.Sprintf("r%d %s–%s", i+1, num(r.Low), num(r.High))
		if r.Low == 0 {
			unplaced += fmt.Sprintf(" r%d's noise left its SLO no room: that sweep could not place its knee.", i+1)
		}
	}
	return fmt.Sprintf("Knees of the %d sweeps of this cluster (ops/s): %s: %.1f%% apart, %s. The p99 of one rate moved between two measurements of it by up to %s, which places each knee only within a range of rates (%s ops/s); the saturations the sweeps took their steps from lie %.1f%% apart. The knees agree within noise when the ranges meet, widened by that distance.%s",
		len(a.Knees), knees, 100*a.Apart, verdict, noise, ranges, 100*a.RunApart, unplaced)
}
