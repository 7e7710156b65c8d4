package bench

import (
	"math"
	"runtime"
	"sync/atomic"
)

// Recorder is a worker's private measurement buffer. The worker that owns it
// is its only writer; the engine's ticker drains it ten times an interval
// (drainStep).
//
// A recorder holds raw samples rather than a histogram: a dense HDR histogram
// of the shared geometry is 184 KB, so per-worker histograms (double-buffered,
// per measurement, service and response) would cost ~200 MB at 256 threads
// for workload A alone, while a sample buffer costs 16 bytes per operation
// between two drains. The ticker folds the samples into HDR histograms, so the
// records and the summary are exactly what per-worker histograms merged on
// the tick would give.
//
// Recording takes no lock: the worker brackets each append with two atomic
// counters and the ticker swaps buffers and waits for an append in flight to
// finish (a writer-reader phaser).
type Recorder struct {
	// Recorders are allocated one by one, and their owners write to them
	// on every operation: the padding keeps two workers' recorders off
	// each other's cache lines.
	_   [cacheLine]byte
	clk *Clock

	// Set by the engine before each operation; read only by the owner.
	intended  int64 // clock ns the operation was meant to start
	scheduled bool  // a schedule is set: response time differs from service time
	late      bool  // the operation started later than LateAfter past its intended start
	warmupEnd int64 // operations ending before this are warm-up
	raw       bool  // keep each sample's end time for raw latency output

	active atomic.Uint32
	enter  atomic.Uint64
	exit   atomic.Uint64
	bufs   [2]sampleBuf

	discard atomic.Bool // set once in-flight operations are being cancelled

	// lastEnd is the end of the latest measurement and observed says one
	// was taken during the operation in progress: the engine takes the
	// operation's end from them rather than reading the clock again.
	lastEnd  int64
	observed bool

	_ [cacheLine]byte
}

// sample is one measurement. Latencies are whole microseconds, saturated at
// MaxUint32 (above the histogram range, which counts it as overflow).
type sample struct {
	svc, resp uint32 // service time (from the actual start), response time (from the intended start)
	n         uint32 // operations the measurement stands for (keys in a batch), usually 1
	op        Op
	st        Status
	flags     uint8
}

const (
	flagWarmup uint8 = 1 << iota
	flagLate
)

// NewRecorder returns a recorder outside any run, on a clock of its own: a
// test or a benchmark can drive one worker's operations with it. Its
// samples are kept until the process ends; nothing drains them.
func NewRecorder() *Recorder { return newRecorder(NewClock(), false, 0) }

func newRecorder(clk *Clock, raw bool, warmupEnd int64) *Recorder {
	return &Recorder{clk: clk, raw: raw, warmupEnd: warmupEnd}
}

// Now returns the engine clock in nanoseconds; a worker takes it just before
// the call it measures.
func (r *Recorder) Now() int64 { return r.clk.Now() }

// Intended returns the intended start of the operation in progress (clock ns).
func (r *Recorder) Intended() int64 { return r.intended }

// Observe records one measurement of op that started at start (from Now) and
// ends now, with result status st.
func (r *Recorder) Observe(op Op, st Status, start int64) { r.ObserveN(op, st, start, 1) }

// ObserveN records one measurement that stands for n operations (a batch of n
// keys: n counted, one latency).
func (r *Recorder) ObserveN(op Op, st Status, start int64, n int) {
	end := r.clk.Now()
	r.add(op, st, start, end, n)
}

// ObserveSpan records a measurement whose start and end were both taken by the
// worker (e.g. around a whole transaction it also measured in parts).
func (r *Recorder) ObserveSpan(op Op, st Status, start, end int64) { r.add(op, st, start, end, 1) }

func (r *Recorder) add(op Op, st Status, start, end int64, n int) {
	if r.discard.Load() {
		return
	}
	r.lastEnd, r.observed = end, true
	s := sample{svc: micros(end - start), n: uint32(n), op: op, st: st}
	if r.scheduled {
		s.resp = micros(end - r.intended)
	} else {
		s.resp = s.svc
	}
	if end < r.warmupEnd {
		s.flags |= flagWarmup
	}
	if r.late {
		s.flags |= flagLate
	}
	r.enter.Add(1)
	b := &r.bufs[r.active.Load()]
	b.push(s)
	if r.raw {
		b.ends = append(b.ends, end)
	}
	r.exit.Add(1)
}

func micros(ns int64) uint32 {
	us := ns / 1000
	switch {
	case us < 0:
		return 0
	case us > math.MaxUint32:
		return math.MaxUint32
	}
	return uint32(us)
}

// swap hands the buffer the worker has been writing to the caller and points
// the worker at the other one, which the caller emptied on the previous swap.
// Only the engine's ticker calls it.
func (r *Recorder) swap() *sampleBuf {
	old := r.active.Load()
	r.active.Store(1 - old)
	// An append that began before the store may still be writing into the
	// old buffer; wait for it. One that begins after sees the new index.
	for target := r.enter.Load(); r.exit.Load() < target; {
		runtime.Gosched()
	}
	return &r.bufs[old]
}
