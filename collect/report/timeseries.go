package report

import (
	"errors"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record/repetition"
)

// run is one run of a workload's phases (the workload's own, or one
// repetition's), as time series over its intervals.
type run struct {
	Name   string // "" for a workload without repetitions, else r1, r2, …
	Points []tickPoint
	// Breaks are the indices of Points where a phase after the first
	// begins: nothing was measured between the phases.
	Breaks []int
	Bands  []Band
	// Spectral marks the run the spectrum is drawn from (the workload's
	// figures', its median repetition when repeated); Spectrum is its
	// measured phase's spectrum, per operation.
	Spectral bool
	Spectrum []collect.SpectrumOp
}

// tickPoint is one interval of a phase, summed over agents and operations.
type tickPoint struct {
	At         float64 // seconds from the run's first phase's start to the interval's end
	Throughput float64 // measurements per second (successes and errors)
	P50, P99   float64 // ms, over every operation
}

// timeSeriesOf takes the series of a workload's phases, or of each of its
// repetitions, from series.json (series); a phase it does not hold (a
// run collected before collect wrote the file) is read from its records
// by collect's own reading, which then decodes every tick once.
func timeSeriesOf(runDir string, w *collect.WorkloadResult, series *collect.Series) ([]run, error) {
	var out []run
	var errs []error
	if len(w.Repetitions) == 0 {
		r, err := runOf("", w.Phases, true, runDir, w.Name, series)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.Name, err))
		}
		if len(r.Points) > 0 {
			out = append(out, r)
		}
		return out, errors.Join(errs...)
	}
	for _, rep := range w.Repetitions {
		r, err := runOf(fmt.Sprintf("r%d", rep.Index), rep.Phases, rep.Index == w.MedianRepetition, runDir, repetition.Stem(w.Name, rep.Index), series)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s r%d: %w", w.Name, rep.Index, err))
		}
		if len(r.Points) > 0 {
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}

// runOf turns the series of each phase (named by stem) into points, one
// per interval, timed from the earliest agent's start of the first
// phase; with spectral, it keeps the measured phase's spectrum.
func runOf(name string, phases []collect.PhaseResult, spectral bool, runDir, stem string, series *collect.Series) (run, error) {
	r := run{Name: name, Spectral: spectral}
	var origin time.Time
	var errs []error
	for _, ph := range phases {
		measured := spectral && ph.Phase == measuredPhase
		sp := series.Phase(stem, ph.Phase)
		if sp == nil {
			sp = collect.PhaseSeriesOf(runDir, stem, ph.Phase, measured)
		}
		errs = append(errs, sp.Errors()...)
		if sp.Origin != nil && (origin.IsZero() || sp.Origin.Before(origin)) {
			origin = *sp.Origin
		}
		if measured {
			r.Spectrum = append(r.Spectrum, sp.Spectrum...)
		}
		r.addPhase(ph.Phase, origin, sp.Intervals())
	}
	return r, errors.Join(errs...)
}

// addPhase adds a phase's intervals as points, its span and warm-up as
// bands.
func (r *run) addPhase(phase string, origin time.Time, ivs []collect.Interval) {
	if len(ivs) == 0 {
		return
	}
	first, last := ivs[0], ivs[len(ivs)-1]
	r.Bands = append(r.Bands, Band{Label: phase, From: secondsFrom(origin, first.Start), To: secondsFrom(origin, last.End)})
	if len(r.Points) > 0 {
		r.Breaks = append(r.Breaks, len(r.Points))
	}
	var warm *Band
	for _, iv := range ivs {
		r.Points = append(r.Points, tickPoint{At: secondsFrom(origin, iv.End), Throughput: iv.Rate,
			P50: float64(iv.P50US) / 1000, P99: float64(iv.P99US) / 1000})
		if !iv.Warmup {
			continue
		}
		if warm == nil {
			r.Bands = append(r.Bands, Band{Label: phase + " warm-up", From: secondsFrom(origin, iv.Start), Warmup: true})
			warm = &r.Bands[len(r.Bands)-1]
		}
		warm.To = secondsFrom(origin, iv.End)
	}
}

func secondsFrom(origin, t time.Time) float64 { return t.Sub(origin).Seconds() }

// seriesName names a run's series: the figure, and the repetition when
// there are several.
func seriesName(figure string, r run) string {
	if r.Name == "" {
		return figure
	}
	if figure == "" {
		return r.Name
	}
	return figure + " " + r.Name
}

// throughputChart is the measurements per second of each interval, one
// series per repetition, phases and warm-up shaded (those of the first).
func throughputChart(workload string, runs []run) Chart {
	c := Chart{ID: workload + "-throughput", Title: workload + ": throughput over time", XLabel: "seconds from the start",
		YLabel: "measurements/s"}
	for _, r := range runs {
		s := Series{Name: r.Name, Breaks: r.Breaks}
		if s.Name == "" {
			s.Name = "throughput"
		}
		for _, p := range r.Points {
			s.X, s.Y = append(s.X, p.At), append(s.Y, p.Throughput)
		}
		c.Series = append(c.Series, s)
	}
	c.Bands, c.Note = bandsOf(runs)
	return c
}

// latencyChart is each interval's p50 and p99 over every operation.
func latencyChart(workload string, runs []run) Chart {
	c := Chart{ID: workload + "-latency", Title: workload + ": p50 and p99 latency over time", XLabel: "seconds from the start",
		YLabel: "ms, all operations"}
	for _, fig := range []string{"p50", "p99"} {
		for _, r := range runs {
			s := Series{Name: seriesName(fig, r), Breaks: r.Breaks}
			for _, p := range r.Points {
				y := p.P50
				if fig == "p99" {
					y = p.P99
				}
				s.X, s.Y = append(s.X, p.At), append(s.Y, y)
			}
			c.Series = append(c.Series, s)
		}
	}
	c.Bands, c.Note = bandsOf(runs)
	return c
}

// bandsOf shades the first run's phases and warm-up; the repetitions run
// the same phases for the same time, so their spans coincide.
func bandsOf(runs []run) ([]Band, string) {
	if len(runs) == 0 {
		return nil, "no tick records in the run directory"
	}
	note := ""
	if len(runs) > 1 {
		note = "repetitions drawn over each other from their own start; shaded: the phases and warm-up of " + runs[0].Name
	}
	return runs[0].Bands, note
}
