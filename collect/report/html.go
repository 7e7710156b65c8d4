package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"time"
)

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"time": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
}).Parse(pageTemplate))

// htmlChart is a chart as the template draws it: its SVG, and a legend
// that names each series' colour and point count (which the browser test
// checks the drawing against).
type htmlChart struct {
	Chart
	SVG    template.HTML
	Legend []legendItem
	Bands  []htmlBand
	Data   string
}

// htmlBand is a shaded span with its shade, for the legend.
type htmlBand struct {
	Band
	Color string
}

type legendItem struct {
	Name   string `json:"name"`
	Color  string `json:"color"`
	Points int    `json:"points"`
}

type htmlWorkload struct {
	Workload
	Charts []htmlChart
}

// WriteHTML renders the page as one self-contained HTML file: inline CSS
// and SVG, no script, nothing fetched.
func (p *Page) WriteHTML(w io.Writer) error {
	data := struct {
		*Page
		Workloads []htmlWorkload
		CSVDir    string
	}{Page: p, CSVDir: CSVDir}
	for _, wl := range p.Workloads {
		hw := htmlWorkload{Workload: wl}
		for _, c := range wl.Charts {
			hc := htmlChart{Chart: c}
			if len(c.Series) > 0 {
				svg, err := drawSVG(c)
				if err != nil {
					return err
				}
				hc.SVG = template.HTML(svg) // gonum's own output, not user text
			}
			for i, s := range c.Series {
				hc.Legend = append(hc.Legend, legendItem{Name: s.Name, Color: colorOf(i), Points: len(s.X)})
			}
			for i, b := range c.Bands {
				hc.Bands = append(hc.Bands, htmlBand{Band: b, Color: hex(bandColor(i, b))})
			}
			b, err := json.Marshal(hc.Legend)
			if err != nil {
				return err
			}
			hc.Data = string(b)
			hw.Charts = append(hw.Charts, hc)
		}
		data.Workloads = append(data.Workloads, hw)
	}
	if err := tmpl.Execute(w, data); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	return nil
}
