package main

// The goal rule of issues 5 and 15, which every section that states a goal
// judges by: a ratio of medians alone would call a goal met on runs whose
// ranges overlap, where the difference may be the machine's noise.

import "slices"

// goal says whether ybload's runs (y) meet a goal on figure f against a
// peer's runs (p).
func goal[T any](y, p []T, f func(T) float64, bound float64, atLeast bool) string {
	return goalOf(valuesOf(y, f), valuesOf(p, f), bound, atLeast)
}

func valuesOf[T any](xs []T, f func(T) float64) []float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	return v
}

// goalOf is the goal rule: the ratio of ybload's median (y) to the
// peer's (p) on the right side of bound, and the two min–max ranges apart.
func goalOf(y, p []float64, bound float64, atLeast bool) string {
	ratio := medianValue(y) / medianValue(p)
	overlap := slices.Min(y) <= slices.Max(p) && slices.Min(p) <= slices.Max(y)
	ok := ratio <= bound
	if atLeast {
		ok = ratio >= bound
	}
	switch {
	case ok && !overlap:
		return "met"
	case ok:
		return "median meets it, ranges overlap"
	case overlap:
		return "not met, ranges overlap"
	}
	return "not met, ranges apart"
}

// medianValue is the median of v (the upper one of two), as median's.
func medianValue(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
