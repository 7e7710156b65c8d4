// Package pace decides when operations are meant to start.
//
// Without a schedule the agent runs a closed loop at full speed, as YCSB and
// sysbench do by default. With one, every operation has an intended start
// time and the engine measures latency from it (response time) as well as
// from the moment the operation really started (service time), so a slow
// database cannot hide its queueing (coordinated omission).
//
// The schedules are pure functions of (index, random draws); the waiting code
// around them is thin and is the only part that touches the clock.
package pace

import (
	"context"
	"time"
)

// Clock is the engine's monotonic clock: nanoseconds since the run's base.
type Clock interface {
	Now() int64
}

// Schedule hands out intended start times to the workers of one run.
type Schedule interface {
	// Start begins the schedule at clock time origin (ns). A schedule with a
	// generator (Poisson) starts it here and stops it when ctx is done.
	Start(ctx context.Context, clk Clock, origin int64)
	// Pacer returns the pacer of one worker. seed feeds its private randomness.
	Pacer(worker int, seed uint64) Pacer
	// Err reports a failure of the schedule itself (e.g. a full queue).
	Err() error
	// Describe says what the schedule is, for the records.
	Describe() string
}

// Pacer gives one worker its intended start times.
type Pacer interface {
	// Next waits until the worker's next operation is due and returns its
	// intended start (clock ns). ok is false when the run must stop (ctx
	// done or the schedule ended).
	Next(ctx context.Context) (intended int64, ok bool)
}

// sleeper waits on one timer it keeps: a paced operation waits once, and
// a new timer per wait would be an allocation per operation.
//
// Go's timers wake an idle program through the network poller, whose wait
// the runtime rounds to whole milliseconds on Linux: a sleep of 2.3 ms
// ends 0 to 1 ms late, 0.5 ms on average (measured on the null binding at
// 3,176 ops/s over 64 threads: response p50 548 µs for operations that
// took 0 µs, 8.8% of them over 1 ms late). That error would be counted as
// the database's latency, and as late starts. So the wait is on a kernel
// timer the poller watches (precise_linux.go), which wakes the poller when
// it expires, as YCSB's LockSupport.parkNanos and sysbench's usleep end
// within the kernel's timer slack; the Go timer is kept for where that
// timer cannot be had.
type sleeper struct {
	t       *time.Timer
	precise preciseTimer
}

// until waits until the clock reaches t, or ctx is done.
func (s *sleeper) until(ctx context.Context, clk Clock, t int64) bool {
	d := time.Duration(t - clk.Now())
	if d <= 0 {
		return ctx.Err() == nil
	}
	if ok, waited := s.precise.wait(ctx, d); waited {
		return ok
	}
	if s.t == nil {
		s.t = time.NewTimer(d)
	} else {
		// Since Go 1.23 a Reset timer's channel holds no stale tick.
		s.t.Reset(d)
	}
	select {
	case <-s.t.C:
		return true
	case <-ctx.Done():
		s.t.Stop()
		return false
	}
}
