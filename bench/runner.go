package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ybbench/ybbench/bench/pace"
)

// Run executes a workload under cfg and returns what was measured. It
// returns an error only when the run could not start; a failure during the
// run ends it early and is reported in Result.Err, with everything measured
// up to then.
//
// ctx stops the run: when it is done, workers finish the operation in hand
// (within cfg.Grace) and the run ends with what was measured.
func Run(ctx context.Context, wl Workload, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cat := wl.Catalog()
	if err := cat.Validate(); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	r := &run{cfg: c, wl: wl, cat: cat, clk: NewClock()}
	return r.execute(ctx)
}

type run struct {
	cfg Config
	wl  Workload
	cat *Catalog
	clk *Clock

	warmupEnd int64 // clock ns
	recs      []*Recorder
	quotas    []int64        // per worker, nil when unbounded or shared
	counts    []workerCounts // per worker, each on its own cache line
	shared    atomic.Int64   // remaining shared quota
	cancelled atomic.Int64

	stopOnce  sync.Once
	stopping  atomic.Bool
	stopCtx   context.Context // done when a stop is requested: wakes paced workers
	stopFn    context.CancelFunc
	opsCtx    context.Context // done when operations in flight must be cut off
	opsCancel context.CancelFunc
	reason    StopReason
	errMu     sync.Mutex
	err       error

	lastEnd atomic.Int64 // clock ns when the last worker ended
}

// cacheLine is the size the per-worker counters are padded to, so that
// workers storing their own counts never write the same cache line
// (false sharing makes every store a cross-core transfer).
const cacheLine = 64

// workerCounts are one worker's counts, written by that worker after every
// operation and read by the ticker.
type workerCounts struct {
	done atomic.Int64 // operations counted (after warm-up)
	warm atomic.Int64 // operations completed during warm-up
	_    [cacheLine - 16]byte
}

func (r *run) requestStop(why StopReason) {
	r.stopOnce.Do(func() {
		r.reason = why
		r.stopping.Store(true)
		r.stopFn()
	})
}

func (r *run) fail(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
	r.requestStop(StopError)
}

// cutOff cancels operations in flight; whatever they record from now on is
// discarded and they are not counted.
func (r *run) cutOff() {
	for _, rec := range r.recs {
		rec.discard.Store(true)
	}
	r.opsCancel()
}

func (r *run) execute(ctx context.Context) (*Result, error) {
	c := &r.cfg
	n := c.Threads
	r.warmupEnd = int64(c.Warmup)
	r.stopCtx, r.stopFn = context.WithCancel(context.Background())
	r.opsCtx, r.opsCancel = context.WithCancel(context.Background())
	defer r.stopFn()
	defer r.opsCancel()

	r.recs = make([]*Recorder, n)
	for i := range r.recs {
		r.recs[i] = newRecorder(r.clk, c.Raw, r.warmupEnd)
		r.recs[i].scheduled = c.Schedule != nil
	}
	r.counts = make([]workerCounts, n)
	if c.Operations > 0 {
		if c.SharedQuota {
			r.shared.Store(c.Operations)
		} else {
			r.quotas = Quotas(c.Operations, n)
		}
	}

	info := &RunInfo{Workload: r.wl.Name(), Catalog: r.cat, Config: c, Start: r.clk.Base(), Scheduled: c.Schedule != nil, Quotas: r.quotas}
	for _, s := range c.Sinks {
		if err := s.Begin(info); err != nil {
			return nil, fmt.Errorf("begin: %w", err)
		}
	}

	schedCtx, stopSched := context.WithCancel(r.stopCtx)
	defer stopSched()
	if c.Schedule != nil {
		c.Schedule.Start(schedCtx, r.clk, 0)
	}

	var workers sync.WaitGroup
	for i := 0; i < n; i++ {
		workers.Add(1)
		go func(id int) {
			defer workers.Done()
			r.worker(id)
		}(i)
	}
	allDone := make(chan struct{})
	go func() { workers.Wait(); close(allDone) }()

	tickerDone := make(chan *Result, 1)
	go func() { tickerDone <- r.ticker(allDone) }()

	r.watch(ctx, allDone)
	res := <-tickerDone

	for _, s := range c.Sinks {
		if err := s.End(res); err != nil && res.Err == nil {
			res.Err = fmt.Errorf("end: %w", err)
		}
	}
	return res, nil
}

// watch turns the outside world (ctx, the deadline, Abort) into stop
// requests, and cuts operations off after the grace period.
func (r *run) watch(ctx context.Context, allDone <-chan struct{}) {
	c := &r.cfg
	var deadline <-chan time.Time
	if c.Duration > 0 {
		t := time.NewTimer(c.Warmup + c.Duration)
		defer t.Stop()
		deadline = t.C
	}
	var grace <-chan time.Time
	// stopped is read once: a closed channel stays ready, and the loop
	// must not spin on it (nor arm the grace timer again).
	stopped := r.stopCtx.Done()
	for {
		select {
		case <-allDone:
			return
		case <-ctx.Done():
			r.requestStop(StopSignal)
			ctx = context.Background() // never fires again
		case <-deadline:
			r.requestStop(StopDuration)
			deadline = nil
		case <-c.Abort:
			r.cutOff()
			c.Abort = nil
		case <-grace:
			r.cfg.Logger.Warn("operations still in flight after the grace period were cancelled", "grace", c.Grace)
			r.cutOff()
			grace = nil
		case <-stopped:
			t := time.NewTimer(c.Grace)
			defer t.Stop()
			grace = t.C
			stopped = nil
		}
	}
}

func (r *run) worker(id int) {
	c := &r.cfg
	rec := r.recs[id]
	defer func() { r.noteEnd(r.clk.Now()) }()

	w, err := r.wl.NewWorker(r.opsCtx, id, rec)
	if err != nil {
		if !rec.discard.Load() {
			r.fail(fmt.Errorf("worker %d: %w", id, err))
		}
		return
	}
	var pacer pace.Pacer
	if c.Schedule != nil {
		pacer = c.Schedule.Pacer(id, c.Seed+uint64(id)*0x9e3779b97f4a7c15)
	}
	var quota int64
	if r.quotas != nil {
		quota = r.quotas[id]
	}
	lateAfter := int64(c.LateAfter)
	var done int64
	for !r.stopping.Load() {
		if r.quotas != nil && done >= quota {
			break
		}
		if c.SharedQuota && c.Operations > 0 && r.shared.Add(-1) < 0 {
			break
		}
		if pacer != nil {
			intended, ok := pacer.Next(r.stopCtx)
			if !ok {
				if r.stopCtx.Err() == nil {
					if err := c.Schedule.Err(); err != nil {
						r.fail(err)
					} else {
						r.requestStop(StopSchedule)
					}
				}
				break
			}
			rec.intended = intended
			rec.late = r.clk.Now()-intended > lateAfter
		}
		rec.observed = false
		err := w.Do(r.opsCtx)
		// The operation ends with its last measurement: reading the clock
		// again here would cost a third read per operation for the same
		// answer. A Do that measured nothing is timed here.
		end := rec.lastEnd
		if !rec.observed {
			end = r.clk.Now()
		}
		if rec.discard.Load() {
			r.cancelled.Add(1)
			break
		}
		if errors.Is(err, ErrStopWorker) {
			// The call that stops a worker is no operation done: YCSB's
			// client thread breaks before counting a failed load insert.
			if c.SharedQuota && c.Operations > 0 {
				r.shared.Add(1)
			}
			break
		}
		if end >= r.warmupEnd {
			done++
			r.counts[id].done.Store(done)
		} else {
			r.counts[id].warm.Add(1)
			if c.SharedQuota && c.Operations > 0 {
				r.shared.Add(1) // warm-up operations do not use up the quota
			}
		}
		if err != nil {
			r.fail(err)
			break
		}
	}
	r.cleanup(id, w, rec)
}

func (r *run) cleanup(id int, w Worker, rec *Recorder) {
	cl, ok := w.(Cleaner)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.Grace)
	defer cancel()
	start := rec.Now()
	err := cl.Cleanup(ctx)
	if r.cat.Cleanup >= 0 {
		st := StatusOK
		if err != nil {
			st = r.errorStatus()
		}
		// Cleanup is measured even after a cut-off: it is not an operation.
		rec.discard.Store(false)
		rec.scheduled = false
		rec.late = false
		rec.Observe(Op(r.cat.Cleanup), st, start)
	}
	if err != nil {
		r.cfg.Logger.Warn("worker cleanup failed", "worker", id, "err", err)
	}
}

// errorStatus is the first non-success status of the catalog.
func (r *run) errorStatus() Status {
	for i, s := range r.cat.Statuses {
		if !s.OK {
			return Status(i)
		}
	}
	return StatusOK
}

func (r *run) noteEnd(t int64) {
	for {
		cur := r.lastEnd.Load()
		if t <= cur || r.lastEnd.CompareAndSwap(cur, t) {
			return
		}
	}
}
