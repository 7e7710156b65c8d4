package changepoint

import "math"

// worstPValue is the change point's p-value at its weakest: the largest
// p-value of the t-test between values[from:index] and values[index:to]
// with any one of those points left out.
//
// The merge keeps a change point only if this is significant too, because
// the t-test is not robust to one wild point in a short segment. A
// segment of k points holding one outlier has its mean moved by 1/k of
// it; the outlier also swells the pooled variance, so however large it
// is the t-statistic tends to √(n−2) / √((k−1)(1 + k/(n−k))) for n
// points in all: with n = 50 and k = 3 that is 4.75, significant at
// 0.001. So one bad newest
// build would be reported as a regression of the last three, whatever
// MinSegment short of about n/12. With any one point left out, the
// outlier's segment is back to its level and the cut fails; a real step
// loses one of its points and still passes, given enough of them (with
// three points after a 5% step in 2% noise it waits for a fourth build).
//
// Every removal leaves the same degrees of freedom, so the largest p-value
// is the one of the smallest |t|, and one distribution look-up serves.
func worstPValue(values []float64, from, index, to int) float64 {
	before, after := sampleOf(values[from:index]), sampleOf(values[index:to])
	least := math.Inf(1)
	df := 0.0
	for i := from; i < to; i++ {
		b, a := before, after
		if i < index {
			b = b.without(values[i])
		} else {
			a = a.without(values[i])
		}
		t, _, d, ok := tStatistic(b, a, false)
		if !ok {
			return 1
		}
		least, df = min(least, math.Abs(t)), d
	}
	return pValue(least, df)
}
