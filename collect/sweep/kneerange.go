package sweep

import (
	"slices"
	"sort"
)

// RepeatNoise is how far the p99 of one offered rate moved between two
// measurements of it in one sweep: the largest (highest ÷ lowest − 1)
// over the rates measured more than once (a step and its extension, the
// knee and its confirmation), counting only steps that held their rate
// (a step behind its rate measured its own backlog, not the noise). 0
// when no rate was measured twice.
//
// A knee is where the p99 crosses the SLO; a p99 that moves by this much
// at one rate moves the knee with it, which is why two sweeps of one
// cluster are compared through it (Range), not through the knees alone.
func RepeatNoise(steps []Step) float64 {
	byTarget := map[float64][]float64{}
	for _, s := range steps {
		if s.Counts() && s.P99 > 0 {
			byTarget[s.Target] = append(byTarget[s.Target], s.P99)
		}
	}
	noise := 0.0
	for _, p99s := range byTarget {
		noise = max(noise, slices.Max(p99s)/slices.Min(p99s)-1)
	}
	return noise
}

// Range is the span of offered rates (ops/s) a sweep's knee could lie in
// given its own p99 noise: a p99 within a factor (1 + noise) of the SLO
// could have fallen either side of it in another measurement.
//
// Low is the highest rate at and below which every measurement held its
// rate with its p99 within the SLO even (1 + noise) times higher (0 when
// not even the lowest did: the noise is too large to place the knee
// above anything). High is the lowest rate above Low every measurement of
// which missed its rate, or the SLO even (1 + noise) times lower; when
// none did, the highest rate measured plus the bisection's resolution of
// the saturation, as far as the sweep can say the knee is known.
type Range struct {
	Low  float64 `json:"low_ops_per_sec"`
	High float64 `json:"high_ops_per_sec"`
}

// KneeRange is the range of a sweep's knee (see Range), from its steps,
// its SLO, its noise (RepeatNoise) and how far past its highest step the
// sweep's resolution reaches (resolution × saturation, ops/s).
func KneeRange(steps []Step, slo, noise, reach float64) Range {
	f := 1 + noise
	byTarget := map[float64][]Step{}
	var targets []float64
	for _, s := range steps {
		if s.Target <= 0 {
			continue
		}
		if _, ok := byTarget[s.Target]; !ok {
			targets = append(targets, s.Target)
		}
		byTarget[s.Target] = append(byTarget[s.Target], s)
	}
	sort.Float64s(targets)
	var r Range
	below := true // every rate so far was good in every measurement, noise allowed
	for _, t := range targets {
		allGood, allBad := true, true
		for _, s := range byTarget[t] {
			allGood = allGood && s.Good(slo/f)
			allBad = allBad && !s.Good(slo*f)
		}
		if below && allGood {
			r.Low = t
			continue
		}
		below = false
		if allBad && t > r.Low {
			r.High = t
			return r
		}
	}
	if n := len(targets); n > 0 {
		r.High = targets[n-1] + reach
	}
	return r
}
