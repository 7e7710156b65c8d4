//go:build integration

package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ybbench/ybbench/collect"
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
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium.Path), chromedp.NoSandbox,
		chromedp.Headless, chromedp.WindowSize(1200, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems, requests []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console "+string(e.Type))
			}
		case *cdplog.EventEntryAdded:
			// The browser's own messages: a blocked or failed load, a
			// content-security-policy violation.
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		}
	}); err != nil {
		t.Fatal(err)
	}
	// Log and Network are enabled by chromedp on every tab; Runtime's
	// console events need asking for.
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#verdict")); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartDOM](chartsJS))
	if err != nil {
		t.Fatal(err)
	}
	// The caveats, as the browser lays them out: shown, and above the
	// verdict and the first chart.
	caveats, err := chromedp.Run(ctx, chromedp.Evaluate[caveatsDOM](caveatsJS))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(collect.CaveatsOf(fixtureResult(t, dir))); len(caveats.Items) != want || caveats.Height <= 0 ||
		caveats.Bottom > caveats.VerdictTop || caveats.Bottom > caveats.ChartTop {
		t.Errorf("caveats in the browser: %+v; want %d items, shown above the verdict and the first chart", caveats, want)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("console problems: %v", problems)
	}
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

	// Kept under testdata/out (ignored by git), where a person finds it
	// after the test's temporary directory is gone.
	out := filepath.Join("testdata", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "report-html.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	t.Logf("screenshot: %s", abs)
}
