package hist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The bounds cover the geometry, ascend, two a doubling, and each is an HDR
// boundary: the value below it is never equivalent to it.
func TestBucketBoundsAreHDRBoundaries(t *testing.T) {
	b := BucketBounds()
	if b[0] != 1 || b[len(b)-1] < Highest || b[len(b)-2] >= Highest {
		t.Fatalf("bounds %d … %d, want 1 … the first at or above %d", b[0], b[len(b)-1], int64(Highest))
	}
	if len(b) != 64 {
		t.Errorf("%d bounds, want 64", len(b))
	}
	h := New()
	for i, v := range b {
		if i > 0 && v <= b[i-1] {
			t.Fatalf("bound %d: %d after %d", i, v, b[i-1])
		}
		if v > 1 && v <= Highest && h.Equivalent(v-1, v) {
			t.Errorf("bound %d µs is inside an HDR range (%d is equivalent to it)", v, v-1)
		}
	}
}

// Every value lands in the slot of the smallest bound above it, whatever
// its HDR range's width; the sum is the median-equivalent sum Mean uses.
func TestAddToBucketsPutsEachValueUnderItsBound(t *testing.T) {
	bounds := BucketBounds()
	r := rand.New(rand.NewPCG(3, 4))
	h := New()
	want := make([]int64, len(bounds)+1)
	for i := 0; i < 100_000; i++ {
		v := int64(r.ExpFloat64() * 3000)
		if i%10 == 0 {
			v *= 10_000 // seconds: ranges many µs wide
		}
		if i%1000 == 0 {
			v = bounds[r.IntN(40)] - int64(r.IntN(2)) // on a bound, or just below
		}
		h.Record(v)
		j := 0
		for j < len(bounds) && bounds[j] < v+1 {
			j++
		}
		want[j]++
	}
	got := make([]int64, len(bounds)+1)
	sum := h.AddToBuckets(bounds, got)
	for j := range want {
		if got[j] != want[j] {
			t.Errorf("slot %d (≤ %v µs): %d, want %d", j, boundOr(bounds, j), got[j], want[j])
		}
	}
	if n := float64(h.Count()); math.Abs(sum/n-h.Mean()) > 1e-9*h.Mean() {
		t.Errorf("sum/count %v, Mean %v", sum/n, h.Mean())
	}
	if again := h.AddToBuckets(bounds, got); again != sum || got[0] != 2*want[0] {
		t.Errorf("adding twice: sum %v then %v, first slot %d", sum, again, got[0])
	}
}

func boundOr(b []int64, j int) any {
	if j < len(b) {
		return b[j]
	}
	return "+Inf"
}
