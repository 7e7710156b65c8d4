package changepoint

import "math"

// ChangePoint is one shift of a history's level, with the figures of the
// test that kept it: the two segments it separates run from the previous
// change point (or the history's start) to the next one (or its end).
type ChangePoint struct {
	// Index is the first point after the change: values[Index] is the
	// first build at the new level.
	Index int
	// From and To bound the segments compared: values[From:Index] before
	// the change, values[Index:To] after it.
	From, To int
	// MeanBefore and MeanAfter are the segments' means; StdDevBefore and
	// StdDevAfter their sample standard deviations (0 for one point).
	MeanBefore, MeanAfter     float64
	StdDevBefore, StdDevAfter float64
	// Change is the relative change of the mean, MeanAfter/MeanBefore − 1
	// (−0.05 is a 5% drop). ChangeLow and ChangeHigh are its 95%
	// confidence interval: the pooled-t interval of MeanAfter − MeanBefore
	// divided by MeanBefore. That treats MeanBefore as exact, which with
	// noise of a few per cent moves the bounds by a few per cent of their
	// width. All three are NaN when MeanBefore is 0 (an error rate that
	// was zero): no relative figure exists, and the means say what
	// happened.
	Change, ChangeLow, ChangeHigh float64
	// PValue is the two-sided p-value of Student's t-test (pooled
	// variance) that the two segments have equal means.
	PValue float64
}

// Magnitude is the size of the change that MinMagnitude is compared with:
// the larger of |after/before − 1| and |before/after − 1|, Hunter's
// measure. Being symmetric, it gives a drop and its later recovery the
// same size (a 4.8% drop undone by a 5% rise is one step seen from both
// ends), so a threshold does not keep one and drop the other. A ratio
// with a zero denominator is left out; 0 when both means are 0.
func (c ChangePoint) Magnitude() float64 {
	m := 0.0
	if c.MeanBefore != 0 {
		m = math.Abs(c.MeanAfter/c.MeanBefore - 1)
	}
	if c.MeanAfter != 0 {
		m = math.Max(m, math.Abs(c.MeanBefore/c.MeanAfter-1))
	}
	return m
}

// changePointAt is the change point at index, tested with values[from:index]
// against values[index:to] (with Otava's variances when otava is set).
func changePointAt(values []float64, from, index, to int, otava bool) ChangePoint {
	c := compare(values[from:index], values[index:to], otava)
	cp := ChangePoint{Index: index, From: from, To: to,
		MeanBefore: c.meanBefore, MeanAfter: c.meanAfter, StdDevBefore: c.sdBefore, StdDevAfter: c.sdAfter,
		Change: math.NaN(), ChangeLow: math.NaN(), ChangeHigh: math.NaN(), PValue: c.p}
	if c.meanBefore != 0 {
		cp.Change = c.diff / c.meanBefore
		lo, hi := (c.diff-c.halfWidth)/c.meanBefore, (c.diff+c.halfWidth)/c.meanBefore
		cp.ChangeLow, cp.ChangeHigh = math.Min(lo, hi), math.Max(lo, hi)
	}
	return cp
}
