package changepoint

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"
)

// Bad input is an error, never a panic or a silent guess.
func TestDetectRefusesBadInput(t *testing.T) {
	ok := history(1, 30, 0.02)
	cases := []struct {
		name   string
		values []float64
		s      Settings
	}{
		{"NaN", []float64{1, 2, math.NaN(), 4, 5, 6}, Settings{}},
		{"+Inf", []float64{1, 2, 3, math.Inf(1), 5, 6}, Settings{}},
		{"-Inf", []float64{math.Inf(-1), 2, 3, 4, 5, 6}, Settings{}},
		{"negative MinSegment", ok, Settings{MinSegment: -1}},
		{"window under 2·MinSegment", ok, Settings{Window: 5, MinSegment: 3}},
		{"negative window", ok, Settings{Window: -50}},
		{"window over MaxWindow", ok, Settings{Window: MaxWindow + 1}},
		{"p-value 1", ok, Settings{PValue: 1}},
		{"negative p-value", ok, Settings{PValue: -0.001}},
		{"NaN p-value", ok, Settings{PValue: math.NaN()}},
		{"negative magnitude", ok, Settings{MinMagnitude: -0.05}},
		{"NaN magnitude", ok, Settings{MinMagnitude: math.NaN()}},
		{"infinite magnitude", ok, Settings{MinMagnitude: math.Inf(1)}},
	}
	for _, c := range cases {
		cps, err := Detect(c.values, c.s)
		if err == nil {
			t.Errorf("%s: %v and no error", c.name, cps)
		}
	}
	if _, err := Detect([]float64{1, math.NaN()}, Settings{}); !errors.Is(err, errNotFinite) {
		t.Errorf("NaN: error %v, want one wrapping errNotFinite", err)
	}
}

// Histories with nothing to find give nil and no error.
func TestDetectNothingToFind(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
	}{
		{"empty", nil},
		{"one point", []float64{1}},
		{"three points", []float64{1, 5, 9}},
		{"constant", slices.Repeat([]float64{7}, 40)},
	}
	for _, c := range cases {
		cps, err := Detect(c.values, Settings{})
		if err != nil || cps != nil {
			t.Errorf("%s: %v, %v; want nil, nil", c.name, cps, err)
		}
	}
}

func TestDefaultSettingsAreTheZeroValue(t *testing.T) {
	zero, err := Settings{}.resolved()
	if err != nil || zero != DefaultSettings() {
		t.Errorf("Settings{} resolves to %+v (%v), DefaultSettings is %+v", zero, err, DefaultSettings())
	}
}

// The same history gives the same answer, call after call, and is left
// as it was.
func TestDetectIsDeterministic(t *testing.T) {
	_, cols := readColumns(t, "tigerbeetle.csv")
	for _, c := range []struct {
		name   string
		values []float64
		s      Settings
	}{
		{"TigerBeetle, p 0.01", cols[0], Settings{Window: 30, PValue: 0.01}},
		{"two steps", history(3, 36, 0.02, step{12, 0.05}, step{24, -0.07}), Settings{}},
	} {
		kept := slices.Clone(c.values)
		first, err := Detect(c.values, c.s)
		if err != nil || len(first) == 0 {
			t.Fatalf("%s: %v, %v", c.name, first, err)
		}
		for range 3 {
			again, _ := Detect(c.values, c.s)
			if !reflect.DeepEqual(first, again) {
				t.Errorf("%s: a second call gave\n  %+v\nthe first\n  %+v", c.name, again, first)
			}
		}
		if !slices.Equal(kept, c.values) {
			t.Errorf("%s: Detect changed its input", c.name)
		}
	}
}

// Each reported figure is what it says: the segments' means, the
// relative change, an interval around it that excludes 0 (p is far below
// 0.05), and a p-value at the level asked.
func TestChangePointFigures(t *testing.T) {
	v := history(4, 40, 0.02, step{20, -0.08})
	cps := detect(t, v)
	if len(cps) != 1 || cps[0].Index != 20 {
		t.Fatalf("change points %v, want one at 20", indices(cps))
	}
	c := cps[0]
	before, after := sampleOf(v[c.From:c.Index]), sampleOf(v[c.Index:c.To])
	switch {
	case c.From != 0 || c.To != 40:
		t.Errorf("segments [%d, %d), want the whole history", c.From, c.To)
	case c.MeanBefore != before.mean || c.MeanAfter != after.mean:
		t.Errorf("means %g, %g; the segments' are %g, %g", c.MeanBefore, c.MeanAfter, before.mean, after.mean)
	case c.StdDevBefore != before.sd() || c.StdDevAfter != after.sd():
		t.Errorf("standard deviations %g, %g; the segments' are %g, %g", c.StdDevBefore, c.StdDevAfter, before.sd(), after.sd())
	case math.Abs(c.Change-(after.mean/before.mean-1)) > 1e-15:
		t.Errorf("change %g, want %g", c.Change, after.mean/before.mean-1)
	case !(c.ChangeLow < c.Change && c.Change < c.ChangeHigh && c.ChangeHigh < 0):
		t.Errorf("interval [%g, %g] around %g: want it around the change and below 0", c.ChangeLow, c.ChangeHigh, c.Change)
	case !(c.PValue > 0 && c.PValue <= DefaultPValue):
		t.Errorf("p-value %g, want one in (0, %g]", c.PValue, DefaultPValue)
	}
	t.Logf("an 8%% drop at 20 of 40: %.0f → %.0f, %+.2f%% [%+.2f%%, %+.2f%%], p %.2g",
		c.MeanBefore, c.MeanAfter, 100*c.Change, 100*c.ChangeLow, 100*c.ChangeHigh, c.PValue)
}

// MinMagnitude drops a significant change smaller than it: a 3% step in
// 0.2% noise is certain, and reported only while the threshold is under
// its size.
func TestMinMagnitude(t *testing.T) {
	v := history(6, 30, 0.002, step{15, 0.03})
	for _, c := range []struct {
		magnitude float64
		want      []int
	}{{0, []int{15}}, {0.02, []int{15}}, {0.05, []int{}}} {
		cps, err := Detect(v, Settings{MinMagnitude: c.magnitude})
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(cps); !slices.Equal(got, c.want) {
			t.Errorf("MinMagnitude %g: %v, want %v", c.magnitude, got, c.want)
		}
	}
}

// An error rate that was 0 and became 1%: the change is found, its
// relative figures are NaN (there is none), and its Magnitude is 1, so a
// MinMagnitude below 100% keeps it.
func TestChangeFromZero(t *testing.T) {
	v := make([]float64, 30)
	for i := 15; i < 30; i++ {
		v[i] = 0.01 * (1 + 0.1*float64(i%3-1))
	}
	cps, err := Detect(v, Settings{MinMagnitude: 0.5})
	if err != nil || len(cps) != 1 || cps[0].Index != 15 {
		t.Fatalf("%+v, %v; want one change point at 15", cps, err)
	}
	c := cps[0]
	if !math.IsNaN(c.Change) || !math.IsNaN(c.ChangeLow) || !math.IsNaN(c.ChangeHigh) || c.Magnitude() != 1 {
		t.Errorf("change %g [%g, %g], magnitude %g; want NaN, NaN, NaN and 1", c.Change, c.ChangeLow, c.ChangeHigh, c.Magnitude())
	}
}

// Magnitude is symmetric: a drop and the rise that undoes it are the
// same size.
func TestMagnitudeIsSymmetric(t *testing.T) {
	down := ChangePoint{MeanBefore: 100, MeanAfter: 95}
	up := ChangePoint{MeanBefore: 95, MeanAfter: 100}
	if down.Magnitude() != up.Magnitude() || math.Abs(down.Magnitude()-5.0/95) > 1e-15 {
		t.Errorf("magnitudes %g (drop) and %g (rise), want both 5/95", down.Magnitude(), up.Magnitude())
	}
	if m := (ChangePoint{}).Magnitude(); m != 0 {
		t.Errorf("both means 0: magnitude %g, want 0", m)
	}
}
