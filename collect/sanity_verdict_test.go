package collect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/profiles"
)

// The Little's-law line states its tolerance and whether the figure is
// inside it, on either side of 1.
func TestSanityLineStatesItsTolerance(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		v      float64
		within *bool
		want   string
	}{
		{1.05, &yes, "= 1.05, within the tolerance of ±0.30 (0.70 to 1.30)."},
		{1.6, &no, "= 1.60, **outside** the tolerance of ±0.30 (0.70 to 1.30): fewer operations were in flight than threads ran"},
		{0.5, &no, "= 0.50, **outside** the tolerance of ±0.30 (0.70 to 1.30): more operations were in flight than threads ran"},
		{0, nil, ": no operations measured.\n"},
	} {
		w := &WorkloadResult{Sanity: c.v, SanityTolerance: profiles.LittlesLawTolerance, SanityWithin: c.within, SanityText: "no operations measured"}
		if c.within != nil {
			w.SanityText = fmt.Sprintf("8 threads ÷ (100 ops/s × 80 ms mean) = %.2f", c.v)
		}
		if got := sanityLine(w); !strings.Contains(got, c.want) {
			t.Errorf("%v: got %q\nwant it to contain %q", c.v, got, c.want)
		}
	}
}

// Aggregate judges the measured figure with the published table's
// tolerance.
func TestWithin(t *testing.T) {
	for v, want := range map[float64]bool{0.69: false, 0.7: true, 1: true, 1.3: true, 1.31: false} {
		if got := within(v, profiles.LittlesLawTolerance); got != want {
			t.Errorf("within(%v) = %v", v, got)
		}
	}
}
