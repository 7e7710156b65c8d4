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

// OpenTrend loads a page from disk in headless Chromium and returns
// what TrendJS finds of it, a full-page screenshot, every request the
// page made and every console, log or exception problem.
func OpenTrend(t *testing.T, chromium, page string) (TrendDOM, []byte, []string, []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
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
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible("#changes")); err != nil {
		t.Fatal(err)
	}
	dom, err := chromedp.Run(ctx, chromedp.Evaluate[TrendDOM](TrendJS))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return dom, shot, append([]string(nil), requests...), append([]string(nil), problems...)
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
