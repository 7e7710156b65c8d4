package collect

import (
	"math"
	"slices"
)

// Median is the middle value of vs, the mean of the two middle ones when
// their count is even; 0 for none.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// SpreadOf is one figure over a workload's repetitions: the values as
// given (in the order run), their median, range and coefficient of
// variation (sample standard deviation over the mean; 0 for one value or
// a zero mean).
func SpreadOf(operation, metric string, values []float64) Spread {
	s := Spread{Operation: operation, Metric: metric, Unit: MetricUnit(metric), Values: slices.Clone(values),
		Median: Median(values)}
	if len(values) == 0 {
		return s
	}
	s.Min, s.Max = slices.Min(values), slices.Max(values)
	if len(values) < 2 {
		return s
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	mean := sum / float64(len(values))
	if mean == 0 {
		return s
	}
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	s.CV = math.Sqrt(ss/float64(len(values)-1)) / math.Abs(mean)
	return s
}

// medianRepetition is the index (into reps) of the median repetition by
// the measured phase's throughput: the lower of the two middle ones when
// their count is even, the earlier of equal ones. Repetitions without a
// measured phase are not candidates; when none has one, the first is
// taken.
func medianRepetition(reps []Repetition) int {
	var idx []int
	for i := range reps {
		if MeasuredPhaseOf(reps[i].Phases) != nil {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case reps[a].Throughput < reps[b].Throughput:
			return -1
		case reps[a].Throughput > reps[b].Throughput:
			return 1
		}
		return 0
	})
	return idx[(len(idx)-1)/2]
}

// spreadsOf is every figure a gate can take over a workload's
// repetitions: its throughput and error rate, its sweeps' knees when it
// was swept, then each operation's
// metrics (operations in the order first measured). A repetition whose
// measured phase did not complete gives none of its figures: they are not
// the workload's.
func spreadsOf(reps []Repetition) []Spread {
	type key struct{ op, metric string }
	var order []key
	values := map[key][]float64{}
	add := func(k key, v float64) {
		if _, ok := values[k]; !ok {
			order = append(order, k)
		}
		values[k] = append(values[k], v)
	}
	for _, m := range WorkloadMetrics {
		for i := range reps {
			p := MeasuredPhaseOf(reps[i].Phases)
			if p == nil || !p.Complete {
				continue
			}
			if v, err := PhaseFigure(reps[i].Throughput, p, "", m); err == nil {
				add(key{"", m}, v)
			}
		}
	}
	// Each repetition's own sweep gives its knee; one without a knee
	// gives none (a gate then refuses: verdict.measure).
	for i := range reps {
		if sw := reps[i].Sweep; sw != nil && sw.Knee != nil {
			add(key{"", MetricMaxSustainable}, sw.MaxSustainable)
		}
	}
	var ops []string
	for i := range reps {
		if p := MeasuredPhaseOf(reps[i].Phases); p != nil && p.Complete {
			for _, op := range MeasuredOperations(p) {
				if !slices.Contains(ops, op) {
					ops = append(ops, op)
				}
			}
		}
	}
	for _, op := range ops {
		for _, m := range Metrics {
			for i := range reps {
				p := MeasuredPhaseOf(reps[i].Phases)
				if p == nil || !p.Complete {
					continue
				}
				if v, err := PhaseFigure(reps[i].Throughput, p, op, m); err == nil {
					add(key{op, m}, v)
				}
			}
		}
	}
	var out []Spread
	for _, k := range order {
		out = append(out, SpreadOf(k.op, k.metric, values[k]))
	}
	return out
}
