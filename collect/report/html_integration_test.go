//go:build integration

package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/report/reporttest"
	"github.com/ybbench/ybbench/internal/testenv"
)

// chartDOM is what the browser finds of one chart: its legend (series,
// colour, points) and the d= of every stroked path of its SVG, with its
// stroke colour.
type chartDOM struct {
	ID     string       `json:"id"`
	Legend []legendItem `json:"legend"`
	Paths  []struct {
		Stroke string `json:"stroke"`
		D      string `json:"d"`
	} `json:"paths"`
}

const chartsJS = `Array.from(document.querySelectorAll('figure.chart')).map(f => ({
	id: f.id,
	legend: JSON.parse(f.dataset.series || '[]') || [],
	paths: Array.from(f.querySelectorAll('svg path')).map(p => ({stroke: p.style.stroke ? getComputedStyle(p).stroke : '', raw: p.getAttribute('style') || '', d: p.getAttribute('d') || ''})).map(p => ({stroke: (p.raw.match(/stroke:(#[0-9A-Fa-f]{6})/) || ['', ''])[1], d: p.d}))
}))`

var pathCommand = regexp.MustCompile(`[ML]`)

// caveatsDOM is where the browser drew the caveats, the verdict and the
// first chart (page coordinates, px) and the caveats' items' text.
type caveatsDOM struct {
	Items      []string `json:"items"`
	Height     float64  `json:"height"`
	Bottom     float64  `json:"bottom"`
	VerdictTop float64  `json:"verdictTop"`
	ChartTop   float64  `json:"chartTop"`
}

const caveatsJS = `(() => {
	const box = e => e.getBoundingClientRect();
	const c = document.querySelector('#caveats');
	return {items: Array.from(c.querySelectorAll('li')).map(l => l.textContent),
		height: box(c).height, bottom: box(c).bottom,
		verdictTop: box(document.querySelector('#verdict')).top,
		chartTop: box(document.querySelector('figure.chart')).top};
})()`

// fixtureResult is the result.json the synthetic run directory holds.
func fixtureResult(t *testing.T, dir string) *collect.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIntegrationHTMLInChromium opens the fixture's report.html in
// headless Chromium: it loads with no console error, exception or network
// request other than the file; each chart has one path per series with as
// many points as the fixture has ticks, percentiles or CPU intervals; a
// screenshot is kept for a person to look at.
func TestIntegrationHTMLInChromium(t *testing.T) {
	chromium := testenv.ChromiumFor(t)
	dir := t.TempDir()
	if err := writeSynth(dir, fixture); err != nil {
		t.Fatal(err)
	}
	page, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	p := reporttest.Open(t, chromium.Path, page, "#verdict")
	charts := reporttest.Evaluate[[]chartDOM](t, p, chartsJS)
	// The caveats, as the browser lays them out: shown, and above the
	// verdict and the first chart.
	caveats := reporttest.Evaluate[caveatsDOM](t, p, caveatsJS)
	if want := len(collect.CaveatsOf(fixtureResult(t, dir))); len(caveats.Items) != want || caveats.Height <= 0 ||
		caveats.Bottom > caveats.VerdictTop || caveats.Bottom > caveats.ChartTop {
		t.Errorf("caveats in the browser: %+v; want %d items, shown above the verdict and the first chart", caveats, want)
	}
	shot := p.Screenshot(t)
	if problems := p.Problems(); len(problems) > 0 {
		t.Errorf("console problems: %v", problems)
	}
	requests := p.Requests()
	for _, r := range requests {
		if r != url {
			t.Errorf("a network request for %s", r)
		}
	}
	if len(requests) == 0 {
		t.Error("the page's own request was not seen: the network listener heard nothing")
	}

	// What each chart must show, from the fixture's description.
	ticks := fixture.loadTicks + fixture.runTicks
	// The time series lift the pen between the load and run phases: a
	// path of theirs has two moves, one per phase.
	want := map[string]struct{ series, points, moves int }{
		"chart-workloada-throughput": {fixture.reps, ticks, 2},
		"chart-workloada-latency":    {2 * fixture.reps, ticks, 2},
		"chart-workloada-spectrum":   {len(fixture.ops), len(SpectrumQuantiles), 1},
		"chart-workloada-cpu":        {len(fixture.dbHosts), fixture.cpuSamples + 1, 1},
	}
	if len(charts) != len(want) {
		t.Fatalf("%d charts in the page, want %d", len(charts), len(want))
	}
	for _, c := range charts {
		w, ok := want[c.ID]
		if !ok {
			t.Errorf("unexpected chart %s", c.ID)
			continue
		}
		if len(c.Legend) != w.series {
			t.Errorf("%s: %d series, want %d", c.ID, len(c.Legend), w.series)
		}
		for _, s := range c.Legend {
			var mine []string
			for _, p := range c.Paths {
				if strings.EqualFold(p.Stroke, s.Color) {
					mine = append(mine, p.D)
				}
			}
			if len(mine) != 1 {
				t.Errorf("%s: series %s (%s) has %d paths, want 1", c.ID, s.Name, s.Color, len(mine))
				continue
			}
			if n := len(pathCommand.FindAllString(mine[0], -1)); n != w.points {
				t.Errorf("%s: series %s's path has %d points, want %d", c.ID, s.Name, n, w.points)
			}
			if n := strings.Count(mine[0], "M"); n != w.moves {
				t.Errorf("%s: series %s's path starts %d times, want %d", c.ID, s.Name, n, w.moves)
			}
		}
	}

	keepScreenshot(t, shot, "report-html.png")
}
