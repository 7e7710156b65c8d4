package bench

import (
	"context"
	"errors"
	"time"
)

// Workload is one measured phase of a benchmark (YCSB's load or run, a KV
// write phase, a sysbench run): what one operation is, and the names of
// what it measures. Phases are sequenced by the caller, each run by Run.
type Workload interface {
	// Name identifies the workload in records and reports.
	Name() string
	// Catalog lists the measurement names and statuses the workers record.
	Catalog() *Catalog
	// NewWorker returns worker id's state (its connections, its random
	// source). It is called inside the worker's goroutine, inside the timed
	// window, as YCSB initialises its DB objects inside the client threads.
	NewWorker(ctx context.Context, id int, rec *Recorder) (Worker, error)
}

// Worker performs one outer operation per Do call, recording each
// measurement it takes (one or several) into its Recorder.
//
// Do returns nil when the operation ran, whatever its result (a failed
// database call is a recorded status, not an error). ErrStopWorker stops this
// worker only (YCSB stops a load thread whose insert failed); any other error
// is fatal and stops the run.
type Worker interface {
	Do(ctx context.Context) error
}

// Cleaner is implemented by workers that release resources at the end. The
// engine times the call and records it under the catalog's Cleanup op.
type Cleaner interface {
	Cleanup(ctx context.Context) error
}

// ErrStopWorker, returned by Do, ends the worker's loop without stopping
// the others. That call is not counted among the operations done (its
// measurements stay recorded), as YCSB does not count the insert whose
// failure stops a load thread.
var ErrStopWorker = errors.New("worker stopped")

// Sink receives the run's measurements as they are taken. Its methods are
// called from one goroutine, in order: Begin, Tick for every interval, End.
// An error from a sink stops the run: a measurement that cannot be kept
// must not be taken silently.
type Sink interface {
	Begin(info *RunInfo) error
	Tick(iv *Interval) error
	End(res *Result) error
}

// RunInfo describes a run to its sinks when it begins.
type RunInfo struct {
	Workload  string
	Catalog   *Catalog
	Config    *Config
	Start     time.Time
	Scheduled bool
	// Quotas are the per-worker operation quotas (nil when unbounded or shared).
	Quotas []int64
}
