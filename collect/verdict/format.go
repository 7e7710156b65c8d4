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

// MeasuredText is a gate's measured figure as people read it, saying when
// it is the median of a repeated workload's repetitions: "512 µs (median
// of 3)".
func MeasuredText(g Gate) string {
	if g.Repetitions > 0 && g.Measured != nil {
		return fmt.Sprintf("%s (median of %d)", FormatFigure(g.Measured, g.Unit), g.Repetitions)
	}
	return FormatFigure(g.Measured, g.Unit)
}
