package collect

import (
	"fmt"
	"slices"
)

// SweepAgreementGoal is how far apart two sweeps of one cluster may find
// their knees and still be said to agree: the 3%.
const SweepAgreementGoal = 0.03

// SweepAgreement is how far apart the knees of a workload's sweeps lie,
// one sweep after each repetition's run, on one cluster. A knee is only
// worth planning with when a second sweep finds it again; where the
// machine's own noise is larger than the goal, the figures beside it say
// by how much: how far the repetitions' run phases moved (the saturation
// each sweep takes its fractions of) and how closely the bisection knows
// each knee.
type SweepAgreement struct {
	// Knees are the repetitions' knees (achieved ops/s), in the order run;
	// 0 for a sweep that found none.
	Knees []float64 `json:"knees_ops_per_sec"`
	// Apart is (highest − lowest) ÷ lowest of the knees, when every sweep
	// found one; Goal the bound it is held to, WithinGoal whether it is.
	Apart      float64 `json:"apart,omitempty"`
	Goal       float64 `json:"goal"`
	WithinGoal bool    `json:"within_goal"`
	// RunApart is the same ratio of the repetitions' run-phase
	// throughputs; Bracket the widest of the sweeps' final brackets (from
	// the knee's target to the step above it that was not good; the
	// bisection's resolution of the saturation when none was) as a share
	// of its knee. WithinNoise says whether Apart is at most their
	// sum: the knees differ by no more than the saturations they were
	// found from and the precision they were found to.
	RunApart    float64 `json:"run_apart,omitempty"`
	Bracket     float64 `json:"bracket,omitempty"`
	WithinNoise bool    `json:"within_noise"`
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
	for _, sw := range found {
		runs = append(runs, sw.Saturation)
		a.Bracket = max(a.Bracket, bracketOf(sw))
	}
	a.Apart, a.RunApart = apart(a.Knees), apart(runs)
	a.WithinGoal = a.Apart <= a.Goal
	a.WithinNoise = a.Apart <= a.RunApart+a.Bracket
	return a
}

// bracketOf is how closely a sweep knows its knee, as a share of it: the
// distance from the knee's target to the step above it that was not good,
// or, when none broke, the bisection's resolution of the saturation.
func bracketOf(sw *SweepResult) float64 {
	k := sw.Knee
	if k == nil || sw.MaxSustainable <= 0 {
		return 0
	}
	width := sw.Resolution * sw.Saturation
	if k.Above != nil {
		for _, s := range sw.Steps {
			if s.Index == *k.Above {
				width = s.Target - k.Target
			}
		}
	}
	return width / sw.MaxSustainable
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
	return fmt.Sprintf("Knees of the %d sweeps of this cluster (ops/s): %s: %.1f%% apart, %s (the saturations they took their steps from %.1f%% apart; each knee bracketed to %.1f%% of it by the step above).",
		len(a.Knees), knees, 100*a.Apart, verdict, 100*a.RunApart, 100*a.Bracket)
}
