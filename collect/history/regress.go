package history

import (
	"fmt"

	"github.com/ybbench/ybbench/collect/history/changepoint"
)

// Change is a change point of one figure of one series: the builds either
// side of it, the levels before and after (over the segments the test
// compared), the relative change with its 95% confidence interval, and its
// p-value.
type Change struct {
	Series string `json:"series"`
	Path   string `json:"path"`
	Figure string `json:"figure"`
	// Index is the series' point of the first run after the change.
	Index       int     `json:"index"`
	LastGood    Build   `json:"last_good"`
	FirstBad    Build   `json:"first_bad"`
	LastGoodRun string  `json:"last_good_run"`
	FirstBadRun string  `json:"first_bad_run"`
	MeanBefore  float64 `json:"mean_before"`
	MeanAfter   float64 `json:"mean_after"`
	// Change is (after − before) ÷ before, ChangeLow and ChangeHigh its 95%
	// confidence interval (NaN-free: 0 when the level before was 0).
	Change     float64 `json:"change"`
	ChangeLow  float64 `json:"change_low"`
	ChangeHigh float64 `json:"change_high"`
	PValue     float64 `json:"p_value"`
	// Worse says whether the figure got worse (less throughput, more
	// latency or errors).
	Worse bool `json:"worse"`
}

// Analysis is one figure of one series through the method: its change
// points, and the smallest step its noise lets the method find.
type Analysis struct {
	Series string   `json:"series"`
	Path   string   `json:"path"`
	Figure string   `json:"figure"`
	Points int      `json:"points"`
	Change []Change `json:"changes"`
	// Detectable is the smallest relative step found about half the time
	// at the series' measured noise, and Reliable the one found in about
	// nine histories of ten (0 when the series is too short to say).
	Detectable float64 `json:"detectable_step"`
	Reliable   float64 `json:"reliable_step"`
	Noise      float64 `json:"noise"`
	// Short says why the series is too short for the method ("" when it
	// is not).
	Short string `json:"short,omitempty"`
}

// MinPoints is the fewest points the method can cut: a segment of at
// least MinSegment either side.
func MinPoints(set changepoint.Settings) int {
	if set.MinSegment < 1 {
		set.MinSegment = changepoint.DefaultMinSegment
	}
	return 2 * set.MinSegment
}

// Analyze runs the method over one figure of a series (its medians per
// run, in build order).
func Analyze(s *Series, figure string, set changepoint.Settings) (Analysis, error) {
	vals, at := s.Values(figure)
	a := Analysis{Series: s.ID, Path: s.Key.Path(), Figure: figure, Points: len(vals), Change: []Change{}}
	if len(vals) < MinPoints(set) {
		a.Short = fmt.Sprintf("the method needs at least %d points", MinPoints(set))
		return a, nil
	}
	cps, err := changepoint.Detect(vals, set)
	if err != nil {
		return a, fmt.Errorf("series %s %s: %w", s.ID, figure, err)
	}
	for _, cp := range cps {
		before, after := s.Points[at[cp.Index-1]], s.Points[at[cp.Index]]
		c := Change{Series: s.ID, Path: s.Key.Path(), Figure: figure, Index: at[cp.Index],
			LastGood: before.Build, FirstBad: after.Build, LastGoodRun: before.RunID, FirstBadRun: after.RunID,
			MeanBefore: cp.MeanBefore, MeanAfter: cp.MeanAfter, PValue: cp.PValue,
			Worse: Worse(figure, cp.MeanBefore, cp.MeanAfter)}
		if cp.MeanBefore != 0 {
			c.Change, c.ChangeLow, c.ChangeHigh = cp.Change, cp.ChangeLow, cp.ChangeHigh
		}
		a.Change = append(a.Change, c)
	}
	if d, err := changepoint.DetectableStep(vals, set); err == nil {
		a.Detectable, a.Reliable, a.Noise = d.Threshold, d.Reliable, d.Noise
	}
	return a, nil
}
