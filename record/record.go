// Package record is the agents' on-disk format: JSON lines, one record per
// line, appended and flushed as they are measured so that a killed agent
// leaves every completed interval behind, and several agents' files merge
// exactly later (their histograms add).
//
// A file holds one Meta line, then Tick lines (one per measurement name per
// interval), then an End line if the agent finished. It is a leaf package:
// the orchestrator reads records without importing the engine.
package record

import (
	"time"

	"github.com/ybbench/ybbench/record/hist"
)

// Version is the record schema version. Readers refuse other versions.
const Version = 1

// Record kinds (the "type" field).
const (
	KindMeta = "meta"
	KindTick = "tick"
	KindEnd  = "end"
)

// Geometry is the histogram geometry the histograms were recorded with.
type Geometry struct {
	LowestUS  int64 `json:"lowest_us"`
	HighestUS int64 `json:"highest_us"`
	SigFigs   int   `json:"sig_figs"`
}

// Shared is the geometry every agent uses (record/hist).
var Shared = Geometry{LowestUS: hist.Lowest, HighestUS: hist.Highest, SigFigs: hist.SigFigs}

// Meta opens a record file: who measured what, and how.
type Meta struct {
	V        int    `json:"v"`
	Type     string `json:"type"`
	Agent    string `json:"agent"`
	Workload string `json:"workload"`
	Phase    string `json:"phase"`
	// Start is the wall time the run began.
	Start      time.Time `json:"start"`
	IntervalMS int64     `json:"interval_ms"`
	Threads    int       `json:"threads"`
	Operations int64     `json:"operations,omitempty"`
	DurationMS int64     `json:"duration_ms,omitempty"`
	WarmupMS   int64     `json:"warmup_ms,omitempty"`
	// Schedule describes the pacing ("" for a closed loop); with one, ticks
	// carry response-time histograms beside the service-time ones.
	Schedule string `json:"schedule,omitempty"`
	// TargetOpsPerSec is the schedule's rate, this agent's share of the
	// run's (absent for a closed loop).
	TargetOpsPerSec float64  `json:"target_ops_per_sec,omitempty"`
	Geometry        Geometry `json:"geometry"`
	// Ops and Statuses are the workload's measurement and status names.
	Ops      []string `json:"ops"`
	Statuses []string `json:"statuses"`
	// Settings holds everything else that shapes a number (properties,
	// versions, DDL), as the agent knew it.
	Settings map[string]string `json:"settings,omitempty"`
}

// Tick is one measurement name over one interval.
type Tick struct {
	V     int    `json:"v"`
	Type  string `json:"type"`
	Agent string `json:"agent"`
	Phase string `json:"phase"`
	Op    string `json:"op"`
	// Warmup marks measurements taken during warm-up.
	Warmup bool      `json:"warmup,omitempty"`
	Index  int       `json:"i"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	// Count is the number of successful measurements, Errors the failed
	// ones; Units what they stand for when it differs (keys in batches).
	Count  int64 `json:"count"`
	Errors int64 `json:"errors"`
	Units  int64 `json:"units,omitempty"`
	// Statuses counts measurements per status name (successes included).
	Statuses map[string]int64 `json:"statuses,omitempty"`
	// Late counts measurements of operations that started late.
	Late     int64 `json:"late,omitempty"`
	Overflow int64 `json:"overflow,omitempty"`
	// Histograms (HDR V2 compressed, base64) of service time (from the actual
	// start) and, with a schedule, response time (from the intended start),
	// for successful measurements; and service time of failed ones, kept
	// for reading the records by hand (result.json counts failures in
	// errors and statuses and merges no failed latencies).
	Service       string `json:"service,omitempty"`
	Response      string `json:"response,omitempty"`
	ServiceFailed string `json:"service_failed,omitempty"`
	// ResponseOverflow counts response times above the range.
	ResponseOverflow int64 `json:"response_overflow,omitempty"`
}

// End closes a record file when the agent finished normally or stopped
// early with an error it could report.
type End struct {
	V     int    `json:"v"`
	Type  string `json:"type"`
	Agent string `json:"agent"`
	Phase string `json:"phase"`
	// MeasureStart is when warm-up ended; End when the last worker finished.
	MeasureStart time.Time `json:"measure_start"`
	End          time.Time `json:"end"`
	RunTimeMS    float64   `json:"runtime_ms"`
	Ops          int64     `json:"ops"`
	WarmupOps    int64     `json:"warmup_ops,omitempty"`
	Stop         string    `json:"stop"`
	Error        string    `json:"error,omitempty"`
	Cancelled    int64     `json:"cancelled,omitempty"`
	// Counters are workload counters beside the histograms (e.g. KV read
	// verification failures, sysbench reconnects).
	Counters map[string]int64 `json:"counters,omitempty"`
}
