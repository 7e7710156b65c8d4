package changepoint

import (
	"errors"
	"fmt"
	"math"
)

// The defaults. Window, PValue and MinMagnitude are Apache Otava's (Hunter's
// successor's) command-line defaults, so a history judged here and by Otava
// agrees; MinSegment is this package's own (Otava has none, in effect 1).
const (
	// DefaultWindow is Otava's: long enough that a 5% step in 2% noise
	// clears the t-test within one window, short enough that a window
	// rarely holds more than one or two steps.
	DefaultWindow = 50
	// DefaultPValue is Otava's. The t-test judges the best of tens of
	// cuts, so a stationary history's chance of a false change point is
	// above the nominal 0.001 (in 2% noise, over 2,000 seeds: 0.25% for
	// 30 points, 0.45% for 50; 1.6% for 200 over 500 seeds).
	DefaultPValue = 0.001
	// DefaultMinMagnitude is 0 (Otava's): significance alone decides, and
	// a team that cares only about changes above some size says so.
	DefaultMinMagnitude = 0.0
	// DefaultMinSegment is 2: the fewest builds in which a new level can
	// still be seen with one of them left out, as the outlier guard
	// (worstPValue) leaves them out. A one-point segment always fails the
	// guard, so 1 (Hunter's) adds only cuts that cannot be kept, and they
	// crowd out real ones in the first pass: on TigerBeetle's series the
	// drop at 15 comes out at 16. 3 makes a step among the newest builds
	// wait a build longer: a 10% drop two builds before the end of 30 in
	// 2% noise is found in 82% of seeds with 2 and in 13% with 3.
	DefaultMinSegment = 2
	// MaxWindow bounds the memory of one window's distance table
	// (8·(Window+1)² bytes: 32 MiB here). Long histories need no larger
	// window: the windows slide over them.
	MaxWindow = 2048
)

// Settings tune Detect and DetectableStep. A zero field takes its default,
// so Settings{} is the default configuration.
type Settings struct {
	// Window is the length of the sliding windows the first pass runs
	// E-divisive over; at least 2·MinSegment and at most MaxWindow. A
	// history shorter than Window is one window.
	Window int
	// PValue is the significance level a change point must reach in the
	// second pass, in (0, 1). The first pass keeps candidates at ten times
	// it (Otava's rule: twice it from 0.05, and it itself from 0.5).
	PValue float64
	// MinMagnitude is the smallest relative change reported, as
	// ChangePoint.Magnitude measures it (0.05 is 5%); at least 0.
	MinMagnitude float64
	// MinSegment is the fewest points a segment may have: no cut leaves
	// fewer on either side. At least 1.
	MinSegment int

	// otavaQuirks makes the four choices Otava makes differently (see
	// bestSplit, compare, merge and neighbours), so the package's tests
	// can check this is Otava's method by getting Otava's own tests'
	// answers exactly.
	otavaQuirks bool
}

// DefaultSettings is Settings{} with its defaults written out.
func DefaultSettings() Settings {
	return Settings{Window: DefaultWindow, PValue: DefaultPValue, MinMagnitude: DefaultMinMagnitude,
		MinSegment: DefaultMinSegment}
}

// resolved is s with zero fields set to their defaults, or an error naming
// the field out of range: a bad setting is the caller's mistake, and a
// silently corrected one would report change points for settings nobody
// chose.
func (s Settings) resolved() (Settings, error) {
	if s.Window == 0 {
		s.Window = DefaultWindow
	}
	if s.PValue == 0 {
		s.PValue = DefaultPValue
	}
	if s.MinSegment == 0 {
		s.MinSegment = DefaultMinSegment
	}
	switch {
	case s.MinSegment < 1:
		return s, fmt.Errorf("changepoint: MinSegment %d: want at least 1", s.MinSegment)
	case s.Window < 2*s.MinSegment || s.Window < 2:
		return s, fmt.Errorf("changepoint: Window %d: want at least 2·MinSegment (%d) and 2", s.Window, 2*s.MinSegment)
	case s.Window > MaxWindow:
		return s, fmt.Errorf("changepoint: Window %d: want at most %d", s.Window, MaxWindow)
	case !(s.PValue > 0 && s.PValue < 1):
		return s, fmt.Errorf("changepoint: PValue %g: want one in (0, 1)", s.PValue)
	case !(s.MinMagnitude >= 0) || math.IsInf(s.MinMagnitude, 1):
		return s, fmt.Errorf("changepoint: MinMagnitude %g: want a finite value of at least 0", s.MinMagnitude)
	}
	return s, nil
}

// firstPassPValue is the level the windows keep weak candidates at:
// Otava's rule, ten times PValue below 0.05, twice it below 0.5, else
// PValue itself (a level stays below 1).
func (s Settings) firstPassPValue() float64 {
	switch {
	case s.PValue < 0.05:
		return 10 * s.PValue
	case s.PValue < 0.5:
		return 2 * s.PValue
	}
	return s.PValue
}

// errNotFinite is returned for a history holding NaN or ±Inf. A missing
// build's figure is the caller's to drop or fill: filling it here would
// invent a measurement, and a NaN compares false with everything, so it
// would silently split or join segments.
var errNotFinite = errors.New("changepoint: the values hold NaN or ±Inf")

// checkFinite is errNotFinite, naming the first bad index, or nil.
func checkFinite(values []float64) error {
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w (index %d: %g)", errNotFinite, i, v)
		}
	}
	return nil
}
