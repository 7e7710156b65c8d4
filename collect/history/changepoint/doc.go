// Package changepoint finds the builds at which a benchmark figure's level
// shifted, in a history of that figure ordered by build.
//
// A release-qualification history is short (tens of builds), noisy (a few
// per cent run to run) and has a regression as a step, not a spike. A
// threshold on the last value against the previous one mistakes noise for
// regressions and misses slow ones; the field's answer is change-point
// detection, and the method here is DataStax's Hunter, now Apache Otava
// (Fleming et al., ICPE 2023, arXiv 2301.03034), which built on MongoDB's
// (Daly et al., ICPE 2020):
//
//   - E-divisive means (Matteson & James, JASA 2014) proposes where to cut:
//     the split of a segment that maximises the energy distance between
//     the points before and after it. It assumes no distribution, so a
//     skewed latency figure is cut where its level moved.
//   - Whether a proposed cut is real is Student's t-test between the
//     segments either side of it (Hunter's change), not E-divisive's
//     permutation test: the permutation test draws at random, so the same
//     history could gain or lose a regression from one run to the next,
//     which a qualification gate cannot have. The t-test's answer is a
//     function of the numbers alone.
//   - E-divisive runs over sliding windows (Window points, stepping by
//     half a window), because over a long history a large step elsewhere
//     hides a small one, and the cost grows with the square of the length.
//   - Two passes: the windows keep weak candidates, significant at ten
//     times the chosen p-value; then each candidate is re-tested against
//     the whole segments up to its neighbours, and the weakest one failing
//     the chosen p-value (or MinMagnitude) is removed and its neighbours
//     re-tested, until every one left passes. A candidate that the windows
//     saw only through a narrow slice is judged on all the data it splits.
//
// Where this differs from Otava, each with its reason where it is done:
// the cut's right side runs to its segment's end (bestSplit); the
// variances are the sample ones (compare); a removed cut's left neighbour
// is re-tested (merge); no segment is shorter than MinSegment; and a
// change point must stay significant with any one of its points left
// out, so one wild build is not a regression (worstPValue). With those
// choices made Otava's way, the tests get Otava's own tests' answers on
// its published series exactly.
//
// Detect finds the change points; DetectableStep says how large a step
// the history's noise lets it find, which is what "no change points"
// means.
//
// Everything here is a pure function of its arguments: no I/O, no
// randomness, no map iteration, so a history gives the same change points
// on every run and every machine.
package changepoint
