package sysbench

import (
	"math"
	"strconv"
	"testing"
)

func TestHistogramBuckets(t *testing.T) {
	if sbBucket(0.001) != 0 || sbBucket(100000) != 1023 || sbBucket(0) != 0 || sbBucket(1e9) != 1023 {
		t.Fatal("range ends are not buckets 0 and 1023")
	}
	// Adjacent buckets differ by e^(1/m) ≈ 1.01817, so a value is within
	// half a step (±0.91%) of its bucket's value.
	if step := sbValue(1) / sbValue(0); math.Abs(step-1.01817) > 1e-5 {
		t.Errorf("bucket step %.6f, want 1.01817", step)
	}
	prev := -1
	for ms := 0.001; ms <= 100000; ms *= 1.003 {
		b := sbBucket(ms)
		if b < prev {
			t.Fatalf("bucket of %g ms (%d) below the previous (%d)", ms, b, prev)
		}
		prev = b
		if rel := math.Abs(sbValue(b)-ms) / ms; rel > 0.0091 {
			t.Fatalf("%g ms falls in bucket %d of value %g (%.3f%% off)", ms, b, sbValue(b), rel*100)
		}
	}
}

// Observed with Debian's sysbench 1.0.20: a single event of 4.83 ms
// (min = max = 4.83) reported a 95th percentile of 4.82.
func TestSingleEventPercentile(t *testing.T) {
	var c sbCounts
	c[sbBucket(4.83)]++
	if got := strconv.FormatFloat(c.percentile(95), 'f', 2, 64); got != "4.82" {
		t.Errorf("percentile %s, sysbench printed 4.82", got)
	}
}

func TestPercentileRule(t *testing.T) {
	// target = floor(N·p/100 + 0.5): with 30 values and p = 5 it is the 2nd.
	var c sbCounts
	for i := 1; i <= 30; i++ {
		c[sbBucket(float64(i))]++
	}
	if got, want := c.percentile(5), sbValue(sbBucket(2)); got != want {
		t.Errorf("5th percentile of 1..30 ms = %g, want the bucket of 2 ms (%g)", got, want)
	}
	if got, want := c.percentile(100), sbValue(sbBucket(30)); got != want {
		t.Errorf("100th percentile = %g, want %g", got, want)
	}
	var empty sbCounts
	if got := empty.percentile(95); got != sbMinMs {
		t.Errorf("percentile of nothing = %g, want bucket 0 (%g, printed 0.00)", got, sbMinMs)
	}
	// An interval is the difference of two cumulative snapshots.
	var later, iv sbCounts
	later = c
	later[sbBucket(50)] += 3
	iv.sub(&later, &c)
	if iv.total() != 3 || iv.percentile(95) != sbValue(sbBucket(50)) {
		t.Errorf("interval histogram holds %d values", iv.total())
	}
}
