package report

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record/hist"
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
// workload's figures (its median repetition's) is merged on the way.
func timeSeriesOf(runDir string, w *collect.WorkloadResult) ([]run, error) {
	var out []run
	var errs []error
	if len(w.Repetitions) == 0 {
		r, err := runOf("", w.Phases, true, func(phase string) ([]collect.AgentFile, error) {
			return collect.AgentFiles(runDir, w.Name, phase)
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.Name, err))
		}
		if len(r.Points) > 0 {
			out = append(out, r)
		}
		return out, errors.Join(errs...)
	}
	for _, rep := range w.Repetitions {
		r, err := runOf(fmt.Sprintf("r%d", rep.Index), rep.Phases, rep.Index == w.MedianRepetition, func(phase string) ([]collect.AgentFile, error) {
			return collect.RepetitionAgentFiles(runDir, w.Name, rep.Index, phase)
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s r%d: %w", w.Name, rep.Index, err))
		}
		if len(r.Points) > 0 {
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}

// interval is one tick index of one phase, over its agents.
type interval struct {
	start, end time.Time
	rate       float64
	warmup     bool
	latency    *hist.Hist
}

// runOf turns the record files of each phase into points, one per tick
// index, timed from the earliest agent's start of the first phase; with
// spectrum, it keeps the measured phase's histograms per operation.
func runOf(name string, phases []collect.PhaseResult, spectrum bool, files func(string) ([]collect.AgentFile, error)) (run, error) {
	r := run{Name: name}
	if spectrum {
		r.Spectrum = map[string]*hist.Hist{}
	}
	var origin time.Time
	var errs []error
	for _, ph := range phases {
		afs, err := files(ph.Phase)
		if err != nil {
			errs = append(errs, err)
		}
		byIndex := map[int]*interval{}
		for _, af := range afs {
			if af.File.Meta != nil && (origin.IsZero() || af.File.Meta.Start.Before(origin)) {
				origin = af.File.Meta.Start
			}
			perAgent := map[int]float64{}
			for _, t := range af.File.Ticks {
				iv := byIndex[t.Index]
				if iv == nil {
					iv = &interval{start: t.Start, end: t.End, latency: hist.New()}
					byIndex[t.Index] = iv
				}
				if t.Start.Before(iv.start) {
					iv.start = t.Start
				}
				if t.End.After(iv.end) {
					iv.end = t.End
				}
				iv.warmup = iv.warmup || t.Warmup
				if secs := t.End.Sub(t.Start).Seconds(); secs > 0 {
					perAgent[t.Index] += float64(t.Count+t.Errors) / secs
				}
				if t.Service == "" {
					continue
				}
				h, err := hist.DecodeSparse(t.Service, t.Overflow)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: tick %d of %s: %w", af.Path, t.Index, t.Op, err))
					continue
				}
				iv.latency.MergeSparse(h)
				if spectrum && ph.Phase == measuredPhase && !t.Warmup {
					sh := r.Spectrum[t.Op]
					if sh == nil {
						sh = hist.New()
						r.Spectrum[t.Op] = sh
					}
					sh.MergeSparse(h)
				}
			}
			for i, v := range perAgent {
				byIndex[i].rate += v
			}
		}
		idx := make([]int, 0, len(byIndex))
		for i := range byIndex {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		if len(idx) == 0 {
			continue
		}
		first, last := byIndex[idx[0]], byIndex[idx[len(idx)-1]]
		r.Bands = append(r.Bands, Band{Label: ph.Phase, From: secondsFrom(origin, first.start), To: secondsFrom(origin, last.end)})
		if len(r.Points) > 0 {
			r.Breaks = append(r.Breaks, len(r.Points))
		}
		var warm *Band
		for _, i := range idx {
			iv := byIndex[i]
			r.Points = append(r.Points, tickPoint{At: secondsFrom(origin, iv.end), Throughput: iv.rate,
				P50: float64(iv.latency.Percentile(50)) / 1000, P99: float64(iv.latency.Percentile(99)) / 1000})
			if !iv.warmup {
				continue
			}
			if warm == nil {
				r.Bands = append(r.Bands, Band{Label: ph.Phase + " warm-up", From: secondsFrom(origin, iv.start), Warmup: true})
				warm = &r.Bands[len(r.Bands)-1]
			}
			warm.To = secondsFrom(origin, iv.end)
		}
	}
	return r, errors.Join(errs...)
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
