package changepoint

import (
	"math"
	"slices"
	"testing"
)

// The t-test against values computed independently (the regularized
// incomplete beta function in mpmath, 30 digits).
func TestTTestAgainstReferenceValues(t *testing.T) {
	cases := []struct {
		name          string
		before, after []float64
		p, halfWidth  float64 // halfWidth < 0: not checked
	}{
		// Means 3 and 8, pooled variance 2.5, standard error 1: t = 5 on
		// 8 degrees of freedom; the interval's half width is t(0.975, 8).
		{"textbook", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.00105282579336653927, 2.30600413520416668},
		// Otava's test_significance_tester vectors: identical halves, and
		// a 17% drop.
		{"identical halves", []float64{1.00, 1.02, 1.05, 0.95, 0.98}, []float64{1.00, 1.02, 1.05, 0.95, 0.98}, 1, -1},
		{"a drop", []float64{1.00, 1.02, 1.05, 0.95, 0.98}, []float64{0.80, 0.82, 0.85, 0.79, 0.77}, 2.02497703293336162e-5, -1},
		// Otava's CSV example, metric2 either side of index 6.
		{"Otava's CSV example", []float64{10.43, 10.23, 10.29, 10.91, 10.34, 10.69}, []float64{9.23, 9.11, 9.13, 9.03},
			1.00719969142291209e-5, -1},
	}
	for _, c := range cases {
		got := compare(c.before, c.after, false)
		if math.Abs(got.p-c.p) > 1e-9*c.p {
			t.Errorf("%s: p %.17g, want %.17g", c.name, got.p, c.p)
		}
		if c.halfWidth >= 0 && math.Abs(got.halfWidth-c.halfWidth) > 1e-9 {
			t.Errorf("%s: half width %.17g, want %.17g", c.name, got.halfWidth, c.halfWidth)
		}
	}
}

// The cases with no variance to go by, and a p-value far below what
// 1 − CDF could show.
func TestTTestEdges(t *testing.T) {
	cases := []struct {
		name          string
		before, after []float64
		p             float64
		infiniteWidth bool
	}{
		{"one point each side", []float64{1}, []float64{2}, 1, true},
		{"constant, equal", []float64{3, 3, 3}, []float64{3, 3}, 1, false},
		{"constant, different", []float64{3, 3, 3}, []float64{4, 4}, 0, false},
	}
	for _, c := range cases {
		got := compare(c.before, c.after, false)
		if got.p != c.p || math.IsInf(got.halfWidth, 1) != c.infiniteWidth {
			t.Errorf("%s: p %g, half width %g; want p %g, infinite width %v", c.name, got.p, got.halfWidth, c.p, c.infiniteWidth)
		}
	}
	// A 5% step in 0.1% noise, 25 points each side: t near 170, p far
	// below 1e-16 but not rounded to 0, so the clearest of steps still
	// have p-values to rank them by.
	before, after := history(1, 25, 0.001), history(2, 25, 0.001)
	for i := range after {
		after[i] *= 1.05
	}
	if p := compare(before, after, false).p; !(p > 0 && p < 1e-40) {
		t.Errorf("a 50-sigma step: p %g, want one in (0, 1e-40)", p)
	}
}

// Leaving a point out of a sample by the update formula gives the sample
// of the rest.
func TestSampleWithout(t *testing.T) {
	vs := history(3, 9, 0.02)
	s := sampleOf(vs)
	for i, v := range vs {
		got, want := s.without(v), sampleOf(slices.Delete(slices.Clone(vs), i, i+1))
		if got.n != want.n || math.Abs(got.mean-want.mean) > 1e-9 || math.Abs(got.ss-want.ss) > 1e-6 {
			t.Errorf("without %d: %+v, want %+v", i, got, want)
		}
	}
	if got := sampleOf([]float64{5}).without(5); got.n != 0 {
		t.Errorf("one point left out: %+v, want an empty sample", got)
	}
}
