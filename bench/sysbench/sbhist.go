package sysbench

import (
	"math"
	"sync/atomic"
)

// sysbench's latency histogram (spec §9.4): 1024 logarithmic buckets from
// 0.001 ms to 100 000 ms. ybload computes the percentile of its sysbench
// report from this histogram, as sysbench does, so the two tools print the
// same number for the same latencies; the HDR histograms of the tick
// records answer the same question more precisely and are labelled apart.
const (
	sbBuckets = 1024
	sbMinMs   = 0.001
	sbMaxMs   = 100000.0
)

var (
	// sbMult is buckets per unit of ln(ms): 1023 / ln(max/min).
	sbMult  = float64(sbBuckets-1) / math.Log(sbMaxMs/sbMinMs)
	sbLnMin = math.Log(sbMinMs)
)

// sbBucket is the bucket of a latency in milliseconds:
// floor((ln v − ln 0.001)·m + 0.5), clamped to [0, 1023].
func sbBucket(ms float64) int {
	if !(ms > 0) {
		return 0
	}
	f := math.Floor((math.Log(ms)-sbLnMin)*sbMult + 0.5)
	switch {
	case f < 0:
		return 0
	case f > sbBuckets-1:
		return sbBuckets - 1
	}
	return int(f)
}

// sbValue is the value a bucket stands for: 0.001·e^(i/m) ms.
func sbValue(i int) float64 { return sbMinMs * math.Exp(float64(i)/sbMult) }

// sbCounts is a histogram's bucket counts.
type sbCounts [sbBuckets]uint64

// sbHist is a worker's cumulative histogram. Its owner adds to it with an
// atomic add on its own memory; readers load the buckets and subtract an
// earlier snapshot to get an interval.
type sbHist [sbBuckets]atomic.Uint64

func (h *sbHist) add(ms float64) { h[sbBucket(ms)].Add(1) }

// addTo adds the histogram's counts into c.
func (h *sbHist) addTo(c *sbCounts) {
	for i := range h {
		c[i] += h[i].Load()
	}
}

// total is the number of values counted.
func (c *sbCounts) total() uint64 {
	var n uint64
	for _, v := range c {
		n += v
	}
	return n
}

// percentile is sysbench's: with N values, the value of the first bucket
// where the running count reaches floor(N·p/100 + 0.5) (bucket 0 when N is 0).
func (c *sbCounts) percentile(p int) float64 {
	n := c.total()
	target := uint64(math.Floor(float64(n)*float64(p)/100 + 0.5))
	var run uint64
	for i, v := range c {
		run += v
		if run >= target {
			return sbValue(i)
		}
	}
	return sbValue(sbBuckets - 1)
}

// sub sets c to a − b (an interval from two cumulative snapshots).
func (c *sbCounts) sub(a, b *sbCounts) {
	for i := range c {
		c[i] = a[i] - b[i]
	}
}
