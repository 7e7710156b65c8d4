// Package reporttest opens ybbench's pages in a real headless Chromium for
// the tests of more than one package: what the browser finds of the trend
// page, a screenshot, the requests the page made and its console problems.
package reporttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TrendDOM is what the browser finds of the trend page: each chart's
// legend data and its SVG's paths (d=, stroke and fill colours, dashed or
// not) and texts; the change table's rows; the runs' report links as the
// browser resolved them.
type TrendDOM struct {
	Charts []struct {
		ID     string       `json:"id"`
		Legend []LegendItem `json:"legend"`
		Area   LegendItem   `json:"area"`
		Marks  []MarkItem   `json:"marks"`
		Paths  []struct {
			D      string `json:"d"`
			Stroke string `json:"stroke"`
			Fill   string `json:"fill"`
			Dashed bool   `json:"dashed"`
		} `json:"paths"`
		Texts []string `json:"texts"`
	} `json:"charts"`
	Changes []struct {
		Chart string `json:"chart"`
		Class string `json:"class"`
	} `json:"changes"`
	Links   []string `json:"links"`
	Missing int      `json:"missing"`
}

const TrendJS = `(() => {
	const styleOf = (p, k) => ((p.getAttribute('style') || '').match(new RegExp('(?:^|;)' + k + ':(#[0-9A-Fa-f]{6})')) || ['', ''])[1].toUpperCase();
	return {
		charts: Array.from(document.querySelectorAll('figure.chart')).map(f => ({
			id: f.id,
			legend: JSON.parse(f.dataset.series || '[]') || [],
			area: JSON.parse(f.dataset.area || '{}') || {},
			marks: JSON.parse(f.dataset.marks || '[]') || [],
			paths: Array.from(f.querySelectorAll('svg path')).map(p => ({d: p.getAttribute('d') || '',
				stroke: styleOf(p, 'stroke'), fill: styleOf(p, 'fill'), dashed: (p.getAttribute('style') || '').includes('stroke-dasharray')})),
			texts: Array.from(f.querySelectorAll('svg text')).map(t => t.textContent),
		})),
		changes: Array.from(document.querySelectorAll('table[data-name=changes] tbody tr')).map(r => ({chart: r.dataset.chart, class: r.className})),
		links: Array.from(document.querySelectorAll('a.report')).map(a => a.href),
		missing: document.querySelectorAll('td .missing').length,
	};
})()`

// Page is a page open in headless Chromium: what it asked for over the
// network, and what its console, log and exceptions said.
type Page struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	requests []string
}

// Open loads a file in headless Chromium (closed at the test's end) and
// waits until the element visible names is shown, listening from before
// the load to every request and every console, log or exception problem.
func Open(t *testing.T, chromium, file, visible string) *Page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.Headless, chromedp.WindowSize(1200, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	p := &Page{ctx: ctx}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatal(err)
	}
	// Log and Network are enabled by chromedp on every tab; Runtime's
	// console events need asking for.
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.WaitVisible(visible)); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *Page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
			p.problems = append(p.problems, "console "+string(e.Type))
		}
	case *cdplog.EventEntryAdded:
		// The browser's own messages: a blocked or failed load, a
		// content-security-policy violation.
		if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
			p.problems = append(p.problems, "log: "+e.Entry.Text)
		}
	case *runtime.EventExceptionThrown:
		p.problems = append(p.problems, "exception: "+e.ExceptionDetails.Text)
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, e.Request.URL)
	}
}

// Requests are the URLs the page asked for so far.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Problems are the console, log and exception problems so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Screenshot is the whole page as a PNG.
func (p *Page) Screenshot(t *testing.T) []byte {
	t.Helper()
	shot, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	return shot
}

// Evaluate is what a script's value reads as in T.
func Evaluate[T any](t *testing.T, p *Page, js string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// OpenTrend loads a trend page and returns what TrendJS finds of it, a
// full-page screenshot, every request the page made and every console,
// log or exception problem.
func OpenTrend(t *testing.T, chromium, page string) (TrendDOM, []byte, []string, []string) {
	t.Helper()
	p := Open(t, chromium, page, "#changes")
	dom := Evaluate[TrendDOM](t, p, TrendJS)
	return dom, p.Screenshot(t), p.Requests(), p.Problems()
}

// LegendItem is a line or band of a chart as the page's data names it.
type LegendItem struct {
	Name   string `json:"name"`
	Color  string `json:"color"`
	Points int    `json:"points"`
}

// MarkItem is a change point's mark as the page's data names it.
type MarkItem struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
	Color string  `json:"color"`
	Worse bool    `json:"worse"`
}
