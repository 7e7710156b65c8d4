package bench

import "time"

// StopReason says why a run ended.
type StopReason string

// The reasons a run ends.
const (
	StopOperations StopReason = "operations" // every quota was met
	StopDuration   StopReason = "duration"   // the measured window elapsed
	StopSignal     StopReason = "interrupted"
	StopError      StopReason = "error"    // a fatal error (Result.Err)
	StopWorkers    StopReason = "workers"  // every worker stopped by itself
	StopSchedule   StopReason = "schedule" // the schedule ended or failed
)

// Result is what a run measured, after warm-up.
type Result struct {
	Workload string
	Threads  int
	// Start is when the run began; MeasureStart when warm-up ended; End when
	// the last worker finished its cleanup.
	Start, MeasureStart, End time.Time
	// RunTime is End − MeasureStart: YCSB's RunTime(ms), which includes the
	// workers' connection setup and cleanup when there is no warm-up.
	RunTime time.Duration
	// Ops counts outer operations completed after warm-up (failed ones
	// included, as YCSB counts them); WarmupOps those completed during it.
	Ops, WarmupOps int64
	// Totals and WarmupTotals are indexed by Op.
	Totals, WarmupTotals []*OpStats
	// Scheduled is set when a schedule paced the run.
	Scheduled bool
	// Schedule describes it.
	Schedule string
	// Stop says why the run ended; Err is the fatal error, if any.
	Stop StopReason
	Err  error
	// Cancelled counts operations cut off at the end of the grace period
	// (not counted anywhere else).
	Cancelled int64
}

// Throughput is Ops per second of RunTime (YCSB's Throughput(ops/sec)).
func (r *Result) Throughput() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	return float64(r.Ops) / r.RunTime.Seconds()
}
