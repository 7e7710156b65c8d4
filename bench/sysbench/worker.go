package sysbench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ybbench/ybbench/bench"
)

// The measurement catalog: one measurement per event, whatever its
// statements and retries (the HDR records' op).
const (
	opEvent bench.Op = 0

	statusError bench.Status = 1
)

var eventCatalog = &bench.Catalog{
	Ops:      []string{"EVENT"},
	Statuses: []bench.StatusDef{{Name: "OK", OK: true}, {Name: "ERROR", OK: false}},
	Cleanup:  -1,
}

// Workload is a sysbench run as a bench.Workload: its workers are opened
// and prepared by Connect, before bench.Run starts the clock, as sysbench
// connects and prepares in thread_init before its start barrier.
type Workload struct {
	o         *Options
	log       *slog.Logger
	eps       []endpoint
	seed      uint64
	warmupNs  int64
	scheduled bool

	sessions []*session
	stats    []*workerStats
	lostLogs atomic.Int64 // lost connections logged so far (rate limit)
}

var _ bench.Workload = (*Workload)(nil)

// NewWorkload returns the workload of o; seed feeds every worker's random
// source (the effective --rand-seed).
func NewWorkload(o *Options, seed uint64, log *slog.Logger) *Workload {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Workload{o: o, log: log, eps: endpoints(o), seed: seed, warmupNs: o.Warmup * int64(time.Second),
		scheduled: o.Rate > 0, stats: newWorkerStats(o.Threads)}
}

// Name is the workload's name (oltp_read_write, …).
func (w *Workload) Name() string { return w.o.Workload }

// Catalog is the one-measurement catalog: EVENT.
func (w *Workload) Catalog() *bench.Catalog { return eventCatalog }

// Connect opens every worker's connection and prepares its statements, all
// workers at once, within --thread-init-timeout.
func (w *Workload) Connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(w.o.ThreadInitTimeout)*time.Second)
	defer cancel()
	w.sessions = make([]*session, w.o.Threads)
	errs := make([]error, w.o.Threads)
	var wg sync.WaitGroup
	for i := range w.sessions {
		w.sessions[i] = newSession(w.o, w.eps, i)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := w.sessions[i]
			errs[i] = s.open(ctx, s.home)
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		w.Close()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("worker threads failed to initialize within %d seconds: %w", w.o.ThreadInitTimeout, err)
		}
		return err
	}
	return nil
}

// Close closes the connections a run left open (after a failed Connect).
func (w *Workload) Close() {
	for _, s := range w.sessions {
		if s != nil {
			s.close()
		}
	}
}

// Totals returns the measured (or warm-up) counters summed over workers.
func (w *Workload) Totals(warmup bool) Totals { return sum(w.stats, warmup) }

// Counters are the sysbench counters for the tick records' End line.
func (w *Workload) Counters() map[string]int64 {
	t := w.Totals(false)
	return map[string]int64{
		"sysbench_events": t.Events, "sysbench_reads": t.Reads, "sysbench_writes": t.Writes, "sysbench_other": t.Other,
		"sysbench_ignored_errors": t.Errors, "sysbench_reconnects": t.Reconnects,
		"lost_connection_reconnects": t.Lost,
	}
}

// NewWorker hands worker id its prepared session.
func (w *Workload) NewWorker(ctx context.Context, id int, rec *bench.Recorder) (bench.Worker, error) {
	s := w.sessions[id]
	st := w.stats[id]
	st.running.Store(true)
	k := &worker{wl: w, id: id, sess: s, rec: rec, st: st}
	var u *uniqueSeq
	if w.o.Workload == "oltp_insert" && !w.o.AutoInc {
		u = newUniqueSeq(w.seed, id, w.o.Threads)
	}
	k.script = newScript(w.o, s, newRNG(w.seed, id), newDist(w.o), u, &k.tally)
	k.unwatch = context.AfterFunc(ctx, s.cutOff)
	return k, nil
}

// worker runs one thread's events.
type worker struct {
	wl     *Workload
	id     int
	sess   *session
	rec    *bench.Recorder
	st     *workerStats
	script *script
	tally  tally

	sinceReconnect int64
	unwatch        func() bool
}

var _ bench.Cleaner = (*worker)(nil)

// Do runs one event: the workload's statements, rerun from the start after
// an ignorable error (rolled back, counted as an ignored error) or a lost
// connection (reconnected, counted apart), as often as needed; the event is
// counted once and its latency covers every attempt. Any other error ends
// the run.
func (k *worker) Do(ctx context.Context) error {
	k.st.busy.Store(true)
	defer k.st.busy.Store(false)
	start := k.rec.Now()
	k.tally = tally{}
	for {
		err := k.script.event(k.script)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if k.sess.lost(err) {
			k.logLost(err)
			if err := k.reconnect(ctx); err != nil {
				return err
			}
			k.tally.lost++
			continue
		}
		if retryable(err) {
			k.tally.errors++
			if rerr := k.sess.rollback(); rerr != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if !k.sess.lost(rerr) {
					return k.fatal(start, fmt.Errorf("ROLLBACK after %v: %w", err, rerr))
				}
				k.logLost(rerr)
				if err := k.reconnect(ctx); err != nil {
					return err
				}
				k.tally.lost++
			}
			continue
		}
		return k.fatal(start, err)
	}
	if r := k.wl.o.Reconnect; r > 0 {
		// --reconnect: after every r-th event, inside the event (its
		// latency includes the reconnection, spec §7.6).
		if k.sinceReconnect++; k.sinceReconnect >= r {
			k.sinceReconnect = 0
			if err := k.reconnect(ctx); err != nil {
				return err
			}
			k.tally.reconnects++
		}
	}
	end := k.rec.Now()
	k.rec.ObserveSpan(opEvent, bench.StatusOK, start, end)
	lat := end - start
	if k.wl.scheduled {
		lat = end - k.rec.Intended() // --rate: the time since the event was due
	}
	warm := end < k.wl.warmupNs
	k.st.countersFor(warm).add(&k.tally, lat)
	if !warm {
		k.st.hist.add(float64(lat) / 1e6)
	}
	return nil
}

// fatal records the failed event (its statements are counted, the event is
// not) and returns the error that ends the run.
func (k *worker) fatal(start int64, err error) error {
	end := k.rec.Now()
	k.rec.ObserveSpan(opEvent, statusError, start, end)
	k.st.countersFor(end < k.wl.warmupNs).addStatements(&k.tally)
	return fmt.Errorf("thread %d: %s: %w", k.id, k.wl.o.Workload, err)
}

// reconnect replaces the connection, trying the worker's own host first
// and then, with several hosts, the next ones in turn, until it succeeds or
// the run cuts the event off.
func (k *worker) reconnect(ctx context.Context) error {
	k.sess.close()
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err := k.sess.open(ctx, k.sess.home+attempt)
		if err == nil {
			if ctx.Err() != nil {
				k.sess.cutOff() // the watch may have fired before the new connection existed
				return ctx.Err()
			}
			return nil
		}
		if attempt == 0 || attempt%50 == 0 {
			k.wl.log.Warn("reconnect failed; retrying", "thread", k.id, "attempt", attempt+1, "err", err)
		}
		t := time.NewTimer(time.Duration(min(attempt+1, 10)) * 100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (k *worker) logLost(err error) {
	if n := k.wl.lostLogs.Add(1); n <= 10 || n%1000 == 0 {
		k.wl.log.Warn("connection lost: reconnecting and running the event again from its start",
			"thread", k.id, "err", err, "lost_so_far", n)
	}
}

// Cleanup closes the worker's connection.
func (k *worker) Cleanup(context.Context) error {
	k.unwatch()
	k.sess.close()
	k.st.running.Store(false)
	return nil
}
