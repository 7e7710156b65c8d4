package sweep

import (
	"math"
	"testing"
)

// at is a step at target ops/s that held its rate, with the given p99 (µs).
func at(target, p99 float64) Step {
	return Step{Kind: KindBisect, Target: target, Achieved: target, P99: p99}
}

// behind is a step at target ops/s that fell behind its rate.
func behind(target, p99 float64) Step {
	return Step{Kind: KindFraction, Target: target, Achieved: 0.9 * target, P99: p99}
}

// The repeat noise is the widest move of one rate's p99 between its
// measurements, among steps that held their rate: a step behind its rate
// is no measurement of noise, and a rate measured once gives none.
func TestRepeatNoise(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps []Step
		want  float64
	}{
		{"once each", []Step{at(100, 1000), at(200, 3000)}, 0},
		// 1500/1000 − 1 at 200; 2200/2000 − 1 at 300.
		{"two rates twice", []Step{at(100, 1000), at(200, 1000), at(200, 1500), at(300, 2000), at(300, 2200)}, 0.5},
		// The step behind its rate at 400 is left out.
		{"behind", []Step{at(400, 2000), behind(400, 90000), at(400, 2100)}, 0.05},
	} {
		if got := RepeatNoise(c.steps); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A knee's range: from the highest rate every measurement of which (and
// of every rate below) held the SLO with the noise to spare, to the
// lowest rate above that every measurement of which missed its rate or
// the SLO by more than the noise. A noise the SLO has no room for places
// the knee above nothing; a sweep that never clearly broke reaches its
// resolution past its highest rate.
func TestKneeRange(t *testing.T) {
	const slo = 2000
	for _, c := range []struct {
		name         string
		steps        []Step
		noise, reach float64
		want         Range
	}{
		// No noise: the range is the knee and the step above it.
		{"exact", []Step{at(100, 1000), at(300, 2500), at(200, 1900)}, 0, 50, Range{200, 300}},
		// 10%: 1900 × 1.1 > 2000, so 200 is not clearly good; 2150 ÷ 1.1
		// < 2000, so 300 is not clearly bad; 400 is behind its rate.
		{"noisy", []Step{at(100, 1000), at(200, 1900), at(300, 2150), behind(400, 9000)}, 0.1, 50, Range{100, 400}},
		// One of two measurements of 300 within the noise: not clearly bad.
		{"repeated", []Step{at(100, 1000), at(300, 5000), at(300, 2100), at(500, 7000)}, 0.1, 50, Range{100, 500}},
		// A rate clearly good above one that was not does not raise Low.
		{"not monotone", []Step{at(100, 1000), at(200, 2100), at(300, 1000), at(400, 9000)}, 0.1, 50, Range{100, 400}},
		// Noise over 100%: twice the lowest p99 has no room for it.
		{"too noisy", []Step{at(100, 1000), at(200, 1500), at(300, 9000)}, 1.2, 50, Range{0, 300}},
		// Never clearly broke: the highest rate plus the reach.
		{"never broke", []Step{at(100, 1000), at(200, 1200)}, 0, 50, Range{200, 250}},
	} {
		if got := KneeRange(c.steps, slo, c.noise, c.reach); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
