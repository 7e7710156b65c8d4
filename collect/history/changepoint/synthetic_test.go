package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The synthetic histories: a level of 1000 with Gaussian noise of a given
// relative standard deviation (0.02 is "2% noise", the run-to-run spread of
// a well-kept benchmark), multiplied by 1+step from each step's index on.
// Seeds are PCG(seed, historyStream): fixed, so every figure below is the
// same on every run, and chosen before any figure was looked at (seeds
// 0..99, as many as the checks name).

const (
	seeds         = 100
	historyStream = 0x5eed
	level         = 1000.0
)

type step struct {
	at     int
	change float64
}

// history is n points of noise relative noise with steps applied.
func history(seed uint64, n int, noise float64, steps ...step) []float64 {
	r := rand.New(rand.NewPCG(seed, historyStream))
	v := make([]float64, n)
	l := level
	for i := range n {
		for _, s := range steps {
			if s.at == i {
				l *= 1 + s.change
			}
		}
		v[i] = l * (1 + noise*r.NormFloat64())
	}
	return v
}

// near reports whether some change point is within tol of index.
func near(cps []ChangePoint, index, tol int) bool {
	for _, c := range cps {
		if c.Index >= index-tol && c.Index <= index+tol {
			return true
		}
	}
	return false
}

// detect is Detect with the default settings, failing the test on error.
func detect(t *testing.T, v []float64) []ChangePoint {
	t.Helper()
	cps, err := Detect(v, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return cps
}

// leastSquaresCut is where a single step in v most likely is, knowing
// there is exactly one: the cut with the largest |t| between the parts
// (for Gaussian noise, the maximum-likelihood location). No method that
// is not told where the step is locates it better on average, so it
// measures how well the location can be known at all.
func leastSquaresCut(v []float64, minSeg int) int {
	best, bestT := -1, -1.0
	for tau := minSeg; tau+minSeg <= len(v); tau++ {
		c := compare(v[:tau], v[tau:], false)
		if t := math.Abs(c.diff) / c.halfWidth; t > bestT {
			best, bestT = tau, t
		}
	}
	return best
}
