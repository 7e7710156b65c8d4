package verdict

import "fmt"

// FormatFigure formats a gate's figure for people: four significant
// digits, whole numbers from 10⁴ on (37443, not 3.744e+04), "-" when
// absent.
func FormatFigure(p *float64, unit string) string {
	if p == nil {
		return "-"
	}
	s := fmt.Sprintf("%.4g", *p)
	if *p >= 1e4 || *p <= -1e4 {
		s = fmt.Sprintf("%.0f", *p)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

// MeasuredFigure is a gate's measured figure, or for a limited_by gate
// what the workload was limited by.
func MeasuredFigure(g Gate) string {
	if g.LimitedBy != "" {
		return g.LimitedBy
	}
	return FormatFigure(g.Measured, g.Unit)
}

// MeasuredText is a gate's measured figure as people read it, saying when
// it is the median of a repeated workload's repetitions: "512 µs (median
// of 3)".
func MeasuredText(g Gate) string {
	if g.LimitedBy != "" {
		return g.LimitedBy
	}
	if g.Repetitions > 0 && g.Measured != nil {
		return fmt.Sprintf("%s (median of %d)", FormatFigure(g.Measured, g.Unit), g.Repetitions)
	}
	return FormatFigure(g.Measured, g.Unit)
}
