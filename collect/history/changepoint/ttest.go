package changepoint

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// comparison is Student's two-sample t-test of the segment after a cut
// against the segment before it, with the pooled variance.
//
// Pooled (Student's) rather than Welch's, for three reasons. It is the test
// Hunter and Otava use, so a p-value here means what it means there. A
// benchmark's run-to-run noise is a property of the system and the
// harness, which a build changes far less often than it changes the level,
// so equal variances either side is the better model. And the segments are
// short (three to a few tens of points), where Welch's estimated degrees of
// freedom are themselves noisy and its interval wide for no real reason.
// The confidence interval uses the same pooled standard error and degrees
// of freedom, so a change's interval excludes 0 at 95% exactly when its
// p-value is below 0.05: the two figures cannot disagree.
//
// Unlike Otava, which hands population (n) standard deviations to a test
// that expects sample (n-1) ones, the variances here are the unbiased
// sample ones; Otava's p-values are a little smaller for short segments.
type comparison struct {
	nBefore, nAfter       int
	meanBefore, meanAfter float64
	sdBefore, sdAfter     float64 // sample standard deviations (0 for one point)
	// diff is meanAfter - meanBefore; halfWidth is half its 95%
	// confidence interval's width (+Inf with no degrees of freedom).
	diff, halfWidth float64
	// p is the two-sided p-value of "the means are equal".
	p float64
}

// compare tests after against before; both are non-empty. With otava,
// the variances are Otava's population ones.
func compare(before, after []float64, otava bool) comparison {
	b, a := sampleOf(before), sampleOf(after)
	c := comparison{nBefore: b.n, nAfter: a.n, meanBefore: b.mean, meanAfter: a.mean,
		sdBefore: b.sd(), sdAfter: a.sd(), diff: a.mean - b.mean}
	c.p, c.halfWidth = tTest(b, a, otava)
	return c
}

// sample is what the t-test needs of a segment: its count, mean and sum
// of squared deviations from the mean.
type sample struct {
	n        int
	mean, ss float64
}

// sampleOf is vs's sample, in two passes: a history of figures near 30000
// with noise of a few hundred loses digits in the one-pass sum of squares.
func sampleOf(vs []float64) sample {
	s := sample{n: len(vs)}
	for _, v := range vs {
		s.mean += v
	}
	s.mean /= float64(len(vs))
	for _, v := range vs {
		s.ss += (v - s.mean) * (v - s.mean)
	}
	return s
}

// without is s with the value x (one of its own) left out.
func (s sample) without(x float64) sample {
	if s.n <= 1 {
		return sample{}
	}
	r := sample{n: s.n - 1, mean: (s.mean*float64(s.n) - x) / float64(s.n-1)}
	r.ss = max(0, s.ss-(x-s.mean)*(x-r.mean))
	return r
}

// sd is the sample standard deviation; 0 for one point.
func (s sample) sd() float64 {
	if s.n < 2 {
		return 0
	}
	return math.Sqrt(s.ss / float64(s.n-1))
}

// tTest is the two-sided p-value of Student's pooled t-test that a and b
// have equal means, and the half width of the 95% confidence interval of
// the difference (+Inf with no degrees of freedom). No degrees of freedom
// (one point each side, or an empty side) gives p = 1.
func tTest(b, a sample, otava bool) (p, halfWidth float64) {
	t, se, df, ok := tStatistic(b, a, otava)
	if !ok {
		return 1, math.Inf(1)
	}
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return pValue(t, df), dist.Quantile(0.975) * se
}

// tStatistic is the pooled t of a against b, its standard error and
// degrees of freedom; ok is false when there are no degrees of freedom.
// Two constant segments have t = ±Inf if their means differ (the
// difference is certain) and 0 if not.
func tStatistic(b, a sample, otava bool) (t, se, df float64, ok bool) {
	df = float64(b.n + a.n - 2)
	if b.n == 0 || a.n == 0 || df < 1 {
		return 0, 0, 0, false
	}
	ssB, ssA := b.ss, a.ss
	if otava {
		ssB *= float64(b.n-1) / float64(b.n)
		ssA *= float64(a.n-1) / float64(a.n)
	}
	se = math.Sqrt((ssB+ssA)/df) * math.Sqrt(1/float64(b.n)+1/float64(a.n))
	diff := a.mean - b.mean
	switch {
	case se > 0:
		return diff / se, se, df, true
	case diff != 0:
		return math.Copysign(math.Inf(1), diff), se, df, true
	}
	return 0, se, df, true
}

// pValue is the two-sided p-value of t with df degrees of freedom. The
// survival function of |t|, rather than 1 − CDF, keeps the small p-values
// a clear step gives: 1 − CDF rounds them to 0 well above 1e-16.
func pValue(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return math.Min(1, 2*dist.Survival(math.Abs(t)))
}
