package collect

import "fmt"

// MeasuredPhase is the phase a workload's figures are taken from: the one
// the published figures are compared with, and gates check.
const MeasuredPhase = "run"

// Metrics are the figures of a measured phase a gate can take, compare
// lists and a repeated workload's spread gives: WorkloadMetrics of the
// workload as a whole, all of them of each operation.
var (
	Metrics         = []string{"throughput", "error_rate", "mean", "p50", "p95", "p99", "p99.9", "max"}
	WorkloadMetrics = []string{"throughput", "error_rate"}
)

// MetricMaxSustainable is a swept workload's knee: the highest throughput
// it sustained within the sweep's SLO (collect/sweep), in ops/s; a
// repeated workload's spread gives it over the repetitions' sweeps.
const MetricMaxSustainable = "max_sustainable_throughput"

// Units of the figures.
const (
	UnitRate    = "ops/s"
	UnitLatency = "µs"
	UnitShare   = "fraction"
)

// MetricUnit is a metric's unit.
func MetricUnit(metric string) string {
	switch metric {
	case "throughput", MetricMaxSustainable:
		return UnitRate
	case "error_rate":
		return UnitShare
	}
	return UnitLatency
}

// PhaseFigure is a metric of a measured phase: of one operation, or, with
// operation "", of the workload as a whole (throughput, the workload's own
// as its family counts it, is given; the error rate is over every
// operation). The one definition of a figure: gates, compare and the
// spread of repetitions all take it from here. Its errors say what the
// phase lacks, to follow the workload's name ("measured no READ").
func PhaseFigure(throughput float64, p *PhaseResult, operation, metric string) (float64, error) {
	if operation == "" {
		switch metric {
		case "throughput":
			return throughput, nil
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
				return 0, fmt.Errorf("measured no operations")
			}
			return float64(errs) / float64(all), nil
		}
		return 0, fmt.Errorf("has no %s of the workload as a whole: %s needs an operation", metric, metric)
	}
	m := p.Find(operation)
	if m == nil || m.Count+m.Errors == 0 {
		return 0, fmt.Errorf("measured no %s", operation)
	}
	l := m.Latency
	switch metric {
	case "throughput":
		if p.WindowMS <= 0 {
			return 0, fmt.Errorf("has no measured window in its %s phase", p.Phase)
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
	return 0, fmt.Errorf("has no metric %q", metric)
}

// MeasuredOperations are the operations a measured phase measured, in its
// order (CLEANUP, the agents' own, is no workload's).
func MeasuredOperations(p *PhaseResult) []string {
	var out []string
	for _, m := range p.Measurements {
		if m.Name != "CLEANUP" && m.Count+m.Errors > 0 {
			out = append(out, m.Name)
		}
	}
	return out
}

// MeasuredPhaseOf is a workload's (or repetition's) measured phase among
// its phases; nil when it has none.
func MeasuredPhaseOf(phases []PhaseResult) *PhaseResult {
	for i := range phases {
		if phases[i].Phase == MeasuredPhase {
			return &phases[i]
		}
	}
	return nil
}

// FindSpread is a repeated workload's spread of one figure; nil when the
// workload has none for it (no repetitions, or no repetition measured it).
func (w *WorkloadResult) FindSpread(operation, metric string) *Spread {
	for i := range w.Spread {
		if w.Spread[i].Operation == operation && w.Spread[i].Metric == metric {
			return &w.Spread[i]
		}
	}
	return nil
}
