package pipeline

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect/sweep"
	"github.com/ybbench/ybbench/profiles"
)

// sweepPlan is the spec's sweep settings as the plan takes them, without
// the saturation throughput the run measures.
func (s *Spec) sweepPlan() (sweep.Plan, error) {
	p := sweep.Plan{Fractions: sweep.DefaultFractions, SLOP99: float64(s.SLOP99.Microseconds())}
	if len(s.SweepFractions) > 0 {
		p.Fractions = nil
		for _, f := range s.SweepFractions {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return p, fmt.Errorf("sweep_fractions: %q is not a number", f)
			}
			p.Fractions = append(p.Fractions, v)
		}
	}
	if r := strings.TrimSpace(s.SweepResolution); r != "" {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v <= 0 {
			return p, fmt.Errorf("sweep_resolution: %q is not a number above 0 (percent of the run's throughput)", r)
		}
		p.Resolution = v / 100
	}
	return p, p.Check()
}

// checkSweep refuses a sweep that cannot be run, before anything is made,
// naming the setting.
func (s *Spec) checkSweep(p *profiles.Profile) []error {
	if !s.Sweep {
		var errs []error
		names := []string{"sweep_fractions", "sweep_resolution", "slo_p99", "sweep_step", "sweep_warmup"}
		if p.Family != "ycsb" {
			// Only YCSB runs a paced phase of its own (a target in
			// agent_properties); the other families are paced in sweep
			// steps alone.
			names = append(names, "late_after")
		}
		for _, name := range names {
			if s.given(name) {
				errs = append(errs, fmt.Errorf("%s: given without sweep: it would change nothing", s.where(name)))
			}
		}
		return errs
	}
	var errs []error
	if _, err := s.sweepPlan(); err != nil {
		name := "sweep_fractions"
		for _, n := range []string{"slo_p99", "sweep_resolution"} {
			if strings.HasPrefix(err.Error(), n) {
				name = n
			}
		}
		errs = append(errs, fmt.Errorf("%s: %s", s.where(name), strings.TrimPrefix(err.Error(), name+": ")))
	}
	return errs
}

// defaultSweepStep bounds a sweep step's measured time when sweep_step is
// not given: at most 32 steps of it (MaxSteps for the default fractions
// and resolution), half of them extended, keep a workload's sweep under
// 45 minutes on the published hardware, and at the lowest step (a tenth
// of the published 30,000 ops/s or so) it still measures over 100,000
// operations, a p99 from a thousand of them.
const defaultSweepStep = 45 * time.Second

// sweepStepTime is a sweep step's measured time: sweep_step, else the
// run's duration up to defaultSweepStep.
func (s *Resolved) sweepStepTime() time.Duration {
	if s.SweepStep > 0 {
		return s.SweepStep
	}
	if d := s.Params.Duration; d > 0 && d < defaultSweepStep {
		return d
	}
	return defaultSweepStep
}

// sweepPlanBound is a sweep's place in the plan: its stage line and the
// most time its steps take.
type sweepPlanBound struct {
	stage   PlanStage
	seconds float64
}

// sweepBound is what plan says of a sweep before anything is made: at
// most MaxSteps steps per workload (per repetition of it: each
// repetition's run is followed by a sweep of its own), half of them (at
// most) extensions: each step the run's warm-up and duration (an
// extension's twice as long) with the agents' start delay on clients
// clients (none on one, unless start_delay was given) and a few seconds to
// start and fetch them.
func sweepBound(s *Resolved, clients int) (sweepPlanBound, bool) {
	if !s.Sweep {
		return sweepPlanBound{}, false
	}
	plan, err := s.sweepPlan()
	if err != nil {
		return sweepPlanBound{}, false
	}
	steps := plan.MaxSteps()
	step := s.sweepStepTime()
	per := s.SweepWarmup + step + s.startDelayFor(clients) + 3*time.Second
	extended := per + step
	sweeps, each := len(s.Workloads)*max(s.Repeat, 1), "per workload"
	if s.Repeat > 1 {
		each = "per repetition of a workload, each sweeping from its own run"
	}
	total := time.Duration(sweeps*steps/2) * (per + extended)
	what := fmt.Sprintf("after each workload's run: a throughput–latency sweep, open-model steps at %v%% of the run's throughput, bisected to %g%% of it, then the knee repeated: at most %d steps of %v (a %v warm-up, %v measured, the agents' start; of them at most %d extended, %v each) %s (%v in all, at most)",
		plan.Fractions, 100*plan.Bisection(), steps, per, s.SweepWarmup, step, steps/2, extended, each, total)
	return sweepPlanBound{stage: PlanStage{Stage: "sweep", What: what}, seconds: total.Seconds()}, true
}
