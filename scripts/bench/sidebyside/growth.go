package main

// Growth curves: how a figure grows with a size (hosts, hours), as the
// exponent b of figure ∝ size^b, fitted by least squares on log–log.

import "math"

// powerFit fits y = a·x^b by least squares on (ln x, ln y) and returns b
// and a; ok is false with fewer than two distinct positive sizes or a
// figure that is not positive.
func powerFit(x, y []float64) (b, a float64, ok bool) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		if x[i] <= 0 || y[i] <= 0 {
			return 0, 0, false
		}
		lx, ly := math.Log(x[i]), math.Log(y[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	n := float64(len(x))
	d := n*sxx - sx*sx
	if d <= 1e-12 {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / d
	return b, math.Exp((sy - b*sx) / n), true
}
