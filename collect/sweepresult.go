package collect

import (
	"github.com/ybbench/ybbench/collect/sweep"
)

// SweepResult is a workload's throughput–latency sweep: the saturation
// throughput its steps are fractions of, the SLO they were held to, every
// step, and the knee.
type SweepResult struct {
	Saturation float64   `json:"saturation_ops_per_sec"`
	Fractions  []float64 `json:"fractions"`
	// SLOP99 is the p99 bound (µs) the steps were held to; SLOGiven says
	// whether slo_p99 gave it (else twice the lowest step's p99).
	SLOP99   float64 `json:"slo_p99_us"`
	SLOGiven bool    `json:"slo_given"`
	// Resolution is the share of the saturation throughput the knee's
	// bracket was bisected to.
	Resolution float64      `json:"resolution"`
	Steps      []sweep.Step `json:"steps"`
	Knee       *sweep.Knee  `json:"knee,omitempty"`
	// MaxSustainable is the knee's achieved throughput, which gates read
	// as max_sustainable_throughput.
	MaxSustainable float64 `json:"max_sustainable_throughput,omitempty"`
	// P99RepeatNoise is how far the p99 of one rate moved between two
	// measurements of it in this sweep (sweep.RepeatNoise), and KneeRange
	// the rates the knee could lie in given that noise (sweep.KneeRange):
	// how well the sweep knows its knee, which a knee alone does not say.
	P99RepeatNoise float64      `json:"p99_repeat_noise"`
	KneeRange      *sweep.Range `json:"knee_range,omitempty"`
	// Complete is whether the plan had no step left to run.
	Complete bool     `json:"complete"`
	Problems []string `json:"problems,omitempty"`
}

// sweepOf reads the sweep of stem (a workload, or a repetition of it:
// repetition.Stem) from its run directory (nil when it was not swept).
func sweepOf(runDir, stem string, lc limitContext) *SweepResult {
	f, steps, err := sweepSteps(runDir, stem, &lc)
	if f == nil && err == nil {
		return nil
	}
	out := &SweepResult{Steps: []sweep.Step{}}
	if err != nil {
		out.Problems = append(out.Problems, err.Error())
	}
	if f == nil {
		return out
	}
	plan := f.Plan()
	out.Saturation, out.Fractions, out.SLOGiven, out.Resolution = f.Saturation, f.Fractions, f.SLOP99 > 0, plan.Bisection()
	out.Steps = append(out.Steps, steps...)
	out.SLOP99 = plan.SLO(steps)
	out.findKnee()
	_, _, _, more := plan.Next(steps)
	out.Complete = !more
	if !out.Complete {
		out.Problems = append(out.Problems, "the sweep was cut off before its last step: the knee is of the steps it ran")
	}
	return out
}

// findKnee finds the knee of the sweep's steps under its SLO, and how well
// the sweep knows it: its p99 repeat noise and the range of rates that
// leaves the knee in (none without a knee).
func (sw *SweepResult) findKnee() {
	sw.Knee = sweep.KneeOf(sw.Steps, sw.SLOP99)
	sw.P99RepeatNoise = sweep.RepeatNoise(sw.Steps)
	sw.MaxSustainable, sw.KneeRange = 0, nil
	if sw.Knee != nil {
		sw.MaxSustainable = sw.Knee.Achieved
		r := sweep.KneeRange(sw.Steps, sw.SLOP99, sw.P99RepeatNoise, sw.Resolution*sw.Saturation)
		sw.KneeRange = &r
	}
}
