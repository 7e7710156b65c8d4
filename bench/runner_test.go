package bench

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/pace"
)

// fakeWorkload is an in-memory workload whose own counters are kept apart
// from the engine's, so the engine's accounting can be checked against them.
type fakeWorkload struct {
	calls    atomic.Int64 // Do calls that returned
	inits    atomic.Int64
	cleanups atomic.Int64
	perOp    int // measurements per Do (F-like when > 1)
	delay    time.Duration
	do       func(ctx context.Context, id int, n int64) error // optional behaviour
	failOn   int64                                            // status ERROR every failOn-th call
	onDo     func(rec *Recorder)                              // optional: sees the worker's recorder after each call
}

var fakeCatalog = &Catalog{
	Ops:      []string{"READ", "UPDATE", "READ-MODIFY-WRITE", "CLEANUP"},
	Statuses: []StatusDef{{"OK", true}, {"ERROR", false}},
	Cleanup:  3,
}

func (f *fakeWorkload) Name() string      { return "fake" }
func (f *fakeWorkload) Catalog() *Catalog { return fakeCatalog }
func (f *fakeWorkload) NewWorker(_ context.Context, id int, rec *Recorder) (Worker, error) {
	f.inits.Add(1)
	return &fakeWorker{f: f, id: id, rec: rec}, nil
}

type fakeWorker struct {
	f   *fakeWorkload
	id  int
	rec *Recorder
	n   int64
}

func (w *fakeWorker) Do(ctx context.Context) error {
	w.n++
	start := w.rec.Now()
	if w.f.delay > 0 {
		time.Sleep(w.f.delay)
	}
	var err error
	if w.f.do != nil {
		err = w.f.do(ctx, w.id, w.n)
	}
	st := StatusOK
	if w.f.failOn > 0 && w.n%w.f.failOn == 0 {
		st = 1
	}
	per := max(w.f.perOp, 1)
	for i := 0; i < per; i++ {
		w.rec.Observe(Op(i%3), st, start)
	}
	w.f.calls.Add(1)
	if w.f.onDo != nil {
		w.f.onDo(w.rec)
	}
	return err
}

func (w *fakeWorker) Cleanup(context.Context) error { w.f.cleanups.Add(1); return nil }

// countSink counts what the sinks see, independently of the result.
type countSink struct {
	mu       sync.Mutex
	ticks    int
	measured int64
	warm     int64
	final    bool
	ended    bool
}

func (s *countSink) Begin(*RunInfo) error { return nil }
func (s *countSink) Tick(iv *Interval) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ticks++
	for _, o := range iv.Measured {
		s.measured += o.Count() + o.Failed()
	}
	for _, o := range iv.Warmup {
		s.warm += o.Count() + o.Failed()
	}
	s.final = iv.Final
	return nil
}
func (s *countSink) End(*Result) error { s.ended = true; return nil }

func total(ops []*OpStats, skip int) int64 {
	var n int64
	for i, o := range ops {
		if i != skip {
			n += o.Count() + o.Failed()
		}
	}
	return n
}

func TestOperationCountIsSplitAcrossThreads(t *testing.T) {
	f := &fakeWorkload{failOn: 7}
	sink := &countSink{}
	res, err := Run(context.Background(), f, Config{Threads: 8, Operations: 10_003, Interval: 5 * time.Millisecond, Sinks: []Sink{sink}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || res.Stop != StopOperations {
		t.Fatalf("stop %s err %v", res.Stop, res.Err)
	}
	if got := f.calls.Load(); got != 10_003 || res.Ops != 10_003 {
		t.Fatalf("workload saw %d calls, result counts %d; want 10003", got, res.Ops)
	}
	if got := total(res.Totals, 3); got != 10_003 {
		t.Errorf("histograms hold %d measurements, want 10003", got)
	}
	if sink.measured != 10_003+8 || !sink.final || !sink.ended { // + one CLEANUP per thread
		t.Errorf("sink saw %d measurements (final %v ended %v), want 10011", sink.measured, sink.final, sink.ended)
	}
	if f.inits.Load() != 8 || f.cleanups.Load() != 8 || res.Totals[3].Count() != 8 {
		t.Errorf("inits %d cleanups %d CLEANUP samples %d, want 8 each", f.inits.Load(), f.cleanups.Load(), res.Totals[3].Count())
	}
	// Every 7th call of each worker failed: failures are counted, under their own histogram.
	var wantFailed int64
	for _, q := range Quotas(10_003, 8) {
		wantFailed += q / 7
	}
	if got := res.Totals[0].Failed(); got != wantFailed {
		t.Errorf("failed %d, want %d", got, wantFailed)
	}
	if got := res.Totals[0].Statuses[1]; got != wantFailed {
		t.Errorf("ERROR status count %d, want %d", got, wantFailed)
	}
}

func TestQuotasMatchYCSB(t *testing.T) {
	q := Quotas(10, 4)
	want := []int64{3, 3, 2, 2}
	for i := range q {
		if q[i] != want[i] {
			t.Fatalf("quotas %v, want %v", q, want)
		}
	}
}

func TestSeveralMeasurementsPerOperation(t *testing.T) {
	f := &fakeWorkload{perOp: 3}
	res, err := Run(context.Background(), f, Config{Threads: 4, Operations: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for op := 0; op < 3; op++ {
		if got := res.Totals[op].Count(); got != 1000 {
			t.Errorf("%s: %d measurements, want 1000", fakeCatalog.Ops[op], got)
		}
	}
	if res.Ops != 1000 {
		t.Errorf("ops %d, want 1000 outer operations", res.Ops)
	}
}

func TestDurationBoundsTheRun(t *testing.T) {
	f := &fakeWorkload{delay: time.Millisecond}
	res, err := Run(context.Background(), f, Config{Threads: 2, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopDuration {
		t.Fatalf("stop %s, want duration", res.Stop)
	}
	if res.Ops == 0 || res.Ops != f.calls.Load() {
		t.Fatalf("ops %d, workload calls %d", res.Ops, f.calls.Load())
	}
}

func TestWarmupIsMeasuredApartAndExcluded(t *testing.T) {
	f := &fakeWorkload{delay: time.Millisecond}
	sink := &countSink{}
	res, err := Run(context.Background(), f, Config{
		Threads: 2, Warmup: 300 * time.Millisecond, Duration: 300 * time.Millisecond,
		Interval: 100 * time.Millisecond, Sinks: []Sink{sink},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.WarmupOps == 0 || res.Ops == 0 {
		t.Fatalf("warm-up ops %d, measured ops %d: both must be > 0", res.WarmupOps, res.Ops)
	}
	if res.Ops+res.WarmupOps != f.calls.Load() {
		t.Errorf("ops %d + warm-up %d != workload calls %d", res.Ops, res.WarmupOps, f.calls.Load())
	}
	if got := total(res.WarmupTotals, 3); got != res.WarmupOps {
		t.Errorf("warm-up histograms hold %d, want %d", got, res.WarmupOps)
	}
	if got := total(res.Totals, 3); got != res.Ops {
		t.Errorf("measured histograms hold %d, want %d", got, res.Ops)
	}
	if res.RunTime >= res.End.Sub(res.Start) {
		t.Errorf("RunTime %v must exclude the warm-up (whole run %v)", res.RunTime, res.End.Sub(res.Start))
	}
	if sink.warm != res.WarmupOps {
		t.Errorf("sink saw %d warm-up measurements, want %d", sink.warm, res.WarmupOps)
	}
}

// With the warm-up excluded from the operation count, a bounded run does
// exactly the requested operations after warm-up.
func TestWarmupDoesNotUseTheQuota(t *testing.T) {
	f := &fakeWorkload{delay: 200 * time.Microsecond}
	res, err := Run(context.Background(), f, Config{Threads: 2, Operations: 300, Warmup: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 300 || res.WarmupOps == 0 || f.calls.Load() != 300+res.WarmupOps {
		t.Fatalf("ops %d warm-up %d calls %d", res.Ops, res.WarmupOps, f.calls.Load())
	}
}

// A schedule the database cannot keep up with: every operation is still
// executed, late ones are counted, and response time includes the lateness.
func TestTargetScheduleCountsLateOperations(t *testing.T) {
	f := &fakeWorkload{delay: 4 * time.Millisecond}
	res, err := Run(context.Background(), f, Config{
		Threads: 1, Operations: 40,
		Schedule: &pace.Target{OpsPerSec: 1000, Threads: 1}, // 1 ms apart, each takes 4 ms
	})
	if err != nil {
		t.Fatal(err)
	}
	read := res.Totals[0]
	if res.Ops != 40 || read.Count() != 40 {
		t.Fatalf("ops %d, reads %d; want 40", res.Ops, read.Count())
	}
	// Each operation takes at least 4 ms and they are due 1 ms apart: the
	// k-th starts at least 4k ms after the origin, 3k ms past its intended
	// start, and ends at least 3k + 4 ms after it. These are lower bounds,
	// which a slow machine only raises: every operation but the first is
	// late (by more than LateAfter, 1 ms), the median service time is at
	// least 4 ms, and the median response time at least 3 × 19 + 4 = 61 ms
	// (21 of the 40 operations, k = 19…39, are that late; HDR precision
	// takes less than 0.1 %).
	if read.Late < 39 {
		t.Errorf("late %d, want at least 39 of 40", read.Late)
	}
	if p50 := read.Service.Percentile(50); p50 < 3990 {
		t.Errorf("median service time %d µs, want at least the 4 ms each operation takes", p50)
	}
	if read.Response == nil {
		t.Fatal("no response times with a schedule")
	}
	if p50 := read.Response.Percentile(50); p50 < 60_000 {
		t.Errorf("median response time %d µs, want at least 61 ms: the lateness is not in it", p50)
	}
}

func TestPoissonScheduleRunsEveryEvent(t *testing.T) {
	f := &fakeWorkload{}
	res, err := Run(context.Background(), f, Config{
		Threads: 4, Operations: 500, SharedQuota: true,
		Schedule: &pace.Poisson{Rate: 20_000, Seed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || res.Ops != 500 || f.calls.Load() != 500 {
		t.Fatalf("err %v ops %d calls %d", res.Err, res.Ops, f.calls.Load())
	}
	if res.Totals[0].Response.Count() != 500 {
		t.Errorf("response histogram holds %d", res.Totals[0].Response.Count())
	}
}

func TestCancelStopsAndKeepsWhatWasMeasured(t *testing.T) {
	// The stop comes from inside the third operation of worker 0, so that
	// something was measured before it, however slow the machine.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeWorkload{do: func(_ context.Context, id int, n int64) error {
		if id == 0 && n == 3 {
			cancel()
		}
		return nil
	}}
	res, err := Run(ctx, f, Config{Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopSignal || res.Ops == 0 || res.Ops != f.calls.Load() {
		t.Fatalf("stop %s ops %d calls %d", res.Stop, res.Ops, f.calls.Load())
	}
}

// An operation that never returns is cut off after the grace period and
// not counted; what was measured before is kept.
func TestGraceCutsOffHungOperations(t *testing.T) {
	f := &fakeWorkload{}
	var first atomic.Bool
	f.do = func(ctx context.Context, id int, n int64) error {
		// The first operation to start, whichever thread runs it (on a busy
		// machine the other may start first): it hangs however slow the
		// machine.
		if first.CompareAndSwap(false, true) {
			<-ctx.Done()
		}
		return nil
	}
	res, err := Run(context.Background(), f, Config{Threads: 2, Duration: 50 * time.Millisecond, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cancelled != 1 {
		t.Fatalf("cancelled %d, want 1", res.Cancelled)
	}
	if res.Ops != f.calls.Load()-1 {
		t.Errorf("ops %d, calls %d: the cut-off call must not count", res.Ops, f.calls.Load())
	}
	if got := total(res.Totals, 3); got != res.Ops {
		t.Errorf("histograms hold %d, want %d", got, res.Ops)
	}
}

func TestFatalErrorEndsTheRunWithWhatWasMeasured(t *testing.T) {
	boom := errors.New("boom")
	f := &fakeWorkload{}
	f.do = func(_ context.Context, id int, n int64) error {
		if id == 1 && n == 100 {
			return boom
		}
		return nil
	}
	res, err := Run(context.Background(), f, Config{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Err, boom) || res.Stop != StopError {
		t.Fatalf("err %v stop %s", res.Err, res.Stop)
	}
	if res.Ops < 100 || total(res.Totals, 3) != res.Ops {
		t.Errorf("ops %d, measured %d", res.Ops, total(res.Totals, 3))
	}
}

func TestStopWorkerStopsOnlyThatWorker(t *testing.T) {
	f := &fakeWorkload{}
	f.do = func(_ context.Context, id int, n int64) error {
		if id == 0 && n == 3 {
			return ErrStopWorker
		}
		return nil
	}
	res, err := Run(context.Background(), f, Config{Threads: 2, Operations: 200})
	if err != nil {
		t.Fatal(err)
	}
	// Worker 0's third call stops it and is not counted (YCSB's client
	// thread breaks before counting it): 2 of its 100, worker 1 all 100.
	if res.Err != nil || res.Ops != 102 {
		t.Fatalf("err %v ops %d, want 102", res.Err, res.Ops)
	}
}

func TestBadConfigReportsEveryProblem(t *testing.T) {
	_, err := Run(context.Background(), &fakeWorkload{}, Config{Threads: 0, Operations: -1})
	if err == nil {
		t.Fatal("want error")
	}
	for _, want := range []string{"threads must be at least 1", "operation count must not be negative"} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// Many workers recording while the ticker drains every millisecond: no
// sample may be lost or counted twice (run under -race).
func TestRecorderLosesNothingUnderFastTicks(t *testing.T) {
	f := &fakeWorkload{perOp: 2}
	res, err := Run(context.Background(), f, Config{Threads: 16, Operations: 200_000, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := total(res.Totals, 3), 2*f.calls.Load(); got != want {
		t.Fatalf("histograms hold %d, workload recorded %d", got, want)
	}
}

// The recorders are drained several times an interval, so that a worker's
// buffer holds a fraction of one interval's samples: the worker sees its
// buffers swapped (active flips) before the first interval is handed to the
// sinks, and every sample still lands in the result.
func TestRecordersAreDrainedWithinAnInterval(t *testing.T) {
	var ticked atomic.Bool
	// One worker: only its goroutine touches these until Run returns.
	flips, last := 0, uint32(0)
	f := &fakeWorkload{delay: time.Millisecond, onDo: func(rec *Recorder) {
		if ticked.Load() {
			return
		}
		if a := rec.active.Load(); a != last {
			flips++
			last = a
		}
	}}
	sink := &tickFlag{ticked: &ticked}
	res, err := Run(context.Background(), f, Config{Threads: 1, Duration: 1500 * time.Millisecond, Interval: time.Second, Sinks: []Sink{sink}})
	if err != nil {
		t.Fatal(err)
	}
	if n := flips; n < 3 {
		t.Errorf("the worker's buffers were swapped %d times before the first interval ended, want several (ten drains an interval)", n)
	}
	if got, want := total(res.Totals, 3), f.calls.Load(); got != want {
		t.Fatalf("histograms hold %d, workload recorded %d", got, want)
	}
}

// tickFlag sets ticked when the first interval reaches the sinks.
type tickFlag struct{ ticked *atomic.Bool }

func (s *tickFlag) Begin(*RunInfo) error { return nil }
func (s *tickFlag) Tick(*Interval) error { s.ticked.Store(true); return nil }
func (s *tickFlag) End(*Result) error    { return nil }

func TestDrainStep(t *testing.T) {
	for _, c := range []struct{ interval, want time.Duration }{
		{time.Second, 100 * time.Millisecond},
		{10 * time.Second, time.Second},
		{50 * time.Millisecond, 10 * time.Millisecond},
		{time.Millisecond, time.Millisecond},
	} {
		if got := drainStep(c.interval); got != c.want {
			t.Errorf("drainStep(%v) = %v, want %v", c.interval, got, c.want)
		}
	}
}

// An operation that ignores its context for a while after the cut-off:
// the grace period fires once (one warning, one cut-off), not once per
// grace period while the operation lingers.
func TestGraceFiresOnce(t *testing.T) {
	f := &fakeWorkload{}
	f.do = func(ctx context.Context, id int, n int64) error {
		if id == 0 && n == 1 { // the first: it hangs however slow the machine
			<-ctx.Done()
			time.Sleep(300 * time.Millisecond) // deaf to the cut-off for a while
		}
		return nil
	}
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	if _, err := Run(context.Background(), f, Config{Threads: 2, Duration: 20 * time.Millisecond, Grace: 20 * time.Millisecond, Logger: log}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "grace period were cancelled"); n != 1 {
		t.Errorf("the grace warning was logged %d times, want once:\n%s", n, logs.String())
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
