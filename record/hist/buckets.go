package hist

// Coarse buckets over the shared geometry, for readers that want a few
// dozen counts instead of an HDR histogram: the agent's live metrics, whose
// Prometheus histograms are classic ones (a count per upper bound).
//
// The bounds sit on the geometry's own boundaries, so that each HDR range
// of equivalent values falls in exactly one coarse bucket: nothing is
// split or guessed, and a coarse count is the sum of HDR counts.

// BucketBounds are upper bounds in microseconds covering the geometry
// (Lowest to Highest), two a doubling: 1, 2, 3, 4, 6, 8, 12, 16, …, ending
// with the first one at or above Highest (2^32 µs, about 72 minutes).
//
// Two a doubling keeps a histogram at 64 buckets while a quantile read
// from it is off by at most half a doubling; both 2^k and 3·2^(k−1) are
// multiples of the range width at their magnitude (1 µs below 2048 µs,
// then 2^(k−10) at three significant digits), so they are HDR boundaries.
func BucketBounds() []int64 {
	var out []int64
	for k := 0; ; k++ {
		p := int64(1) << k
		if p >= Lowest {
			out = append(out, p)
		}
		if p >= Highest {
			return out
		}
		if k >= 1 {
			out = append(out, 3<<(k-1))
		}
	}
}

// AddToBuckets adds x's counts into counts, one slot a bound and a last one
// for what is above every bound: a value goes into the slot of the
// smallest bound above it. Values are whole microseconds cut down from the
// measured time (the agents truncate), so a value v stands for a time in
// [v, v+1) µs, and the bound b holds the times below b: an HDR range
// [from, to] goes where to+1 ≤ b. With bounds on HDR boundaries (as
// BucketBounds') every count lands where its time is.
//
// It returns the sum of the values added, each at its range's
// median-equivalent value as Mean takes it, in microseconds. counts must
// have len(bounds)+1 slots and bounds must ascend.
func (x *Hist) AddToBuckets(bounds []int64, counts []int64) (sumUS float64) {
	if x.h.TotalCount() == 0 {
		return 0
	}
	i := 0
	for _, b := range x.h.Distribution() {
		if b.Count == 0 {
			continue
		}
		for i < len(bounds) && bounds[i] < b.To+1 {
			i++
		}
		counts[i] += b.Count
		median := b.From + (b.To-b.From+1)>>1
		sumUS += float64(median) * float64(b.Count)
	}
	return sumUS
}
