//go:build integration

package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/history/changepoint"
	"github.com/ybbench/ybbench/collect/report/reporttest"
	"github.com/ybbench/ybbench/internal/testenv"
)

var (
	pathVertex = regexp.MustCompile(`[ML]([-\d.e]+),`)
	pathStart  = regexp.MustCompile(`M`)
)

// TestIntegrationTrendInChromium opens the trend page of the fixture's
// series in headless Chromium, their reports those of runs 4 on (real
// report.html files beside the page's directory): it loads with no
// console error and no request but the file's own; each series×figure has
// its chart, with one point per run in its median line, a dot per run,
// the min–max band as one filled polygon, and the change point marked by
// a dashed vertical line through the first bad build's point, labelled,
// where the data has one and nowhere else; the change table names those
// charts; each reachable report is linked, resolving to its file.
func TestIntegrationTrendInChromium(t *testing.T) {
	chromium := testenv.ChromiumFor(t)
	root := t.TempDir()
	runDir := filepath.Join(root, "fixture")
	if err := writeSynth(runDir, fixture); err != nil {
		t.Fatal(err)
	}
	rep, err := Write(runDir)
	if err != nil {
		t.Fatal(err)
	}
	ss := trendSeries()
	var wantLinks []string
	for _, s := range ss {
		for i := range s.Points {
			p := &s.Points[i]
			if p.Report == "" {
				continue
			}
			p.Report = filepath.Join(root, "runs", p.RunID, HTMLFile)
			if !reachable(p.Report) {
				continue
			}
			b, err := os.ReadFile(rep)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(p.Report), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p.Report, b, 0o644); err != nil {
				t.Fatal(err)
			}
			wantLinks = append(wantLinks, "file://"+p.Report)
		}
	}
	page, err := WriteTrend(ss, changepoint.DefaultSettings(), filepath.Join(root, "pages", TrendFile))
	if err != nil {
		t.Fatal(err)
	}
	dom, shot, requests, problems := reporttest.OpenTrend(t, chromium.Path, page)
	if len(problems) > 0 {
		t.Errorf("console problems: %v", problems)
	}
	url := "file://" + page
	for _, r := range requests {
		if r != url {
			t.Errorf("a network request for %s", r)
		}
	}
	if len(requests) == 0 {
		t.Error("the page's own request was not seen: the network listener heard nothing")
	}

	tp, err := BuildTrend(ss, changepoint.DefaultSettings(), page)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]TrendChart{}
	for _, s := range tp.Series {
		for _, c := range s.Charts {
			want["chart-"+c.ID] = c
		}
	}
	if len(dom.Charts) != len(want) || len(want) != 5 {
		t.Fatalf("%d charts in the page, want %d (one per series and figure)", len(dom.Charts), len(want))
	}
	marked := 0
	for _, c := range dom.Charts {
		w, ok := want[c.ID]
		if !ok {
			t.Errorf("unexpected chart %s", c.ID)
			continue
		}
		n := len(w.Series[0].X)
		var line, band, dots, marks []string
		for _, p := range c.Paths {
			switch {
			case len(c.Legend) == 1 && p.Stroke == strings.ToUpper(c.Legend[0].Color) && !p.Dashed:
				line = append(line, p.D)
			case p.Fill == strings.ToUpper(c.Area.Color):
				band = append(band, p.D)
			case len(c.Legend) == 1 && p.Fill == strings.ToUpper(c.Legend[0].Color):
				dots = append(dots, p.D)
			case p.Dashed && (p.Stroke == hex(worseMark) || p.Stroke == hex(betterMark)):
				marks = append(marks, p.D)
			}
		}
		if len(c.Legend) != 1 || c.Legend[0].Points != n || len(line) != 1 {
			t.Errorf("%s: legend %+v, %d line paths; want one line of %d points", c.ID, c.Legend, len(line), n)
			continue
		}
		xs := pathVertex.FindAllStringSubmatch(line[0], -1)
		if len(xs) != n || len(pathStart.FindAllString(line[0], -1)) != 1 {
			t.Errorf("%s: the median line has %d points, want %d", c.ID, len(xs), n)
		}
		if len(dots) != n {
			t.Errorf("%s: %d dots, want one per run (%d)", c.ID, len(dots), n)
		}
		if len(band) != 1 || len(pathVertex.FindAllString(band[0], -1)) != 2*n {
			t.Errorf("%s: band paths %q, want one polygon of %d vertices (lows, then highs back)", c.ID, band, 2*n)
		}
		if len(marks) != len(w.Marks) || len(c.Marks) != len(w.Marks) {
			t.Errorf("%s: %d mark lines, legend %+v; want %d", c.ID, len(marks), c.Marks, len(w.Marks))
			continue
		}
		for k, m := range w.Marks {
			marked++
			mx := pathVertex.FindAllStringSubmatch(marks[k], -1)
			// The mark stands at the first bad build: through the line's
			// point there (the fixture's runs all have the throughput).
			at := xs[int(m.X)][1]
			if len(mx) != 2 || !near(mx[0][1], at) || !near(mx[1][1], at) {
				t.Errorf("%s: mark %q is not a vertical line at x=%s (the point of build %s)", c.ID, marks[k], at, w.XLabels[int(m.X)])
			}
			if !strings.Contains(strings.Join(c.Texts, "\n"), m.Label) {
				t.Errorf("%s: no label %q in the drawing's texts %q", c.ID, m.Label, c.Texts)
			}
		}
		for _, b := range w.XLabels {
			if !strings.Contains("\n"+strings.Join(c.Texts, "\n")+"\n", "\n"+b+"\n") {
				t.Errorf("%s: build %s not named under the axis (texts %q)", c.ID, b, c.Texts)
			}
		}
	}
	if marked != len(tp.Changes) || len(dom.Changes) != len(tp.Changes) || marked != 2 {
		t.Errorf("%d marks, change table %+v; want %d", marked, dom.Changes, len(tp.Changes))
	}
	for i, c := range dom.Changes {
		if c.Chart != "chart-"+tp.Changes[i].Chart || c.Class != "worse" {
			t.Errorf("change row %d: %+v", i, c)
		}
	}
	// Every series' table links each reachable report, and says of the
	// others that they are not there (or none was recorded).
	if strings.Join(dom.Links, " ") != strings.Join(wantLinks, " ") {
		t.Errorf("report links %q, want %q", dom.Links, wantLinks)
	}
	if want := len(tp.Series)*trendRuns - len(wantLinks); dom.Missing != want {
		t.Errorf("%d runs said to have no report, want %d", dom.Missing, want)
	}
	keepScreenshot(t, shot, "trend-html.png")
}

// near reports whether two SVG coordinates are the same to a hundredth
// of a point (the mark and the line are drawn apart, each rounded).
func near(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x-y < 0.01 && y-x < 0.01
}

// keepScreenshot keeps a screenshot under testdata/out (ignored by git),
// where a person finds it after the test's temporary directory is gone.
func keepScreenshot(t *testing.T, shot []byte, name string) {
	t.Helper()
	out := filepath.Join("testdata", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	t.Logf("screenshot: %s", abs)
}
