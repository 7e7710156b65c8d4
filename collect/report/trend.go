package report

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/history/changepoint"
)

// TrendFile is the trend page's file name when none is given.
const TrendFile = "trend.html"

// TrendPage is everything the trend page shows, as data: each series'
// figures over its builds with the change points the method found, and
// every run's figures with a link to its own report. Like Page, it is
// built first and drawn after, so the data is golden-tested apart from
// its drawing.
type TrendPage struct {
	// Method and Settings are the change-point method as it was run,
	// printed beside its findings (a p-value means nothing without them).
	Method   string
	Settings history.Settings
	// Changes are every chart's change points, in the page's order.
	Changes []TrendChange
	Series  []TrendSeries
}

// TrendSeries is one series' section: a chart per figure and a row per run.
type TrendSeries struct {
	ID, Path string
	// Describe is the series' key in words: what makes its runs
	// comparable.
	Describe string
	Figures  []string
	Charts   []TrendChart
	Points   []TrendPoint
}

// TrendChart is one figure of a series over its builds, with the method's
// analysis of it.
type TrendChart struct {
	Chart
	Figure   string
	Unit     string
	Analysis history.Analysis
}

// TrendPoint is one run of a series as its table shows it.
type TrendPoint struct {
	// Place is the run's place in build order, from 1 (the chart's x is
	// Place−1).
	Place   int
	Build   string
	RunID   string
	Medians []string
	// Report is the run's report.html as the history recorded it; Link is
	// where the page links to it, "" when it was not there when the page
	// was written.
	Report, Link string
}

// TrendChange is one change point as the page's table shows it.
type TrendChange struct {
	history.Change
	// Chart is the id of the chart it is marked on.
	Chart                      string
	Before, After, Delta, PVal string
}

// BuildTrend gathers the trend page of series: every figure of each through
// the method with set, and each run's report linked from out's directory
// when it is on disk now.
func BuildTrend(ss []*history.Series, set changepoint.Settings, out string) (*TrendPage, error) {
	dir, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return nil, err
	}
	return trendOf(ss, set, dir, func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	})
}

// trendOf is BuildTrend with what is on disk given, for the tests.
func trendOf(ss []*history.Series, set changepoint.Settings, pageDir string, reachable func(string) bool) (*TrendPage, error) {
	tp := &TrendPage{Method: history.Method, Settings: history.SettingsOf(set)}
	for _, s := range ss {
		ts := TrendSeries{ID: s.ID, Path: s.Key.Path(), Describe: s.Key.Describe(), Figures: s.Figures()}
		for _, f := range ts.Figures {
			a, err := history.Analyze(s, f, set)
			if err != nil {
				return nil, err
			}
			c := trendChart(s, f, a)
			for _, ch := range a.Change {
				tp.Changes = append(tp.Changes, changeOf(ch, c.ID))
			}
			ts.Charts = append(ts.Charts, c)
		}
		for i, p := range s.Points {
			pt := TrendPoint{Place: i + 1, Build: p.Build.ID, RunID: p.RunID, Report: p.Report, Link: reportLink(pageDir, p.Report, reachable)}
			for _, f := range ts.Figures {
				pt.Medians = append(pt.Medians, medianText(p, f))
			}
			ts.Points = append(ts.Points, pt)
		}
		tp.Series = append(tp.Series, ts)
	}
	return tp, nil
}

// trendChart draws one figure of a series: x the runs' places in build
// order, named by their builds; the median of each run's repetitions as a
// line with a dot per run, their min–max as the area behind it, and each
// change point as a mark at its first bad build.
func trendChart(s *history.Series, figure string, a history.Analysis) TrendChart {
	unit := history.Unit(figure)
	c := Chart{ID: s.ID + "-" + figure, Title: fmt.Sprintf("%s %s by build", s.Key.Path(), figure),
		XLabel: "build, in build order", YLabel: fmt.Sprintf("%s (%s)", figure, unit)}
	line := Series{Name: "median of the repetitions", Dots: true}
	area := Area{Name: "min–max of the repetitions"}
	vals, at := s.Values(figure)
	for k, i := range at {
		vs := s.Points[i].Figures[figure]
		x := float64(i)
		line.X, line.Y = append(line.X, x), append(line.Y, vals[k])
		area.X, area.Low, area.High = append(area.X, x), append(area.Low, slices.Min(vs)), append(area.High, slices.Max(vs))
	}
	c.Series, c.Areas = []Series{line}, []Area{area}
	for _, p := range s.Points {
		c.XLabels = append(c.XLabels, p.Build.ID)
	}
	for _, ch := range a.Change {
		c.Marks = append(c.Marks, Mark{X: float64(ch.Index), Label: fmt.Sprintf("%s %+.1f%%", ch.FirstBad.ID, 100*ch.Change), Worse: ch.Worse})
	}
	c.Note = analysisNote(a, len(s.Points)-len(at))
	return TrendChart{Chart: c, Figure: figure, Unit: unit, Analysis: a}
}

// analysisNote says under a chart what the method could tell of it: too
// short to judge, or the noise and the smallest step it finds.
func analysisNote(a history.Analysis, without int) string {
	var parts []string
	if a.Short != "" {
		parts = append(parts, fmt.Sprintf("Too short to judge: %s", a.Short))
	} else {
		parts = append(parts, fmt.Sprintf("%d change point(s); noise %.1f%%; the smallest step found half the time %.1f%%, nine times in ten %.1f%%",
			len(a.Change), 100*a.Noise, 100*a.Detectable, 100*a.Reliable))
	}
	if without > 0 {
		parts = append(parts, fmt.Sprintf("%d run(s) without this figure, left out (the line joins their neighbours)", without))
	}
	return strings.Join(parts, ". ") + "."
}

// changeOf is a change point as the table prints it.
func changeOf(c history.Change, chart string) TrendChange {
	unit := history.Unit(c.Figure)
	return TrendChange{Change: c, Chart: chart,
		Before: history.Num(c.MeanBefore) + " " + unit, After: history.Num(c.MeanAfter) + " " + unit,
		Delta: fmt.Sprintf("%+.1f%% (95%% CI %+.1f%% … %+.1f%%)", 100*c.Change, 100*c.ChangeLow, 100*c.ChangeHigh),
		PVal:  fmt.Sprintf("%.2g", c.PValue)}
}

// medianText is a figure's median at a run, with how many repetitions it
// is of and their range; a dash where the run lacks the figure.
func medianText(p history.SeriesPoint, figure string) string {
	v, ok := p.Value(figure)
	if !ok {
		return "—"
	}
	vs := p.Figures[figure]
	if len(vs) == 1 {
		return history.Num(v)
	}
	return fmt.Sprintf("%s (×%d, %s–%s)", history.Num(v), len(vs), history.Num(slices.Min(vs)), history.Num(slices.Max(vs)))
}

// reportLink is the link from the page's directory to a run's report: a
// relative path, so that a page kept beside its runs (a CI artifact) still
// reaches them when moved with them, or a file:// URL where no relative
// path leads; "" when the report is not there.
func reportLink(pageDir, report string, reachable func(string) bool) string {
	if report == "" || !reachable(report) {
		return ""
	}
	abs, err := filepath.Abs(report)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(pageDir, abs)
	if err != nil {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	return (&url.URL{Path: filepath.ToSlash(rel)}).String()
}
