package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/history/changepoint"
	"github.com/ybbench/ybbench/internal/golden"
)

// trendRuns is how many runs the trend fixture's series have, and
// trendStep the point of the first run after its step.
const trendRuns, trendStep = 12, 7

// trendPageDir is where the fixture's page is written, and trendRunsDir
// where its runs' reports were: a sibling, so the links are ../runs/….
const trendPageDir, trendRunsDir = "/srv/pages", "/srv/runs"

// trendSeries are the trend fixture: two series of twelve runs under
// builds b01…b12, three repetitions a run with 2% noise of a fixed seed.
// The throughput (the workload's, and its READ operation's) drops 30%
// from b08 on; the error rate is 0 throughout, READ's latencies do not
// change, and its run of b05 lacks p99. Run 1 recorded no report; runs 2 and 3 recorded one
// that is gone (reachable says which are there).
func trendSeries() []*history.Series {
	rng := rand.New(rand.NewPCG(30, 4))
	key := history.Key{Profile: "ycsb-ysql", Workload: "workloada", Flavor: "postgres", Hardware: "client 1×local, db 1×local",
		Clients: 1, Parameters: map[string]string{"records": "1000", "threads": "8"}}
	op := key
	op.Operation = "READ"
	ws, rs := &history.Series{Key: key, ID: key.ID()}, &history.Series{Key: op, ID: op.ID()}
	reps := func(level float64) []float64 {
		out := make([]float64, 3)
		for i := range out {
			out[i] = level * (1 + 0.02*rng.NormFloat64())
		}
		return out
	}
	for i := range trendRuns {
		run := fmt.Sprintf("run-%02d", i+1)
		p := history.SeriesPoint{RunID: run, Build: history.Build{ID: fmt.Sprintf("b%02d", i+1)}}
		if i > 0 {
			p.Report = filepath.Join(trendRunsDir, run, HTMLFile)
		}
		level := 5000.0
		if i >= trendStep {
			level *= 0.7
		}
		w, r := p, p
		w.Figures = map[string][]float64{"throughput": reps(level), "error_rate": {0, 0, 0}}
		r.Figures = map[string][]float64{"throughput": reps(level / 2), "p50": reps(800), "p99": reps(2500)}
		if i == 4 {
			delete(r.Figures, "p99")
		}
		ws.Points, rs.Points = append(ws.Points, w), append(rs.Points, r)
	}
	return []*history.Series{ws, rs}
}

// reachable says which of the fixture's reports are there: those of runs
// 4 on.
func reachable(p string) bool {
	run := filepath.Base(filepath.Dir(p))
	return run >= "run-04"
}

func trendFixture(t *testing.T) *TrendPage {
	t.Helper()
	tp, err := trendOf(trendSeries(), changepoint.DefaultSettings(), trendPageDir, reachable)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// trendText is the trend page's data as text: the method, the change
// points, and per series every chart's line, area, marks and note and
// every run's row.
func trendText(tp *TrendPage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "method: %s\nsettings: %+v\n", tp.Method, tp.Settings)
	for _, c := range tp.Changes {
		fmt.Fprintf(&b, "change %s %s (chart %s) at point %d: last good %s, first bad %s; %s → %s; %s; p %s; worse %v\n",
			c.Path, c.Figure, c.Chart, c.Index, c.LastGood.ID, c.FirstBad.ID, c.Before, c.After, c.Delta, c.PVal, c.Worse)
	}
	nums := func(vs []float64) string {
		var s []string
		for _, v := range vs {
			s = append(s, fmt.Sprintf("%.4g", v))
		}
		return strings.Join(s, " ")
	}
	for _, s := range tp.Series {
		fmt.Fprintf(&b, "# series %s %s: %s; figures %v\n", s.ID, s.Path, s.Describe, s.Figures)
		for _, c := range s.Charts {
			fmt.Fprintf(&b, "chart %s: %s; x %s, y %s; x labels %v\n", c.ID, c.Title, c.XLabel, c.YLabel, c.XLabels)
			for _, l := range c.Series {
				fmt.Fprintf(&b, "  line %s dots=%v: x %s\n    y %s\n", l.Name, l.Dots, nums(l.X), nums(l.Y))
			}
			for _, a := range c.Areas {
				fmt.Fprintf(&b, "  area %s: x %s\n    low %s\n    high %s\n", a.Name, nums(a.X), nums(a.Low), nums(a.High))
			}
			for _, m := range c.Marks {
				fmt.Fprintf(&b, "  mark at %g: %s worse=%v\n", m.X, m.Label, m.Worse)
			}
			fmt.Fprintf(&b, "  note: %s\n", c.Note)
		}
		for _, p := range s.Points {
			fmt.Fprintf(&b, "run %d %s %s: %s; report %q link %q\n", p.Place, p.Build, p.RunID, strings.Join(p.Medians, " | "), p.Report, p.Link)
		}
	}
	return b.String()
}

// svgElement is an inline SVG, which the page's golden file holds as a
// placeholder: the drawing is gonum's (checked apart, and in the browser).
var svgElement = regexp.MustCompile(`(?s)<svg .*?</svg>`)

func TestTrendGolden(t *testing.T) {
	tp := trendFixture(t)
	golden.Check(t, "trend.txt", []byte(trendText(tp)))
	var b bytes.Buffer
	if err := tp.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "trend.html", svgElement.ReplaceAll(b.Bytes(), []byte("<svg><!-- drawn by gonum/plot --></svg>")))
}

// TestTrendFigures checks the trend page against what its fixture is made
// of: a chart per series and figure, a point per run that has the figure,
// the area around the median, and a change point at b08 in each
// throughput (the workload's and READ's), none elsewhere.
func TestTrendFigures(t *testing.T) {
	tp := trendFixture(t)
	if len(tp.Changes) != 2 {
		t.Fatalf("changes %+v, want the two throughputs' one each", tp.Changes)
	}
	marked := map[string]bool{}
	for i, c := range tp.Changes {
		marked[c.Chart] = true
		if c.Chart != tp.Series[i].ID+"-throughput" || c.Index != trendStep || c.FirstBad.ID != "b08" || c.LastGood.ID != "b07" || !c.Worse ||
			c.ChangeLow > -0.3 || c.ChangeHigh < -0.3 {
			t.Errorf("change %+v", c)
		}
	}
	if tp.Settings != history.SettingsOf(changepoint.DefaultSettings()) || tp.Method != history.Method {
		t.Errorf("method %q settings %+v", tp.Method, tp.Settings)
	}
	want := map[string]int{"workloada throughput": trendRuns, "workloada error_rate": trendRuns,
		"workloada/READ throughput": trendRuns, "workloada/READ p50": trendRuns, "workloada/READ p99": trendRuns - 1}
	got := 0
	for _, s := range tp.Series {
		for _, ch := range s.Charts {
			got++
			n, ok := want[strings.TrimPrefix(s.Path, "ycsb-ysql/")+" "+ch.Figure]
			if !ok || len(ch.Series) != 1 || len(ch.Series[0].X) != n || len(ch.Areas) != 1 || len(ch.Areas[0].X) != n || len(ch.XLabels) != trendRuns {
				t.Errorf("%s: %d series, areas %d, labels %d; want one line and one area of %d points", ch.ID, len(ch.Series), len(ch.Areas), len(ch.XLabels), n)
				continue
			}
			for k := range ch.Areas[0].X {
				if a, y := ch.Areas[0], ch.Series[0].Y[k]; a.Low[k] > y || a.High[k] < y || a.X[k] != ch.Series[0].X[k] {
					t.Errorf("%s point %d: median %v outside %v–%v", ch.ID, k, y, a.Low[k], a.High[k])
				}
			}
			if marks := len(ch.Marks); marked[ch.ID] != (marks == 1) || marks > 1 {
				t.Errorf("%s: %d marks", ch.ID, marks)
			}
		}
		for _, p := range s.Points {
			if (p.Link != "") != (p.Place >= 4) || (p.Link != "" && p.Link != "../runs/"+p.RunID+"/report.html") {
				t.Errorf("%s run %s: link %q", s.Path, p.RunID, p.Link)
			}
		}
	}
	if got != len(want) {
		t.Errorf("%d charts, want %d", got, len(want))
	}
	if m, c := tp.Series[0].Charts[0].Marks, tp.Changes[0]; len(m) != 1 || m[0].X != trendStep || m[0].Label != "b08 "+fmt.Sprintf("%+.1f%%", 100*c.Change.Change) {
		t.Errorf("marks %+v", m)
	}
}

// TestTrendSelfContained: the page fetches nothing (no URL but its links
// to the runs' reports and within itself, no script) and has one SVG per
// chart.
func TestTrendSelfContained(t *testing.T) {
	tp := trendFixture(t)
	var b bytes.Buffer
	if err := tp.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, bad := range []string{"http:", "https:", "<script", "src=", "url(", "<?xml", "ZgotmplZ"} {
		if i := strings.Index(h, bad); i >= 0 {
			t.Errorf("the trend page holds %q: …%s…", bad, h[max(0, i-60):min(len(h), i+60)])
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(h, -1) {
		if !strings.HasPrefix(m[1], "#chart-") && !regexp.MustCompile(`^\.\./runs/run-\d\d/report\.html$`).MatchString(m[1]) {
			t.Errorf("a link to %s", m[1])
		}
	}
	if n := strings.Count(h, "<svg "); n != 5 {
		t.Errorf("%d SVGs, want 5 (two figures of the workload, three of READ)", n)
	}
}

// A report the page cannot reach by a relative path is linked by its
// file:// URL; a name that needs escaping is escaped; one not there is
// not linked.
func TestReportLink(t *testing.T) {
	yes := func(string) bool { return true }
	if got := reportLink("/srv/pages", "/srv/runs/a b#1/report.html", yes); got != "../runs/a%20b%231/report.html" {
		t.Errorf("escaped: %q", got)
	}
	if got := reportLink("/srv/pages", "/srv/runs/x/report.html", func(string) bool { return false }); got != "" {
		t.Errorf("not there: %q", got)
	}
	if got := reportLink("relative/dir", "/srv/runs/x/report.html", yes); got != "file:///srv/runs/x/report.html" {
		t.Errorf("no relative path: %q", got)
	}
}

// The drawing of a trend chart: the area as one unstroked polygon in its
// tint, along the lows and back along the highs; the median line with a
// dot per point; the mark as a dashed vertical line in its colour, its
// label drawn; the builds named under the x axis.
func TestTrendSVG(t *testing.T) {
	c := trendFixture(t).Series[0].Charts[0].Chart
	svg, err := drawSVG(c)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	paths := func(style string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<path d="([^"]*)"\s*style="([^"]*)"`).FindAllStringSubmatch(s, -1) {
			if strings.Contains(strings.ToUpper(m[2]), strings.ToUpper(style)) {
				out = append(out, m[1])
			}
		}
		return out
	}
	vertices := regexp.MustCompile(`[ML]`)
	if a := paths("fill:" + hex(areaColor(0))); len(a) != 1 || len(vertices.FindAllString(a[0], -1)) != 2*trendRuns {
		t.Errorf("area paths %q, want one of %d vertices", a, 2*trendRuns)
	}
	if l := paths("stroke:" + colorOf(0)); len(l) != 1 || len(vertices.FindAllString(l[0], -1)) != trendRuns {
		t.Errorf("line paths %q, want one of %d points", l, trendRuns)
	}
	if d := paths("fill:" + colorOf(0)); len(d) != trendRuns {
		t.Errorf("%d dots, want %d", len(d), trendRuns)
	}
	m := paths("stroke:" + hex(worseMark))
	if len(m) != 1 || !strings.Contains(s, "stroke-dasharray") {
		t.Fatalf("mark paths %q, want one dashed", m)
	}
	xs := regexp.MustCompile(`[ML]([-\d.e]+),`).FindAllStringSubmatch(m[0], -1)
	if len(xs) != 2 || xs[0][1] != xs[1][1] {
		t.Errorf("mark %q is not one vertical line", m[0])
	}
	for _, text := range append([]string{c.Marks[0].Label}, c.XLabels...) {
		if !strings.Contains(s, ">"+text+"</text>") {
			t.Errorf("no text %q in the drawing", text)
		}
	}
}
