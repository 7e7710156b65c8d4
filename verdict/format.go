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
