package main

import (
	"math"
	"testing"
)

func TestPowerFit(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		b, a float64
		ok   bool
	}{
		{"flat", []float64{3, 9, 30}, []float64{2, 2, 2}, 0, 2, true},
		{"linear", []float64{3, 9, 30}, []float64{6, 18, 60}, 1, 2, true},
		{"square root", []float64{4, 16, 64}, []float64{2, 4, 8}, 0.5, 1, true},
		{"one size", []float64{3, 3}, []float64{1, 2}, 0, 0, false},
		{"a zero", []float64{3, 9}, []float64{0, 1}, 0, 0, false},
		{"one point", []float64{3}, []float64{1}, 0, 0, false},
	} {
		b, a, ok := powerFit(tc.x, tc.y)
		if ok != tc.ok || math.Abs(b-tc.b) > 1e-9 || math.Abs(a-tc.a) > 1e-9 {
			t.Errorf("%s: b %v a %v ok %v, want %v %v %v", tc.name, b, a, ok, tc.b, tc.a, tc.ok)
		}
	}
	// Points off a line: the least-squares slope (13/14 here), not the
	// end points' (1).
	b, _, _ := powerFit([]float64{1, 2, 8}, []float64{1, 4, 8})
	if want := 13.0 / 14; math.Abs(b-want) > 1e-9 {
		t.Errorf("noisy: b %v, want %v", b, want)
	}
}
