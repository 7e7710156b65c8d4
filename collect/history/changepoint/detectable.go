package changepoint

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Detectability is what a history's noise lets Detect see: the step sizes
// below which a regression is, at these settings, indistinguishable from
// run-to-run noise. A team reads it before trusting a clean history: "no
// change points" means "no step above Reliable", not "no regression".
type Detectability struct {
	// Noise is the history's residual standard deviation relative to its
	// current level: the spread of the values about the means of the
	// segments Detect finds (so a real step does not count as noise),
	// pooled over the segments and divided by the mean of the last
	// segment, the level a new regression would step down from.
	Noise float64
	// PerSide is the number of points each side of the comparison the
	// figures assume: half of min(Window, len(values)), a step in the
	// middle of a window or of a history shorter than one. A step k points
	// from the newest build is compared on k points after it, and needs
	// more; the Threshold formula below with the real counts tells how much.
	PerSide int
	// Threshold is the relative step whose expected t-statistic equals the
	// critical value of the two-sided test at PValue:
	//
	//	Threshold = t(1 − PValue/2, 2·PerSide − 2) · Noise · √(2/PerSide)
	//
	// A step of this size is reported about half the time (43% and 50%
	// in the same measurement), one of half this size rarely (6%).
	Threshold float64
	// Reliable is the relative step the t-test at PValue passes 95% of
	// the time: the critical value plus the t quantile at 0.95 (the usual
	// sample-size approximation to the non-central t's power), times the
	// same standard error. Detect asks a little more of a change, that it
	// survive any one point left out (worstPValue), and reports a step of
	// this size in about 90% of histories (30 points of 2% noise, the step
	// in the middle: 90% and 92.5% of 1,000 seeds for a rise and a fall),
	// within two points of it in about 84%.
	Reliable float64
}

// DetectableStep measures values' noise and the smallest relative steps
// Detect can find in it at settings s (see Detectability).
//
// It errs where Detect does; when the history or the window has too few
// points for a t-test with a point to spare each side (fewer than 4, or
// than 2·MinSegment), or the segments leave no residual; and when the
// current level is 0, where no relative step exists.
func DetectableStep(values []float64, s Settings) (Detectability, error) {
	cps, err := Detect(values, s)
	if err != nil {
		return Detectability{}, err
	}
	s, _ = s.resolved() // Detect has checked s
	if n := min(s.Window, len(values)); n < 2*s.MinSegment || n < 4 {
		return Detectability{}, fmt.Errorf("changepoint: %d values, window %d: too few to measure noise and cut (want at least %d)",
			len(values), s.Window, max(2*s.MinSegment, 4))
	}
	noise, level, ok := residual(values, cps)
	switch {
	case !ok:
		return Detectability{}, errors.New("changepoint: the segments leave no residual to measure noise by")
	case level == 0:
		return Detectability{}, errors.New("changepoint: the current level is 0: no relative step exists")
	}
	d := Detectability{Noise: noise / math.Abs(level), PerSide: min(s.Window, len(values)) / 2}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(2*d.PerSide - 2)}
	se := d.Noise * math.Sqrt(2/float64(d.PerSide))
	critical := t.Quantile(1 - s.PValue/2)
	d.Threshold = critical * se
	d.Reliable = (critical + t.Quantile(0.95)) * se
	return d, nil
}

// residual is the pooled standard deviation of values about the means of
// the segments cps make, and the mean of the last segment; ok is false
// when there are no more points than segments.
func residual(values []float64, cps []ChangePoint) (sd, lastMean float64, ok bool) {
	bounds := make([]int, 0, len(cps)+2)
	bounds = append(bounds, 0)
	for _, c := range cps {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, len(values))
	var ss float64
	for i := 0; i+1 < len(bounds); i++ {
		seg := sampleOf(values[bounds[i]:bounds[i+1]])
		ss += seg.ss
		lastMean = seg.mean
	}
	df := len(values) - (len(bounds) - 1)
	if df < 1 {
		return 0, lastMean, false
	}
	return math.Sqrt(ss / float64(df)), lastMean, true
}
