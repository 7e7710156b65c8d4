package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// What a trend chart adds to drawSVG's drawing: the spread of each run's
// repetitions as a filled area, a dot per run, the change points as
// labelled vertical lines, and an x axis that names the builds. A chart
// with none of them is drawn exactly as before (report.html's charts).

// Colours of the change marks: the gates' fail and pass shades, darker.
var (
	worseMark  = color.RGBA{0xc0, 0x1f, 0x1f, 0xff}
	betterMark = color.RGBA{0x1e, 0x8c, 0x3a, 0xff}
)

// markColor is the colour of a change mark.
func markColor(m Mark) color.RGBA {
	if m.Worse {
		return worseMark
	}
	return betterMark
}

// areaColor is the i-th area's fill: the i-th series' colour mixed with
// three parts of white, light enough for the line to read over it.
func areaColor(i int) color.RGBA {
	c := palette[i%len(palette)]
	mix := func(v uint8) uint8 { return uint8((int(v) + 3*0xff) / 4) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// addAreas adds each area as one polygon, along its lows and back along
// its highs, unstroked, behind whatever is added after it.
func addAreas(p *plot.Plot, c Chart) error {
	for i, a := range c.Areas {
		if len(a.X) == 0 {
			continue
		}
		if len(a.Low) != len(a.X) || len(a.High) != len(a.X) {
			return fmt.Errorf("%s: area %s: %d x, %d lows, %d highs", c.ID, a.Name, len(a.X), len(a.Low), len(a.High))
		}
		xys := make(plotter.XYs, 0, 2*len(a.X))
		for j := range a.X {
			xys = append(xys, plotter.XY{X: a.X[j], Y: a.Low[j]})
		}
		for j := len(a.X) - 1; j >= 0; j-- {
			xys = append(xys, plotter.XY{X: a.X[j], Y: a.High[j]})
		}
		poly, err := plotter.NewPolygon(xys)
		if err != nil {
			return fmt.Errorf("%s: area %s: %w", c.ID, a.Name, err)
		}
		poly.LineStyle.Width = 0
		poly.Color = areaColor(i)
		p.Add(poly)
	}
	return nil
}

// addDots adds a filled dot at each of a series' points, in its colour.
func addDots(p *plot.Plot, id string, s Series, xys plotter.XYs, col color.Color) error {
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("%s: series %s: %w", id, s.Name, err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	return nil
}

// markLines draws a chart's marks over its series: each a dashed line
// from the bottom of the plotting area to its top, its label beside the
// line's top (to the left of a line in the right fifth, so that it stays
// inside), labels of neighbouring marks on lines of their own.
type markLines []Mark

// Plot implements plot.Plotter.
func (ms markLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := draw.TextStyle{Font: font.From(plot.DefaultFont, vg.Points(9)), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	gap := vg.Points(3)
	for i, m := range ms {
		x := trX(m.X)
		line := draw.LineStyle{Color: markColor(m), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
		c.StrokeLine2(line, x, c.Min.Y, x, c.Max.Y)
		sty.Color = markColor(m)
		sty.XAlign = draw.XLeft
		at := vg.Point{X: x + gap, Y: c.Max.Y - gap - vg.Length(i%3)*sty.Font.Size*1.3}
		if x > c.Min.X+(c.Max.X-c.Min.X)*4/5 {
			sty.XAlign, at.X = draw.XRight, x-gap
		}
		c.FillText(sty, at, m.Label)
	}
}

// maxBuildLabels is how many builds the x axis names at most; beyond it
// every k-th is named (the table under the chart names them all).
const maxBuildLabels = 24

// buildTicks names the x positions 0, 1, … with their builds: a major tick
// at every k-th, a minor one at the others.
type buildTicks []string

// Ticks implements plot.Ticker.
func (b buildTicks) Ticks(min, max float64) []plot.Tick {
	step := (len(b) + maxBuildLabels - 1) / maxBuildLabels
	var out []plot.Tick
	for i, label := range b {
		if float64(i) < min || float64(i) > max {
			continue
		}
		if i%step != 0 {
			label = ""
		} else if r := []rune(label); len(r) > 16 {
			label = string(r[:15]) + "…"
		}
		out = append(out, plot.Tick{Value: float64(i), Label: label})
	}
	return out
}

// trendAxes sets a trend chart's axes. x is the builds' axis: half a step
// of room either side, each build named under its position, slanted when
// the names would not fit side by side. y starts at 0 (drawSVG's), with
// room above the data for the marks' labels, which would otherwise be
// written over a line that steps up; a figure flat at 0 (no errors in any
// run) is drawn along the bottom of 0–1, not through the middle of the
// −1–1 gonum makes of an empty range.
func trendAxes(p *plot.Plot, c Chart) {
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
	if n := min(len(c.Marks), 3); n > 0 {
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.12 * float64(n)
	}
	labels := c.XLabels
	ticks := buildTicks(labels)
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	width := vg.Length(0)
	for _, t := range ticks.Ticks(p.X.Min, p.X.Max) {
		width += p.X.Tick.Label.Width(t.Label) + vg.Points(6)
	}
	if width > chartW*4/5 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
}
