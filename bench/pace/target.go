package pace

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// Target is YCSB's `target` throttle: a total rate split evenly over the
// threads, each thread on a fixed schedule of intended start times counted
// from its own start (YCSB ClientThread). Operation k of a thread is due at
// origin + k·tick, however late the previous ones were: a thread that falls
// behind issues operations back to back until it catches up, and their
// response times include the lateness.
type Target struct {
	// OpsPerSec is the total target rate across all threads.
	OpsPerSec float64
	// Threads is the number of threads the rate is divided between (YCSB:
	// threadcount as given, before it is lowered to the operation count).
	Threads int
	// Jitter delays each thread's origin by a random fraction of a tick when
	// a thread's rate is at most 1000 ops/s, as YCSB does to avoid all
	// threads firing together.
	Jitter bool

	clk    Clock
	origin int64
}

var _ Schedule = (*Target)(nil)

// TickNs is the per-thread period in nanoseconds, computed as YCSB does:
// (long)(1e6 / (target/threads/1000.0)).
func (t *Target) TickNs() int64 {
	perThreadPerMs := t.OpsPerSec / float64(t.Threads) / 1000.0
	return int64(1_000_000 / perThreadPerMs)
}

// IntendedOffset is the pure schedule: the intended start of a thread's k-th
// operation (k from 0), relative to the thread's origin.
func (t *Target) IntendedOffset(k int64) int64 { return k * t.TickNs() }

// JitterNs is the random start delay of a thread given a uniform draw u in
// [0,1): a fraction of a tick when a thread's rate is at most 1000 ops/s,
// else 0 (YCSB ClientThread).
func (t *Target) JitterNs(u float64) int64 {
	perThreadPerMs := t.OpsPerSec / float64(t.Threads) / 1000.0
	if !t.Jitter || perThreadPerMs <= 0 || perThreadPerMs > 1.0 {
		return 0
	}
	return int64(u * float64(t.TickNs()))
}

// Start records the clock; threads compute their own origins.
func (t *Target) Start(_ context.Context, clk Clock, origin int64) { t.clk, t.origin = clk, origin }

// Err is always nil: a fixed schedule cannot fail.
func (t *Target) Err() error { return nil }

// OfferedRate is the total rate asked for, in operations per second.
func (t *Target) OfferedRate() float64 { return t.OpsPerSec }

// Describe names the schedule for the records.
func (t *Target) Describe() string {
	return fmt.Sprintf("ycsb-target %g ops/s over %d threads (tick %d ns per thread)", t.OpsPerSec, t.Threads, t.TickNs())
}

// Pacer returns the per-thread schedule.
func (t *Target) Pacer(_ int, seed uint64) Pacer {
	return &targetPacer{t: t, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), k: -1}
}

type targetPacer struct {
	t      *Target
	rng    *rand.Rand
	origin int64
	k      int64
	sleep  sleeper
}

func (p *targetPacer) Next(ctx context.Context) (int64, bool) {
	clk := p.t.clk
	if p.k < 0 {
		// The thread's origin is when it starts its loop, after its own
		// connection setup and the optional jitter (YCSB ClientThread.run).
		j := p.t.JitterNs(p.rng.Float64())
		if j > 0 && !p.sleep.until(ctx, clk, clk.Now()+j) {
			return 0, false
		}
		p.origin = clk.Now()
		p.k = 0
	}
	due := p.origin + p.t.IntendedOffset(p.k)
	p.k++
	if !p.sleep.until(ctx, clk, due) {
		return 0, false
	}
	return due, true
}
