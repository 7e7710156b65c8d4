package verdict

import (
	"fmt"

	"github.com/ybbench/ybbench/collect"
)

// MeasuredPhase is the phase gates are checked on: the one the published
// figures are compared with.
const MeasuredPhase = "run"

// Units of the figures, as verdict.json states them.
const (
	unitRate    = "ops/s"
	unitLatency = "µs"
	unitShare   = "fraction"
)

// unitOf is a metric's unit.
func unitOf(metric string) string {
	switch metric {
	case "throughput":
		return unitRate
	case "error_rate":
		return unitShare
	}
	return unitLatency
}

// phaseOf is a workload's measured phase in a result, or why there is none
// to gate on.
func phaseOf(r *collect.Result, workload string) (*collect.WorkloadResult, *collect.PhaseResult, error) {
	for i := range r.Workloads {
		w := &r.Workloads[i]
		if w.Name != workload {
			continue
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
// family counts it; its error rate over every operation).
func measure(r *collect.Result, workload, operation, metric string) (float64, error) {
	w, p, err := phaseOf(r, workload)
	if err != nil {
		return 0, err
	}
	if operation == "" {
		switch metric {
		case "throughput":
			return w.Throughput, nil
		case "error_rate":
			var errs, all int64
			for _, m := range p.Measurements {
				if m.Name == "CLEANUP" {
					continue
				}
				errs += m.Errors
				all += m.Count + m.Errors
			}
			if all == 0 {
				return 0, fmt.Errorf("run %s: %s measured no operations", r.RunID, workload)
			}
			return float64(errs) / float64(all), nil
		}
		return 0, fmt.Errorf("%s needs an operation", metric)
	}
	m := p.Find(operation)
	if m == nil || m.Count+m.Errors == 0 {
		return 0, fmt.Errorf("run %s: %s measured no %s", r.RunID, workload, operation)
	}
	l := m.Latency
	switch metric {
	case "throughput":
		if p.WindowMS <= 0 {
			return 0, fmt.Errorf("run %s: %s's %s phase has no measured window", r.RunID, workload, MeasuredPhase)
		}
		return float64(m.Count) / (float64(p.WindowMS) / 1000), nil
	case "error_rate":
		return float64(m.Errors) / float64(m.Count+m.Errors), nil
	case "mean":
		return l.Mean, nil
	case "p50":
		return float64(l.P50), nil
	case "p95":
		return float64(l.P95), nil
	case "p99":
		return float64(l.P99), nil
	case "p99.9":
		return float64(l.P999), nil
	case "max":
		return float64(l.Max), nil
	}
	return 0, fmt.Errorf("unknown metric %q", metric)
}

// operations are the operations a workload's measured phase measured, in
// the result's order (CLEANUP, the agents' own, is no workload's).
func operations(r *collect.Result, workload string) []string {
	_, p, _ := phaseOf(r, workload)
	if p == nil {
		return nil
	}
	var out []string
	for _, m := range p.Measurements {
		if m.Name != "CLEANUP" && m.Count+m.Errors > 0 {
			out = append(out, m.Name)
		}
	}
	return out
}
