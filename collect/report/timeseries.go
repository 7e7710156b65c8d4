package report

import (
	"errors"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record/hist"
	"github.com/ybbench/ybbench/record/repetition"
)

// run is one run of a workload's phases (the workload's own, or one
// repetition's), as time series over its ticks.
type run struct {
	Name   string // "" for a workload without repetitions, else r1, r2, …
	Points []tickPoint
	// Breaks are the indices of Points where a phase after the first
	// begins: nothing was measured between the phases.
	Breaks []int
	Bands  []Band
	// Spectrum is each operation's service times over the measured
	// phase's ticks after warm-up, merged over the agents, as
	// collect.Merge merges them; kept only for the run the spectrum is
	// drawn from.
	Spectrum map[string]*hist.Hist
}

// tickPoint is one interval of a phase, summed over agents and operations.
type tickPoint struct {
	At         float64 // seconds from the run's first phase's start to the interval's end
	Throughput float64 // measurements per second (successes and errors)
	P50, P99   float64 // ms, over every operation
}

// timeSeriesOf reads the tick records of a workload's phases, or of each
// of its repetitions. Each tick is decoded once: the spectrum of the
// workload's figures (its median repetition's) is merged on the way. The
// records are read a tick at a time, so that a run of hours costs its
// charts' points, not its ticks.
func timeSeriesOf(runDir string, w *collect.WorkloadResult) ([]run, error) {
	var out []run
	var errs []error
	dec := hist.NewDecoder()
	if len(w.Repetitions) == 0 {
		r, err := runOf("", w.Phases, true, runDir, w.Name, dec)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.Name, err))
		}
		if len(r.Points) > 0 {
			out = append(out, r)
		}
		return out, errors.Join(errs...)
	}
	for _, rep := range w.Repetitions {
		r, err := runOf(fmt.Sprintf("r%d", rep.Index), rep.Phases, rep.Index == w.MedianRepetition, runDir, repetition.Stem(w.Name, rep.Index), dec)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s r%d: %w", w.Name, rep.Index, err))
		}
		if len(r.Points) > 0 {
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}

// runOf turns the record files of each phase (named by stem) into points,
// one per tick index, timed from the earliest agent's start of the first
// phase; with spectrum, it keeps the measured phase's histograms per
// operation.
func runOf(name string, phases []collect.PhaseResult, spectrum bool, runDir, stem string, dec *hist.Decoder) (run, error) {
	r := run{Name: name}
	if spectrum {
		r.Spectrum = map[string]*hist.Hist{}
	}
	var origin time.Time
	var errs []error
	for _, ph := range phases {
		ps := phaseOf(runDir, stem, ph.Phase, &phaseReader{dec: dec, measured: spectrum && ph.Phase == measuredPhase})
		errs = append(errs, ps.errs...)
		if !ps.origin.IsZero() && (origin.IsZero() || ps.origin.Before(origin)) {
			origin = ps.origin
		}
		for op, h := range ps.spectrum {
			if sh := r.Spectrum[op]; sh != nil {
				sh.Merge(h)
			} else {
				r.Spectrum[op] = h
			}
		}
		r.addPhase(ph.Phase, origin, ps.intervals)
	}
	return r, errors.Join(errs...)
}

// phaseOf reads a phase's files a tick at a time, side by side, or whole
// when they cannot be read so.
func phaseOf(runDir, stem, phase string, pr *phaseReader) phaseSeries {
	streams, err := collect.OpenRecordStreams(runDir, stem, phase)
	if err == nil {
		ps, err := pr.stream(streams)
		collect.CloseRecordStreams(streams)
		if err == nil {
			return ps
		}
	}
	return pr.whole(collect.AgentFiles(runDir, stem, phase))
}

// addPhase adds a phase's intervals as points, its span and warm-up as
// bands.
func (r *run) addPhase(phase string, origin time.Time, ivs []interval) {
	if len(ivs) == 0 {
		return
	}
	first, last := ivs[0], ivs[len(ivs)-1]
	r.Bands = append(r.Bands, Band{Label: phase, From: secondsFrom(origin, first.start), To: secondsFrom(origin, last.end)})
	if len(r.Points) > 0 {
		r.Breaks = append(r.Breaks, len(r.Points))
	}
	var warm *Band
	for _, iv := range ivs {
		r.Points = append(r.Points, tickPoint{At: secondsFrom(origin, iv.end), Throughput: iv.rate,
			P50: float64(iv.p50) / 1000, P99: float64(iv.p99) / 1000})
		if !iv.warmup {
			continue
		}
		if warm == nil {
			r.Bands = append(r.Bands, Band{Label: phase + " warm-up", From: secondsFrom(origin, iv.start), Warmup: true})
			warm = &r.Bands[len(r.Bands)-1]
		}
		warm.To = secondsFrom(origin, iv.end)
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
