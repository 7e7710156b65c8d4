package hist

import (
	"math"
	"slices"
)

// Counts adds histograms up for a reader of many short sums, one after
// another (a chart's intervals: every agent's and operation's ticks of
// one interval): dense counts of the shared geometry, allocated once and
// emptied by the buckets each sum touched, so that adding a histogram
// costs its populated buckets and emptying a sum costs its own. The zero
// value is ready to use.
type Counts struct {
	counts  []int64
	touched []int32
	sorted  bool
	total   int64
}

// Merge adds every count of s, as Hist.MergeSparse adds it: index to
// index, values above the shared range and counts that would overflow the
// total dropped.
func (c *Counts) Merge(s *Sparse) {
	if c.counts == nil {
		c.counts = make([]int64, countsLen)
	}
	if s.lazy {
		for i, at := range s.idx {
			c.add(at, s.cnt[i])
		}
		return
	}
	for v, n := range s.p.ForEachBucket {
		c.add(indexAt(v), n)
	}
}

func (c *Counts) add(at int32, n int64) {
	if at < 0 || int(at) >= len(c.counts) || n > math.MaxInt64-c.total || n <= 0 {
		return
	}
	if c.counts[at] == 0 {
		c.touched = append(c.touched, at)
		c.sorted = false
	}
	c.counts[at] += n
	c.total += n
}

// Reset empties the sum.
func (c *Counts) Reset() {
	for _, at := range c.touched {
		c.counts[at] = 0
	}
	c.touched, c.total = c.touched[:0], 0
}

// Count is the number of values added.
func (c *Counts) Count() int64 { return c.total }

// Percentile is the value at percentile p (0..100) of the sum, as
// Hist.Percentile gives it for the same counts: the bucket where the
// running count first reaches p's rank (p of the total, rounded to the
// nearest, at least 1), its highest value (its lowest for p = 0).
func (c *Counts) Percentile(p float64) int64 {
	if c.total == 0 {
		return 0
	}
	if p > 100 {
		p = 100
	} else if p < 0 {
		p = 0
	}
	rank := int64(1)
	if r := (p/100)*float64(c.total) + 0.5; r >= float64(c.total) {
		rank = c.total
	} else if r >= 1 {
		rank = int64(r)
	}
	if !c.sorted {
		slices.Sort(c.touched)
		c.sorted = true
	}
	var running int64
	for _, at := range c.touched {
		if running += c.counts[at]; running >= rank {
			if p == 0 {
				return valueAt(at)
			}
			return highestAt(at)
		}
	}
	return 0
}
