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
	// Areas are y-ranges filled behind the series: a trend's spread of
	// repetitions around its median line.
	Areas []Area
	// Marks are labelled vertical lines over the series: a trend's change
	// points.
	Marks []Mark
	// XLabels name the x positions 0, 1, 2, … (a trend's builds, in build
	// order) instead of numbering them; nil leaves the axis numeric.
	XLabels []string
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
	// Dots marks each point with a dot: one run of a trend, which a line
	// alone does not show where it stands alone.
	Dots bool
}

// Band is a shaded span of a time chart: a phase, or a warm-up.
type Band struct {
	Label    string
	From, To float64
	Warmup   bool
}

// Area is a filled y-range: from Low to High at each X, the i-th area in
// a tint of the i-th series' colour (the spread around that line).
type Area struct {
	Name         string
	X, Low, High []float64
}

// Mark is a vertical line at X across the whole chart, labelled at its
// top: a change point, red where the figure got worse, green where better.
type Mark struct {
	X     float64
	Label string
	Worse bool
}
