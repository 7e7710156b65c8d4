package verdict

import (
	"os"
	"strconv"

	"gopkg.in/yaml.v3"
)

// parseHistoryBaseline reads a history baseline: {dir: DIR, last: N}, the
// median of a directory's last runs, or {series: auto, window: N, url:
// URL, p_value: P, min_magnitude: M}, the change points of the run's own
// series in a history store.
func parseHistoryBaseline(b BaselineSpec, val *yaml.Node, fail func(int, string, string, ...any)) BaselineSpec {
	const want = "want {dir: DIR, last: N} or {series: auto, window: N}"
	if val.Kind != yaml.MappingNode {
		fail(val.Line, "baseline.history", want)
		return b
	}
	number := func(n *yaml.Node, field string, ok func(float64) bool, what string) float64 {
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || !ok(v) {
			fail(n.Line, "baseline.history."+field, "%q: want %s", n.Value, what)
		}
		return v
	}
	dirLine, seriesLine := 0, 0
	for i := 0; i+1 < len(val.Content); i += 2 {
		hk, hv := val.Content[i], val.Content[i+1]
		switch hk.Value {
		case "dir":
			b.Dir, dirLine = hv.Value, hk.Line
			if info, err := os.Stat(b.Dir); err != nil || !info.IsDir() {
				fail(hv.Line, "baseline.history.dir", "%q is not a directory", b.Dir)
			}
		case "last":
			n, err := strconv.Atoi(hv.Value)
			if err != nil || n < 1 {
				fail(hv.Line, "baseline.history.last", "%q: want a whole number of runs, at least 1", hv.Value)
			}
			b.Last = n
		case "series":
			b.Series, seriesLine = hv.Value, hk.Line
			if hv.Value != "auto" {
				fail(hv.Line, "baseline.history.series", "%q: want auto (the gated run's own series)", hv.Value)
			}
		case "url":
			b.URL = hv.Value
		case "window":
			b.Window = int(number(hv, "window", func(v float64) bool { return v >= 4 && v == float64(int(v)) }, "a whole number of builds, at least 4"))
		case "p_value":
			b.PValue = number(hv, "p_value", func(v float64) bool { return v > 0 && v < 1 }, "a level between 0 and 1, such as 0.001")
		case "min_magnitude":
			b.MinMagnitude = number(hv, "min_magnitude", func(v float64) bool { return v >= 0 }, "a relative change, at least 0 (0.05: 5%)")
		default:
			fail(hk.Line, "baseline.history."+hk.Value, "unknown field (known: dir, last; series, url, window, p_value, min_magnitude)")
		}
	}
	switch {
	case dirLine > 0 && seriesLine > 0:
		fail(seriesLine, "baseline.history.series", "given with dir: a history is a directory's median or a store's series, not both")
	case dirLine == 0 && seriesLine == 0:
		fail(val.Line, "baseline.history", "neither dir nor series: "+want)
	case seriesLine > 0 && b.Last != 0:
		fail(seriesLine, "baseline.history.last", "a store's series takes window, not last")
	case dirLine > 0 && (b.Window != 0 || b.URL != "" || b.PValue != 0 || b.MinMagnitude != 0):
		fail(dirLine, "baseline.history", "window, url, p_value and min_magnitude are a store series' (series: auto), not a directory's")
	}
	if dirLine > 0 && b.Last == 0 {
		b.Last = DefaultHistoryLast
	}
	return b
}
