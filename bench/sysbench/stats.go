package sysbench

import (
	"math"
	"sync/atomic"
)

// counters are sysbench's counters of one worker over one span (warm-up or
// measured). The worker is their only writer; readers load them at any time.
type counters struct {
	events, reads, writes, other atomic.Int64
	errors, reconnects, lost     atomic.Int64
	// latency of the events in ns: sum, min (MaxInt64 when none), max
	latSum, latMin, latMax atomic.Int64
}

func (c *counters) init() { c.latMin.Store(math.MaxInt64) }

// add folds one finished event into the counters.
func (c *counters) add(t *tally, latNs int64) {
	c.events.Add(1)
	c.addStatements(t)
	c.latSum.Add(latNs)
	if latNs < c.latMin.Load() {
		c.latMin.Store(latNs)
	}
	if latNs > c.latMax.Load() {
		c.latMax.Store(latNs)
	}
}

// addStatements folds an event's statement counts in without the event
// (the statements of an event that ended the run).
func (c *counters) addStatements(t *tally) {
	c.reads.Add(t.reads)
	c.writes.Add(t.writes)
	c.other.Add(t.other)
	if t.errors != 0 {
		c.errors.Add(t.errors)
	}
	if t.reconnects != 0 {
		c.reconnects.Add(t.reconnects)
	}
	if t.lost != 0 {
		c.lost.Add(t.lost)
	}
}

// workerStats is one worker's sysbench bookkeeping, padded so that two
// workers never share a cache line.
type workerStats struct {
	_        [64]byte
	measured counters
	warmup   counters
	hist     sbHist // events after warm-up
	// busy is set while the worker runs an event (sysbench's concurrency).
	busy atomic.Bool
	// running is set from the worker's start to its end (thds).
	running atomic.Bool
	_       [64]byte
}

func newWorkerStats(n int) []*workerStats {
	ws := make([]*workerStats, n)
	for i := range ws {
		ws[i] = &workerStats{}
		ws[i].measured.init()
		ws[i].warmup.init()
	}
	return ws
}

// Totals are sysbench's counters summed over workers at one instant.
type Totals struct {
	Events, Reads, Writes, Other int64
	Errors, Reconnects, Lost     int64
	LatSumNs, LatMinNs, LatMaxNs int64
}

// Queries is read + write + other (errors excluded), sysbench's "queries".
func (t Totals) Queries() int64 { return t.Reads + t.Writes + t.Other }

func (t *Totals) add(c *counters) {
	t.Events += c.events.Load()
	t.Reads += c.reads.Load()
	t.Writes += c.writes.Load()
	t.Other += c.other.Load()
	t.Errors += c.errors.Load()
	t.Reconnects += c.reconnects.Load()
	t.Lost += c.lost.Load()
	t.LatSumNs += c.latSum.Load()
	if m := c.latMin.Load(); m < t.LatMinNs {
		t.LatMinNs = m
	}
	t.LatMaxNs = max(t.LatMaxNs, c.latMax.Load())
}

func (t Totals) sub(o Totals) Totals {
	return Totals{Events: t.Events - o.Events, Reads: t.Reads - o.Reads, Writes: t.Writes - o.Writes, Other: t.Other - o.Other,
		Errors: t.Errors - o.Errors, Reconnects: t.Reconnects - o.Reconnects, Lost: t.Lost - o.Lost}
}

// sum returns the measured (or warm-up) totals of all workers.
func sum(ws []*workerStats, warmup bool) Totals {
	t := Totals{LatMinNs: math.MaxInt64}
	for _, w := range ws {
		if warmup {
			t.add(&w.warmup)
		} else {
			t.add(&w.measured)
		}
	}
	if t.LatMinNs == math.MaxInt64 {
		t.LatMinNs = 0
	}
	return t
}

// histogram returns the workers' measured histograms merged.
func histogram(ws []*workerStats) *sbCounts {
	var c sbCounts
	for _, w := range ws {
		w.hist.addTo(&c)
	}
	return &c
}

// fairness is sysbench's Threads fairness: the mean and population standard
// deviation of the per-thread event counts and of the per-thread sums of
// event latencies (seconds).
func fairness(ws []*workerStats) (evAvg, evSD, timeAvg, timeSD float64) {
	n := float64(len(ws))
	if n == 0 {
		return 0, 0, 0, 0
	}
	var se, see, st, stt float64
	for _, w := range ws {
		e := float64(w.measured.events.Load())
		t := float64(w.measured.latSum.Load()) / 1e9
		se += e
		see += e * e
		st += t
		stt += t * t
	}
	evAvg, timeAvg = se/n, st/n
	evSD = math.Sqrt(math.Max(see/n-evAvg*evAvg, 0))
	timeSD = math.Sqrt(math.Max(stt/n-timeAvg*timeAvg, 0))
	return evAvg, evSD, timeAvg, timeSD
}

func (w *workerStats) countersFor(warmup bool) *counters {
	if warmup {
		return &w.warmup
	}
	return &w.measured
}
