package changepoint

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The figures follow the formula from the measured noise, and the noise
// is the spread about the segments' levels, not the steps between them.
func TestDetectableStepFormula(t *testing.T) {
	flat := history(5, 30, 0.02)
	stepped := history(5, 30, 0.02, step{15, 0.10})
	for _, c := range []struct {
		name   string
		values []float64
	}{{"stationary", flat}, {"with a 10% step", stepped}} {
		d, err := DetectableStep(c.values, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Noise < 0.012 || d.Noise > 0.028 || d.PerSide != 15 {
			t.Errorf("%s: noise %.4f on %d points a side, want about 0.02 on 15", c.name, d.Noise, d.PerSide)
		}
		tt := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 28}
		se := d.Noise * math.Sqrt(2.0/15)
		want := tt.Quantile(1-DefaultPValue/2) * se
		if math.Abs(d.Threshold-want) > 1e-12 || math.Abs(d.Reliable-(want+tt.Quantile(0.95)*se)) > 1e-12 {
			t.Errorf("%s: threshold %g, reliable %g; the formula gives %g and %g", c.name, d.Threshold, d.Reliable, want, want+tt.Quantile(0.95)*se)
		}
		t.Logf("%s, 30 points: noise %.2f%%, threshold %.2f%%, reliable %.2f%%", c.name, 100*d.Noise, 100*d.Threshold, 100*d.Reliable)
	}
}

// What the figures mean: with the noise measured on a long stationary
// history of 2% noise, steps of half the Threshold, the Threshold and
// Reliable in the middle of 30-point histories are reported rarely, about
// half the time and nearly always.
func TestDetectableStepMeaning(t *testing.T) {
	d, err := DetectableStep(history(99, 600, 0.02), Settings{Window: 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		size     float64
		min, max int // reported in this many of 100 histories
	}{
		{"half the threshold", d.Threshold / 2, 0, 15},
		{"the threshold", d.Threshold, 30, 70},
		{"reliable", d.Reliable, 85, 100},
	} {
		reported := 0
		for seed := range uint64(seeds) {
			if len(detect(t, history(seed, 30, 0.02, step{15, -c.size}))) > 0 {
				reported++
			}
		}
		t.Logf("a %.2f%% drop (%s): reported in %d of %d histories", 100*c.size, c.name, reported, seeds)
		if reported < c.min || reported > c.max {
			t.Errorf("%s: reported in %d of %d, want %d to %d", c.name, reported, seeds, c.min, c.max)
		}
	}
}

func TestDetectableStepErrors(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
		s      Settings
	}{
		{"too short", []float64{1, 2, 3}, Settings{}},
		{"window too short", history(1, 30, 0.02), Settings{Window: 3, MinSegment: 1}},
		{"current level 0", []float64{1, -1, 1, -1, 1, -1, 1, -1}, Settings{}},
		{"NaN", []float64{1, 2, math.NaN(), 4, 5}, Settings{}},
		{"bad settings", history(1, 30, 0.02), Settings{PValue: 2}},
	}
	for _, c := range cases {
		if d, err := DetectableStep(c.values, c.s); err == nil {
			t.Errorf("%s: %+v and no error", c.name, d)
		}
	}
}
