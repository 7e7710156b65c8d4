package collect

import "testing"

// The median repetition is the middle one by the measured phase's
// throughput, the lower of the two middle ones for an even count, and
// never one without a measured phase.
func TestMedianRepetition(t *testing.T) {
	rep := func(i int, tput float64, measured bool) Repetition {
		r := Repetition{Index: i, Throughput: tput}
		if measured {
			r.Phases = []PhaseResult{{Phase: MeasuredPhase, Complete: true}}
		}
		return r
	}
	for _, c := range []struct {
		name string
		reps []Repetition
		want int // Index
	}{
		{"odd", []Repetition{rep(1, 30, true), rep(2, 10, true), rep(3, 20, true)}, 3},
		{"even: the lower middle", []Repetition{rep(1, 40, true), rep(2, 10, true), rep(3, 30, true), rep(4, 20, true)}, 4},
		{"one not measured", []Repetition{rep(1, 0, false), rep(2, 50, true), rep(3, 60, true)}, 2},
		{"equal: the middle one in the order run", []Repetition{rep(1, 5, true), rep(2, 5, true), rep(3, 5, true)}, 2},
		{"none measured: the first", []Repetition{rep(1, 0, false), rep(2, 0, false)}, 1},
	} {
		if got := c.reps[medianRepetition(c.reps)].Index; got != c.want {
			t.Errorf("%s: repetition %d, want %d", c.name, got, c.want)
		}
	}
}
