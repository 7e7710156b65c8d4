package sysbench

import (
	"io"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/pace"
)

// intervalSink prints sysbench's intermediate lines (--report-interval) on
// the engine's ticks. Ticks fall on whole seconds from the start, and warm-up
// and the report interval are whole seconds, so every report boundary
// (warm-up end + k·interval, spec §9.2) is a tick. Rates are the counters'
// differences since the previous line over the time really elapsed; the
// percentile is over the events of the interval only.
//
// sysbench's first line after a warm-up divides by warm-up + interval
// (spec §8.3); this one divides by the interval, as every later line does.
type intervalSink struct {
	w       io.Writer
	o       *Options
	wl      *Workload
	poisson *pace.Poisson // set with --rate: its queue is reported

	measureStart time.Time
	lastAt       time.Time
	last         Totals
	lastHist     sbCounts
	iv           sbCounts
}

var _ bench.Sink = (*intervalSink)(nil)

// Begin notes when the measurement starts (after warm-up).
func (s *intervalSink) Begin(info *bench.RunInfo) error {
	s.measureStart = info.Start.Add(time.Duration(s.o.Warmup) * time.Second)
	s.lastAt = s.measureStart
	return nil
}

// Tick prints a line when a report boundary is reached.
func (s *intervalSink) Tick(iv *bench.Interval) error {
	n := s.o.ReportInterval
	if n <= 0 || iv.Final {
		return nil
	}
	since := int64(iv.Index+1) - s.o.Warmup // whole seconds of measurement at this tick
	if since <= 0 || since%n != 0 {
		return nil
	}
	now := time.Now()
	el := now.Sub(s.lastAt).Seconds()
	if el <= 0 {
		return nil
	}
	cur := s.wl.Totals(false)
	hist := histogram(s.wl.stats)
	d := cur.sub(s.last)
	s.iv.sub(hist, &s.lastHist)
	line := &Interval{
		Seconds: now.Sub(s.measureStart).Seconds(), Threads: s.running(),
		TPS: float64(d.Events) / el, QPS: float64(d.Queries()) / el,
		Read: float64(d.Reads) / el, Write: float64(d.Writes) / el, Othr: float64(d.Other) / el,
		Percentile: s.o.Percentile, ErrPS: float64(d.Errors) / el, ReconnPS: float64(d.Reconnects) / el,
	}
	if s.o.Percentile > 0 {
		line.LatencyMs = s.iv.percentile(s.o.Percentile)
	}
	if s.poisson != nil {
		line.Rated = true
		line.Queue = int64(s.poisson.Len())
		for _, w := range s.wl.stats {
			if w.busy.Load() {
				line.Concurrency++
			}
		}
	}
	WriteInterval(s.w, line)
	s.last, s.lastHist, s.lastAt = cur, *hist, now
	return nil
}

// End prints nothing: the final report follows the run.
func (s *intervalSink) End(*bench.Result) error { return nil }

func (s *intervalSink) running() int {
	n := 0
	for _, w := range s.wl.stats {
		if w.running.Load() {
			n++
		}
	}
	return n
}
