package kv

import (
	"encoding/json"
	"os"
	"runtime"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/record/hist"
)

// Summary is ybload's machine-readable summary of a KV run
// (--ybload_summary), in the shape of the YCSB summary: per measurement
// the counts, the key rate and the latency percentiles (service time, µs),
// the workload's counters and every setting that shapes a number.
type Summary struct {
	Schema       string            `json:"schema"`
	Tool         map[string]string `json:"tool"`
	Workload     string            `json:"workload"`
	Start        time.Time         `json:"start"`
	End          time.Time         `json:"end"`
	RunTimeMS    int64             `json:"runtime_ms"`
	Threads      int               `json:"threads"`
	Stop         string            `json:"stop"`
	Error        string            `json:"error,omitempty"`
	Cancelled    int64             `json:"cancelled,omitempty"`
	Measurements []SummaryOp       `json:"measurements"`
	Counters     map[string]int64  `json:"counters"`
	Settings     map[string]string `json:"settings"`
}

// SummaryOp is one measurement (Read or Write) of the summary. Count and
// Errors count calls (a batch is one); Units counts keys, and KeysPerSec
// is the reference's ops/sec over the whole run.
type SummaryOp struct {
	Name       string  `json:"name"`
	Count      int64   `json:"count"`
	Errors     int64   `json:"errors"`
	Units      int64   `json:"units"`
	KeysPerSec float64 `json:"keys_per_sec"`
	hist.Stats
	Statuses map[string]int64 `json:"statuses,omitempty"`
}

func summaryOf(res *bench.Result, settings map[string]string, counters map[string]int64, workload string) *Summary {
	s := &Summary{Schema: "ybload-kv-summary/1", Tool: map[string]string{"name": "ybload", "go": runtime.Version()},
		Workload: workload, Start: res.Start, End: res.End, RunTimeMS: res.RunTime.Milliseconds(), Threads: res.Threads,
		Stop: string(res.Stop), Cancelled: res.Cancelled, Counters: counters, Settings: settings}
	if res.Err != nil {
		s.Error = res.Err.Error()
	}
	for _, o := range res.Totals {
		if o.Empty() {
			continue
		}
		op := SummaryOp{Name: o.Name, Count: o.Count(), Errors: o.Failed(), Units: o.Units, Stats: o.Service.Stats()}
		if res.RunTime > 0 {
			op.KeysPerSec = float64(o.Units) / res.RunTime.Seconds()
		}
		for i, n := range o.Statuses {
			if n > 0 {
				if op.Statuses == nil {
					op.Statuses = map[string]int64{}
				}
				op.Statuses[Catalog.Statuses[i].Name] = n
			}
		}
		s.Measurements = append(s.Measurements, op)
	}
	return s
}

func writeSummary(path string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
