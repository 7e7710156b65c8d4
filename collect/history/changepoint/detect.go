package changepoint

import (
	"slices"
)

// Detect finds the change points of values, a figure's history in build
// order, ascending by Index.
//
// It errs when s holds a value out of range or values holds NaN or ±Inf;
// a history too short to cut (fewer than 2·MinSegment points) has no
// change points and no error. It returns nil when there are none.
func Detect(values []float64, s Settings) ([]ChangePoint, error) {
	s, err := s.resolved()
	if err != nil {
		return nil, err
	}
	if err := checkFinite(values); err != nil {
		return nil, err
	}
	if len(values) < 2*s.MinSegment {
		return nil, nil
	}
	return merge(values, weakCuts(values, s), s), nil
}

// weakCuts is the first pass: E-divisive over windows of s.Window points
// at the first-pass level, the union of every window's cuts, ascending.
//
// Each next window starts half a window on, or at the last cut the window
// found when that is further: a window starting at a cut sees the new
// level from its first point, not a mix of both. (Hunter's scheme.)
func weakCuts(values []float64, s Settings) []int {
	level := s.firstPassPValue()
	step := max(s.Window/2, 1)
	var cuts []int
	for start := 0; start < len(values); {
		end := min(start+s.Window, len(values))
		last := 0
		for _, c := range divide(values[start:end], s, level) {
			last = start + c
			if i, found := slices.BinarySearch(cuts, last); !found {
				cuts = slices.Insert(cuts, i, last)
			}
		}
		start = max(last, start+step)
	}
	return cuts
}

// merge is the second pass: each cut is tested against the whole segments
// to its neighbours; while one fails, the weakest is removed and its two
// neighbours, whose segments it bounded, are tested again. A cut fails
// when its p-value with any one point left out (worstPValue) is above
// s.PValue, or, once none does, when its Magnitude is not above
// s.MinMagnitude; the weakest is the one of largest such p-value, then
// the one of least Magnitude. Removing one at a time matters: a cut that
// failed only because a spurious neighbour starved it of points can pass
// once that neighbour is gone.
//
// With s.otavaQuirks the decision takes the plain p-value, as Otava's
// does, and the re-tested neighbours are Otava's (see neighbours).
func merge(values []float64, cuts []int, s Settings) []ChangePoint {
	if len(cuts) == 0 {
		return nil
	}
	cps := make([]ChangePoint, len(cuts))
	worst := make([]float64, len(cuts))
	for i := range cuts {
		cps[i], worst[i] = retest(values, cuts, i, s)
	}
	for {
		w := weakest(cps, worst, s)
		if w < 0 {
			break
		}
		cps = slices.Delete(cps, w, w+1)
		worst = slices.Delete(worst, w, w+1)
		cuts = slices.Delete(cuts, w, w+1)
		for _, i := range neighbours(w, s) {
			if i >= 0 && i < len(cps) {
				cps[i], worst[i] = retest(values, cuts, i, s)
			}
		}
	}
	if len(cps) == 0 {
		return nil
	}
	return cps
}

// neighbours are the indices merge re-tests after removing the change
// point that was at w: the ones now at w-1 and w (Otava's: w and w+1).
func neighbours(w int, s Settings) []int {
	if s.otavaQuirks {
		return []int{w, w + 1}
	}
	return []int{w - 1, w}
}

// retest is the change point at cuts[i] tested against the segments to
// its neighbouring cuts (or the history's ends), and the p-value merge
// decides by.
func retest(values []float64, cuts []int, i int, s Settings) (ChangePoint, float64) {
	from, to := 0, len(values)
	if i > 0 {
		from = cuts[i-1]
	}
	if i+1 < len(cuts) {
		to = cuts[i+1]
	}
	cp := changePointAt(values, from, cuts[i], to, s.otavaQuirks)
	if s.otavaQuirks {
		return cp, cp.PValue
	}
	return cp, max(cp.PValue, worstPValue(values, from, cuts[i], to))
}

// weakest is the index of the change point merge removes next, or -1 when
// every one passes; p are the p-values it decides by. Ties go to the
// earlier one.
func weakest(cps []ChangePoint, p []float64, s Settings) int {
	w := -1
	for i := range cps {
		if p[i] > s.PValue && (w < 0 || p[i] > p[w]) {
			w = i
		}
	}
	if w >= 0 {
		return w
	}
	for i, c := range cps {
		if c.Magnitude() <= s.MinMagnitude && (w < 0 || c.Magnitude() < cps[w].Magnitude()) {
			w = i
		}
	}
	return w
}
