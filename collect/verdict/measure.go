package verdict

import (
	"fmt"

	"github.com/ybbench/ybbench/collect"
)

// MeasuredPhase is the phase gates are checked on: the one the published
// figures are compared with.
const MeasuredPhase = collect.MeasuredPhase

// unitOf is a metric's unit.
func unitOf(metric string) string {
	if metric == MetricMaxSustainable {
		return collect.UnitRate
	}
	return collect.MetricUnit(metric)
}

// phaseOf is a workload's measured phase in a result, or why there is none
// to gate on.
func phaseOf(r *collect.Result, workload string) (*collect.WorkloadResult, *collect.PhaseResult, error) {
	for i := range r.Workloads {
		w := &r.Workloads[i]
		if w.Name != workload {
			continue
		}
		// A repeated workload is complete when every repetition's
		// measured phase is: the median of fewer is not what was asked.
		for _, rep := range w.Repetitions {
			if p := collect.MeasuredPhaseOf(rep.Phases); p == nil || !p.Complete {
				return w, collect.MeasuredPhaseOf(w.Phases), fmt.Errorf("run %s: %s's %s phase of repetition r%d did not complete", r.RunID, workload, MeasuredPhase, rep.Index)
			}
		}
		for j := range w.Phases {
			if w.Phases[j].Phase == MeasuredPhase {
				p := &w.Phases[j]
				if !p.Complete {
					return w, p, fmt.Errorf("run %s: %s's %s phase did not complete", r.RunID, workload, MeasuredPhase)
				}
				return w, p, nil
			}
		}
		return w, nil, fmt.Errorf("run %s: %s has no %s phase", r.RunID, workload, MeasuredPhase)
	}
	return nil, nil, fmt.Errorf("run %s did not run %s", r.RunID, workload)
}

// measure is a metric of a workload's measured phase in a result: of one
// operation, or, with operation "", of the workload (its throughput as its
// family counts it; its error rate over every operation). A repeated
// workload's figure is its median over the repetitions (its Spread), and
// n says over how many; n is 0 for a workload run once.
func measure(r *collect.Result, workload, operation, metric string) (v float64, n int, err error) {
	w, p, err := phaseOf(r, workload)
	if err != nil {
		return 0, 0, err
	}
	if metric == MetricMaxSustainable {
		if w.Sweep == nil {
			return 0, 0, fmt.Errorf("run %s: %s was not swept (run --sweep)", r.RunID, workload)
		}
		// Repeated: the median of the repetitions' knees, every sweep
		// having found one (a median over the sweeps that did would
		// hide the one that broke before its lowest step).
		for _, rep := range w.Repetitions {
			if rep.Sweep == nil || rep.Sweep.Knee == nil {
				return 0, 0, fmt.Errorf("run %s: %s r%d's sweep found no knee", r.RunID, workload, rep.Index)
			}
			if err := placed(rep.Sweep); err != nil {
				return 0, 0, fmt.Errorf("run %s: %s r%d's sweep %w", r.RunID, workload, rep.Index, err)
			}
		}
		if sp := w.FindSpread("", metric); len(w.Repetitions) > 0 && sp != nil {
			return sp.Median, len(sp.Values), nil
		}
		if w.Sweep.Knee == nil {
			return 0, 0, fmt.Errorf("run %s: %s's sweep found no knee", r.RunID, workload)
		}
		if err := placed(w.Sweep); err != nil {
			return 0, 0, fmt.Errorf("run %s: %s's sweep %w", r.RunID, workload, err)
		}
		return w.Sweep.MaxSustainable, 0, nil
	}
	if len(w.Repetitions) > 0 {
		if sp := w.FindSpread(operation, metric); sp != nil && len(sp.Values) > 0 {
			return sp.Median, len(sp.Values), nil
		}
	}
	v, err = collect.PhaseFigure(w.Throughput, p, operation, metric)
	if err != nil {
		return 0, 0, fmt.Errorf("run %s: %s %w", r.RunID, workload, err)
	}
	return v, 0, nil
}

// placed refuses a knee its sweep could not place: the p99 of one rate
// moved so far between two measurements of it that the SLO had no room
// for the noise (its knee range starts at 0). Such a knee is where the
// noise happened to fall, and a gate on it would pass or fail by chance.
// A result written before knee ranges has none, and is taken as it is.
func placed(sw *collect.SweepResult) error {
	if r := sw.KneeRange; r != nil && r.Low == 0 {
		return fmt.Errorf("could not place its knee: the p99 of one rate moved %.0f%% between two measurements of it, which leaves the SLO no room",
			100*sw.P99RepeatNoise)
	}
	return nil
}

// operations are the operations a workload's measured phase measured, in
// the result's order (CLEANUP, the agents' own, is no workload's).
func operations(r *collect.Result, workload string) []string {
	_, p, _ := phaseOf(r, workload)
	if p == nil {
		return nil
	}
	return collect.MeasuredOperations(p)
}
