package report

// Chart is one chart's data: its series and the spans shaded behind them.
type Chart struct {
	// ID names the chart in the page and its CSV file (<ID>.csv).
	ID     string
	Title  string
	XLabel string
	YLabel string
	// Nines draws x, a quantile q, on a log axis of 1/(1−q), labelled
	// 90%, 99%, 99.9%, …
	Nines bool
	// LogY draws y on a log axis (latencies across a sweep's steps).
	LogY   bool
	Series []Series
	Bands  []Band
	// Note is said under the chart (what it cannot show).
	Note string
}

// Series is one line of a chart: one path, one point per X.
type Series struct {
	Name string
	X, Y []float64
	// Breaks are indices of X where the line starts anew, not joined to
	// the point before: a pause between two phases, when nothing ran.
	Breaks []int
}

// Band is a shaded span of a time chart: a phase, or a warm-up.
type Band struct {
	Label    string
	From, To float64
	Warmup   bool
}
