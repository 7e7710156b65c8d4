package collect

import (
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect/sweep"
	"github.com/ybbench/ybbench/record/hist"
	"github.com/ybbench/ybbench/record/hostcpu"
	"github.com/ybbench/ybbench/record/repetition"
)

// SweepStem is the file name stem of step k of the sweep of stem (a
// workload, or a repetition of it), as the agents name the files:
// <workload>[-r<j>]-s<k>-run.jsonl.
func SweepStem(stem string, k int) string { return repetition.SweepStem(stem, k) }

// SweepStep reads step k of the sweep of stem w from its agents' files:
// its target (the agents' summed), achieved throughput, late share,
// errors and latencies from the intended start, over the whole step and
// each half of its ticks. ok is false when the step has no files.
func SweepStep(runDir, w string, k int) (s sweep.Step, ok bool, err error) {
	return sweepStep(runDir, w, k, nil)
}

// sweepStep is SweepStep, with what limited the step when lc is given.
func sweepStep(runDir, w string, k int, lc *limitContext) (s sweep.Step, ok bool, err error) {
	files, err := agentFiles(runDir, SweepStem(w, k), MeasuredPhase)
	if err != nil || len(files) == 0 {
		return s, false, err
	}
	p, err := Merge(files)
	if err != nil {
		return s, true, err
	}
	s = sweep.Step{Index: k, Target: p.TargetOpsPerSec, Achieved: steadyRate(files, p.Throughput)}
	whole, first, second := hist.New(), hist.New(), hist.New()
	mid := p.MeasureStart.Add(p.End.Sub(p.MeasureStart) / 2)
	var late int64
	for _, af := range files {
		for _, t := range af.File.Ticks {
			if t.Warmup {
				continue
			}
			enc, overflow := t.Response, t.ResponseOverflow
			if enc == "" {
				enc, overflow = t.Service, t.Overflow
			}
			if enc == "" {
				continue
			}
			h, err := hist.Decode(enc, overflow)
			if err != nil {
				return s, true, fmt.Errorf("%s: tick %d: %w", af.Path, t.Index, err)
			}
			whole.Merge(h)
			half := second
			if t.Start.Add(t.End.Sub(t.Start) / 2).Before(mid) {
				half = first
			}
			half.Merge(h)
		}
	}
	for _, af := range files {
		if e := af.File.End; e != nil && e.Stop == "error" && s.Stopped == "" {
			s.Stopped = af.Host + ": " + e.Error
		}
	}
	for _, m := range p.Measurements {
		late += m.Late
		s.Errors += m.Errors
	}
	if p.Ops > 0 {
		s.Late = float64(late) / float64(p.Ops)
	}
	s.P50, s.P95, s.P99, s.P999 = float64(whole.Percentile(50)), float64(whole.Percentile(95)), float64(whole.Percentile(99)), float64(whole.Percentile(99.9))
	if first.Count() > 0 && second.Count() > 0 {
		s.FirstHalfP99, s.SecondHalfP99 = float64(first.Percentile(99)), float64(second.Percentile(99))
	}
	if lc != nil {
		cpu, cerr := hostcpu.Read(runDir, SweepStem(w, k), MeasuredPhase)
		s.LimitedBy = limitOf(cpu, cerr, p, s.Achieved, 0, *lc).LimitedBy
	}
	return s, true, nil
}

// steadyRate is the agents' summed rate over their full ticks, the first
// and last of each agent left out: YCSB's throughput counts from the
// phase's start, before each thread's schedule begins (after its
// connection is made), and to its drained end, which a step of a few
// seconds would read as a rate behind its target. An agent with fewer
// than three ticks gives the phase's throughput (fallback) for all.
func steadyRate(files []AgentFile, fallback float64) float64 {
	var total float64
	for _, af := range files {
		first, last := -1, -1
		for _, t := range af.File.Ticks {
			if t.Warmup {
				continue
			}
			if first < 0 || t.Index < first {
				first = t.Index
			}
			last = max(last, t.Index)
		}
		if last-first < 2 {
			return fallback
		}
		var ops int64
		var from, to time.Time
		for _, t := range af.File.Ticks {
			if t.Warmup || t.Index == first || t.Index == last {
				continue
			}
			ops += t.Count + t.Errors
			if from.IsZero() || t.Start.Before(from) {
				from = t.Start
			}
			if t.End.After(to) {
				to = t.End
			}
		}
		if secs := to.Sub(from).Seconds(); secs > 0 {
			total += float64(ops) / secs
		}
	}
	return total
}

// SweepSteps reads the sweep of stem w (a workload, or a repetition of
// it): its plan and every planned step that has files, with its kind; nil
// when it was not swept.
func SweepSteps(runDir, w string) (*sweep.File, []sweep.Step, error) {
	return sweepSteps(runDir, w, nil)
}

// sweepSteps is SweepSteps, each step with what limited it when lc is
// given.
func sweepSteps(runDir, w string, lc *limitContext) (*sweep.File, []sweep.Step, error) {
	f, err := sweep.Read(runDir, w)
	if err != nil || f == nil {
		return nil, nil, err
	}
	var out []sweep.Step
	for _, pl := range f.Steps {
		s, ok, err := sweepStep(runDir, w, pl.Index, lc)
		if err != nil {
			return f, out, err
		}
		if !ok {
			continue // planned, not run (the sweep was cut off)
		}
		s.Kind, s.Extended = pl.Kind, pl.Extended
		if s.Target == 0 {
			s.Target = pl.Target
		}
		out = append(out, s)
	}
	return f, out, nil
}
