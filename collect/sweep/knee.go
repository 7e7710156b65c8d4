package sweep

import "sort"

// Knee is the highest step whose achieved throughput is at least
// GoodAchieved of its target and whose p99 is within the SLO, with the
// steps just below and above it.
type Knee struct {
	Target   float64 `json:"target_ops_per_sec"`
	Achieved float64 `json:"achieved_ops_per_sec"`
	P99      float64 `json:"p99_us"`
	Step     int     `json:"step"`
	Below    *int    `json:"below_step,omitempty"`
	Above    *int    `json:"above_step,omitempty"`
	// Confirmed says whether the final step, which repeats the knee's
	// target, was good too.
	Confirmed bool `json:"confirmed"`
}

// KneeOf finds the knee of a sweep's steps (nil when no step was good).
// Steps above the first that is not good do not count, even when good:
// past an overload the database may recover, but the knee is where it
// first broke.
func KneeOf(steps []Step, slo float64) *Knee {
	all := final(steps)
	lo, hi := bracket(all, slo)
	if lo == nil {
		return nil
	}
	k := &Knee{Target: lo.Target, Achieved: lo.Achieved, P99: lo.P99, Step: lo.Index}
	byTarget := append([]Step(nil), all...)
	sort.SliceStable(byTarget, func(i, j int) bool { return byTarget[i].Target < byTarget[j].Target })
	for i := range byTarget {
		s := byTarget[i]
		if s.Kind == KindConfirm {
			if s.Target == lo.Target {
				k.Confirmed = s.Good(slo)
			}
			continue
		}
		if s.Target < lo.Target {
			idx := s.Index
			k.Below = &idx
		}
	}
	if hi != nil {
		idx := hi.Index
		k.Above = &idx
	}
	return k
}
