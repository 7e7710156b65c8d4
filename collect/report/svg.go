package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette colours the series of a chart, one colour each, so that a
// series is found in the drawing by its colour (the legend is the page's,
// not the drawing's). Beyond its length, colours repeat dashed.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xff, 0x7f, 0x0e, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0x00, 0x3f, 0x5c, 0xff}, {0x66, 0x00, 0x00, 0xff},
}

// Shades of the bands behind a time chart.
var (
	phaseShade  = color.RGBA{0xee, 0xee, 0xee, 0xff}
	phaseShade2 = color.RGBA{0xdd, 0xe6, 0xf0, 0xff}
	warmupShade = color.RGBA{0xfd, 0xe4, 0xc8, 0xff}
)

// bandColor is the shade of a chart's i-th band: warm-up in its own,
// phases alternating.
func bandColor(i int, b Band) color.RGBA {
	switch {
	case b.Warmup:
		return warmupShade
	case i%2 == 0:
		return phaseShade
	default:
		return phaseShade2
	}
}

// hex writes a colour as the SVG does.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// colorOf is the colour of a chart's i-th series, as the SVG writes it.
func colorOf(i int) string {
	return hex(palette[i%len(palette)])
}

// Chart size on the page.
const chartW, chartH = 24 * vg.Centimeter, 8 * vg.Centimeter

// svgHeader is what vgsvg writes before the <svg> element, which an
// inline SVG in HTML must not carry.
var svgHeader = regexp.MustCompile(`(?s)^.*?(<svg )`)

// svgNamespaces are the namespace declarations vgsvg writes.
var svgNamespaces = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)

// drawSVG draws a chart with gonum/plot: one line per series, bands and
// areas as filled polygons behind them, marks over them (svgtrend.go).
func drawSVG(c Chart) ([]byte, error) {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.Add(plotter.NewGrid())
	ymax := 0.0
	for _, s := range c.Series {
		for _, y := range s.Y {
			ymax = math.Max(ymax, y)
		}
	}
	if ymax == 0 {
		ymax = 1
	}
	top := ymax * 1.05
	for i, b := range c.Bands {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.From, Y: 0}, {X: b.To, Y: 0}, {X: b.To, Y: top}, {X: b.From, Y: top}})
		if err != nil {
			return nil, fmt.Errorf("%s: band %s: %w", c.ID, b.Label, err)
		}
		poly.LineStyle.Width = 0
		poly.Color = bandColor(i, b)
		p.Add(poly)
	}
	if err := addAreas(p, c); err != nil {
		return nil, err
	}
	for i, s := range c.Series {
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		l, err := newSegmentedLine(xys, s.Breaks)
		if err != nil {
			return nil, fmt.Errorf("%s: series %s: %w", c.ID, s.Name, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		if s.Dots {
			if err := addDots(p, c.ID, s, xys, l.Color); err != nil {
				return nil, err
			}
		}
	}
	if len(c.Marks) > 0 {
		p.Add(markLines(c.Marks))
	}
	p.Y.Min = 0
	if c.LogY {
		lo := math.Inf(1)
		for _, s := range c.Series {
			for _, y := range s.Y {
				if y > 0 {
					lo = math.Min(lo, y)
				}
			}
		}
		if math.IsInf(lo, 1) {
			lo = 1
		}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = lo/1.5, top
	}
	if c.Nines {
		p.X.Scale = ninesScale{}
		p.X.Tick.Marker = ninesTicks{}
		// A little beyond the last quantile, so that its label fits.
		p.X.Min, p.X.Max = 0, 1-(1-SpectrumQuantiles[len(SpectrumQuantiles)-1])/2
	}
	if c.XLabels != nil {
		trendAxes(p, c)
	}
	canvas := vgsvg.New(chartW, chartH)
	p.Draw(draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("%s: %w", c.ID, err)
	}
	out := svgHeader.ReplaceAll(b.Bytes(), []byte("$1"))
	// Inline SVG in HTML is in the SVG namespace without naming it; the
	// page names no URL at all.
	return svgNamespaces.ReplaceAll(out, nil), nil
}

// nines is a quantile's place on the nines axis: log10 of 1/(1−q), so
// that 90%, 99% and 99.9% are equally far apart.
func nines(q float64) float64 { return math.Log10(1 / (1 - q)) }

// ninesScale normalizes quantiles on the nines axis.
type ninesScale struct{}

// Normalize implements plot.Normalizer.
func (ninesScale) Normalize(min, max, x float64) float64 {
	lo, hi := nines(min), nines(max)
	return (nines(x) - lo) / (hi - lo)
}

// ninesTicks labels the nines axis: 0%, 50%, 90%, 99%, 99.9%, …
type ninesTicks struct{}

// Ticks implements plot.Ticker.
func (ninesTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range []struct {
		q     float64
		label string
	}{{0, "0%"}, {0.5, "50%"}, {0.9, "90%"}, {0.99, "99%"}, {0.999, "99.9%"}, {0.9999, "99.99%"}, {0.99999, "99.999%"}} {
		if t.q >= min && t.q <= max {
			out = append(out, plot.Tick{Value: t.q, Label: t.label})
		}
	}
	return out
}

// segmentedLine is a series drawn as one path that lifts the pen at its
// breaks, so that one phase's last point is not joined to the next phase's
// first across the pause between them (plotter.Line joins every point).
type segmentedLine struct {
	xys    plotter.XYs
	breaks []int
	draw.LineStyle
}

// newSegmentedLine refuses NaN and infinite points, as plotter.NewLine does.
func newSegmentedLine(xys plotter.XYs, breaks []int) (*segmentedLine, error) {
	for _, p := range xys {
		if err := plotter.CheckFloats(p.X, p.Y); err != nil {
			return nil, err
		}
	}
	return &segmentedLine{xys: xys, breaks: breaks, LineStyle: plotter.DefaultLineStyle}, nil
}

// Plot draws the line: a move to each segment's first point, a line to
// each of the others, in one stroked path.
func (l *segmentedLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	var path vg.Path
	next := 0
	for i, xy := range l.xys {
		pt := vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
		for next < len(l.breaks) && l.breaks[next] < i {
			next++
		}
		if i == 0 || (next < len(l.breaks) && l.breaks[next] == i) {
			path.Move(pt)
			continue
		}
		path.Line(pt)
	}
	if len(path) == 0 {
		return
	}
	c.SetLineStyle(l.LineStyle)
	c.Stroke(path)
}

// DataRange is the extent of the points, for the axes.
func (l *segmentedLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.xys)
}
