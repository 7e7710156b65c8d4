package collect

import "strings"

// SharedReasons are the reasons every row gives, when there are two rows
// or more: the reports say them once, above the table, rather than in
// every row's Why (a local run's six rows each repeated the same four).
func (r *Reproduction) SharedReasons() []Reason {
	if r == nil || len(r.Rows) < 2 {
		return nil
	}
	var shared []Reason
	for _, re := range r.Rows[0].Reasons {
		inAll := true
		for _, row := range r.Rows[1:] {
			if !hasReason(row.Reasons, re) {
				inAll = false
				break
			}
		}
		if inAll {
			shared = append(shared, re)
		}
	}
	return shared
}

// Why is a row's Why column beside the shared reasons: its own reasons, or
// where it has none beyond the shared ones, a pointer to them; a row with
// no reasons at all gives the figure furthest from the published.
func (row ReproducedRow) Why(shared []Reason) string {
	if len(row.Reasons) == 0 {
		return row.Worst
	}
	var own []string
	for _, re := range row.Reasons {
		if !hasReason(shared, re) {
			own = append(own, re.Text)
		}
	}
	switch {
	case len(own) == 0:
		return "the reasons every row gives (above)"
	case len(own) < len(row.Reasons):
		return "the reasons above, and " + strings.Join(own, "; ")
	}
	return strings.Join(own, "; ")
}

// ReasonTexts are the reasons' sentences joined, as the reports print them.
func ReasonTexts(rs []Reason) string {
	texts := make([]string, len(rs))
	for i, re := range rs {
		texts[i] = re.Text
	}
	return strings.Join(texts, "; ")
}

func hasReason(rs []Reason, want Reason) bool {
	for _, re := range rs {
		if re == want {
			return true
		}
	}
	return false
}
