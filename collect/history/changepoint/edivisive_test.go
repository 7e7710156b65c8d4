package changepoint

import (
	"math"
	"testing"
)

// qhatByDefinition is Matteson and James's statistic written out with
// double loops, for checking the prefix-sum table against.
func qhatByDefinition(x []float64, s, tau, kappa int) float64 {
	n, m := float64(tau-s), float64(kappa-tau)
	var between, withinX, withinY float64
	for i := s; i < tau; i++ {
		for j := tau; j < kappa; j++ {
			between += math.Abs(x[i] - x[j])
		}
		for k := i + 1; k < tau; k++ {
			withinX += math.Abs(x[i] - x[k])
		}
	}
	for j := tau; j < kappa; j++ {
		for k := j + 1; k < kappa; k++ {
			withinY += math.Abs(x[j] - x[k])
		}
	}
	// Ê = 2/(nm)·between − withinX/C(n,2) − withinY/C(m,2), Q = nm/(n+m)·Ê.
	e := 2 / (n * m) * between
	if n > 1 {
		e -= withinX / (n * (n - 1) / 2)
	}
	if m > 1 {
		e -= withinY / (m * (m - 1) / 2)
	}
	return n * m / (n + m) * e
}

func TestQhatMatchesTheDefinition(t *testing.T) {
	x := history(7, 13, 0.05, step{6, 0.2})
	d := newDistances(x)
	for s := 0; s < len(x); s++ {
		for tau := s + 1; tau < len(x); tau++ {
			for kappa := tau + 1; kappa <= len(x); kappa++ {
				got, want := d.qhat(s, tau, kappa), qhatByDefinition(x, s, tau, kappa)
				if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Fatalf("qhat(%d, %d, %d) = %g, by definition %g", s, tau, kappa, got, want)
				}
			}
		}
	}
}

func TestBestSplit(t *testing.T) {
	cases := []struct {
		name         string
		x            []float64
		s, e, minSeg int
		tau          int
		ok           bool
	}{
		{"a clean step", []float64{1, 1, 1, 1, 2, 2, 2}, 0, 7, 1, 4, true},
		{"a step in a sub-segment", []float64{9, 9, 1, 1, 1, 2, 2, 2, 2}, 2, 9, 2, 5, true},
		{"constant: the first admissible cut", []float64{3, 3, 3, 3, 3, 3}, 0, 6, 2, 2, true},
		{"too short to cut", []float64{1, 2, 3}, 0, 3, 2, 0, false},
	}
	for _, c := range cases {
		tau, _, ok := newDistances(c.x).bestSplit(c.s, c.e, c.minSeg, false)
		if tau != c.tau || ok != c.ok {
			t.Errorf("%s: cut %d (ok %v), want %d (ok %v)", c.name, tau, ok, c.tau, c.ok)
		}
	}
}
