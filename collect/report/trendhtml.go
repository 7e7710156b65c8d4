package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/history/changepoint"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

//go:embed trend.html.tmpl
var trendTemplate string

var trendTmpl = template.Must(template.New("trend").Funcs(template.FuncMap{
	// link passes a report's link as it is: reportLink made it (a relative
	// path or a file:// URL), which html/template would otherwise refuse
	// for its scheme.
	"link": func(s string) template.URL { return template.URL(s) },
}).Parse(trendTemplate))

// htmlTrendChart is a trend chart as the template draws it: its SVG and a
// legend naming the line, the area and the marks with their colours, also
// as data attributes, which the browser test checks the drawing against.
type htmlTrendChart struct {
	TrendChart
	SVG      template.HTML
	Line     legendItem
	Area     legendItem
	Marks    []markItem
	Data     string
	AreaData string
	MarkData string
}

// markItem is a change mark in the legend.
type markItem struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
	Color string  `json:"color"`
	Worse bool    `json:"worse"`
}

type htmlTrendSeries struct {
	TrendSeries
	Charts []htmlTrendChart
}

// WriteHTML renders the trend page as one self-contained HTML file, as
// report.html is: inline CSS and SVG, no script, nothing fetched; its only
// links are to the runs' reports and within the page.
func (tp *TrendPage) WriteHTML(w io.Writer) error {
	data := struct {
		*TrendPage
		Series []htmlTrendSeries
	}{TrendPage: tp}
	for _, s := range tp.Series {
		hs := htmlTrendSeries{TrendSeries: s}
		for _, c := range s.Charts {
			hc, err := htmlTrendChartOf(c)
			if err != nil {
				return err
			}
			hs.Charts = append(hs.Charts, hc)
		}
		data.Series = append(data.Series, hs)
	}
	if err := trendTmpl.Execute(w, data); err != nil {
		return fmt.Errorf("trend page: %w", err)
	}
	return nil
}

// htmlTrendChartOf draws a chart and names what it drew.
func htmlTrendChartOf(c TrendChart) (htmlTrendChart, error) {
	hc := htmlTrendChart{TrendChart: c}
	if len(c.Series) == 0 || len(c.Series[0].X) == 0 {
		return hc, nil
	}
	svg, err := drawSVG(c.Chart)
	if err != nil {
		return hc, err
	}
	hc.SVG = template.HTML(svg) // gonum's own output, its text escaped by vgsvg
	s := c.Series[0]
	hc.Line = legendItem{Name: s.Name, Color: colorOf(0), Points: len(s.X)}
	if len(c.Areas) > 0 {
		hc.Area = legendItem{Name: c.Areas[0].Name, Color: hex(areaColor(0)), Points: len(c.Areas[0].X)}
	}
	hc.Marks = []markItem{}
	for _, m := range c.Marks {
		hc.Marks = append(hc.Marks, markItem{X: m.X, Label: m.Label, Color: hex(markColor(m)), Worse: m.Worse})
	}
	for _, v := range []struct {
		to   *string
		from any
	}{{&hc.Data, []legendItem{hc.Line}}, {&hc.AreaData, hc.Area}, {&hc.MarkData, hc.Marks}} {
		b, err := json.Marshal(v.from)
		if err != nil {
			return hc, err
		}
		*v.to = string(b)
	}
	return hc, nil
}

// WriteTrend writes the trend page of series to out (making its directory),
// each run's report linked from there; it returns the page's absolute path.
func WriteTrend(ss []*history.Series, set changepoint.Settings, out string) (string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	tp, err := BuildTrend(ss, set, abs)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := tp.WriteHTML(&b); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	if err := atomicfile.Write(abs, b.Bytes(), 0o644); err != nil {
		return "", err
	}
	return abs, nil
}
