package bench

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ybbench/ybbench/bench/pace"
)

// Defaults of the engine.
const (
	DefaultInterval  = time.Second
	DefaultGrace     = 10 * time.Second
	DefaultLateAfter = time.Millisecond
)

// Config bounds and paces one run.
type Config struct {
	// Threads is the number of workers (YCSB threadcount, sysbench --threads).
	Threads int
	// Operations bounds the run by outer operations; 0 means unbounded.
	// Warm-up operations do not count toward it.
	Operations int64
	// SharedQuota makes Operations one pool all workers draw from (sysbench
	// --events). Otherwise it is split evenly across workers as YCSB does:
	// worker i gets Operations/Threads, plus one if i < Operations%Threads.
	SharedQuota bool
	// Duration bounds the measured window (YCSB maxexecutiontime, sysbench
	// --time); 0 means unbounded. Warm-up extends it.
	Duration time.Duration
	// Warmup is measured but excluded from the results and from Operations.
	Warmup time.Duration
	// Schedule paces the operations; nil runs a closed loop at full speed.
	Schedule pace.Schedule
	// Interval is the tick at which measurements are handed to the sinks
	// (DefaultInterval when 0); the recorders are drained ten times as
	// often (drainStep).
	Interval time.Duration
	// Grace is how long operations in flight at a stop may take before they
	// are cancelled and not counted (DefaultGrace when 0).
	Grace time.Duration
	// Abort, when closed, cancels operations in flight at once (a second
	// Ctrl-C).
	Abort <-chan struct{}
	// LateAfter is how far past its intended start an operation must start
	// to count as late (DefaultLateAfter when 0).
	LateAfter time.Duration
	// Seed feeds the schedule's per-worker randomness.
	Seed uint64
	// Raw keeps every sample for raw latency output (Interval.Raw).
	Raw bool
	// Sinks receive the measurements as they are taken.
	Sinks []Sink
	// Logger receives the engine's own messages; nil discards them.
	Logger *slog.Logger
}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Threads < 1 {
		errs = append(errs, fmt.Errorf("threads must be at least 1, got %d", c.Threads))
	}
	if c.Operations < 0 {
		errs = append(errs, fmt.Errorf("operation count must not be negative, got %d", c.Operations))
	}
	if c.Duration < 0 || c.Warmup < 0 || c.Interval < 0 || c.Grace < 0 || c.LateAfter < 0 {
		errs = append(errs, errors.New("durations must not be negative"))
	}
	return errors.Join(errs...)
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.Interval == 0 {
		d.Interval = DefaultInterval
	}
	if d.Grace == 0 {
		d.Grace = DefaultGrace
	}
	if d.LateAfter == 0 {
		d.LateAfter = DefaultLateAfter
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return d
}

// Quotas splits n operations over threads as YCSB does (Client.initDb).
func Quotas(n int64, threads int) []int64 {
	q := make([]int64, threads)
	per, rem := n/int64(threads), n%int64(threads)
	for i := range q {
		q[i] = per
		if int64(i) < rem {
			q[i]++
		}
	}
	return q
}
