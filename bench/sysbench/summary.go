package sysbench

import (
	"encoding/json"
	"os"
	"runtime"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/record/hist"
)

// SummarySchema names the JSON summary's format.
const SummarySchema = "ybload-sysbench-summary/1"

// The two latency sources, named in every summary and record so that
// nobody reads one percentile as the other.
const (
	SourceSysbench = "sysbench: its own 1024-bucket logarithmic histogram over 0.001 ms–100 s (a value within ±0.9%), the percentile sysbench prints; min/avg/max/sum are exact"
	SourceHDR      = "ybload HDR histogram (1 µs–1 h, 3 significant digits), as in the tick records; NOT sysbench's percentile"
)

// Summary is ybload's machine-readable summary of one sysbench command,
// written beside the text report (--ybload-summary).
type Summary struct {
	Schema   string            `json:"schema"`
	Tool     map[string]string `json:"tool"`
	Workload string            `json:"workload"`
	Command  string            `json:"command"`
	Compat   string            `json:"compat"`
	Server   ServerInfo        `json:"server"`
	Threads  int               `json:"threads"`
	Settings map[string]string `json:"settings"`

	// Run only.
	Start        *time.Time       `json:"start,omitempty"`
	MeasureStart *time.Time       `json:"measure_start,omitempty"`
	End          *time.Time       `json:"end,omitempty"`
	Stop         string           `json:"stop,omitempty"`
	Error        string           `json:"error,omitempty"`
	Cancelled    int64            `json:"cancelled_events,omitempty"`
	Sysbench     *SysbenchFigures `json:"sysbench,omitempty"`
	Warmup       *SysbenchCounts  `json:"warmup,omitempty"`
	HDR          *HDRFigures      `json:"hdr,omitempty"`
	// LostConnections counts connections lost and reconnected (each event
	// rerun from its start), apart from --reconnect's reconnects.
	LostConnections int64 `json:"lost_connection_reconnects"`

	// Prepare only.
	DDL     [][]string `json:"ddl,omitempty"`
	Dropped []string   `json:"ddl_dropped_on_postgresql,omitempty"`
	Rows    int64      `json:"rows_inserted,omitempty"`
	// Statements counts what prepare sent (DDL and INSERT batches).
	Statements int64 `json:"prepare_statements,omitempty"`
}

// ServerInfo is what the server said it is.
type ServerInfo struct {
	Version    string `json:"version"`
	YugabyteDB bool   `json:"yugabytedb"`
}

// SysbenchCounts are sysbench's counters over a span.
type SysbenchCounts struct {
	Events        int64 `json:"transactions"`
	Reads         int64 `json:"read"`
	Writes        int64 `json:"write"`
	Other         int64 `json:"other"`
	Queries       int64 `json:"queries"`
	IgnoredErrors int64 `json:"ignored_errors"`
	Reconnects    int64 `json:"reconnects"`
}

// SysbenchFigures are the figures of the text report, as sysbench defines them.
type SysbenchFigures struct {
	SysbenchCounts
	TimeElapsedS  float64 `json:"time_elapsed_s"`
	EventsPerSec  float64 `json:"transactions_per_sec"`
	QueriesPerSec float64 `json:"queries_per_sec"`
	ErrorsPerSec  float64 `json:"ignored_errors_per_sec"`
	// LatencySource says where the latency figures come from.
	LatencySource string  `json:"latency_source"`
	LatMinMs      float64 `json:"latency_min_ms"`
	LatAvgMs      float64 `json:"latency_avg_ms"`
	LatMaxMs      float64 `json:"latency_max_ms"`
	LatSumMs      float64 `json:"latency_sum_ms"`
	// Percentile is --percentile (0: disabled); SysbenchPercentileMs its
	// value from sysbench's histogram.
	Percentile           int     `json:"percentile"`
	SysbenchPercentileMs float64 `json:"sysbench_histogram_percentile_ms"`
	EventsAvg            float64 `json:"fairness_events_avg"`
	EventsStddev         float64 `json:"fairness_events_stddev"`
	TimeAvgS             float64 `json:"fairness_execution_time_avg_s"`
	TimeStddevS          float64 `json:"fairness_execution_time_stddev_s"`
}

// HDRFigures are the same events' latencies from the HDR histograms.
type HDRFigures struct {
	Source string `json:"source"`
	// Latency is "response" (from the due time, with --rate) or "service".
	Latency string `json:"latency"`
	Count   int64  `json:"count"`
	Failed  int64  `json:"failed"`
	hist.Stats
}

func countsOf(t Totals) SysbenchCounts {
	return SysbenchCounts{Events: t.Events, Reads: t.Reads, Writes: t.Writes, Other: t.Other, Queries: t.Queries(),
		IgnoredErrors: t.Errors, Reconnects: t.Reconnects}
}

func newSummary(o *Options, srv ServerInfo, settings map[string]string, version string) *Summary {
	return &Summary{Schema: SummarySchema, Tool: map[string]string{"name": "ybload", "version": version, "go": runtime.Version()},
		Workload: o.Workload, Command: o.Command, Compat: o.Mode.String(), Server: srv, Threads: o.Threads, Settings: settings}
}

// addRun fills in a run's figures.
func (s *Summary) addRun(res *bench.Result, f *Final, warm Totals) {
	s.Start, s.MeasureStart, s.End = &res.Start, &res.MeasureStart, &res.End
	s.Stop, s.Cancelled = string(res.Stop), res.Cancelled
	if res.Err != nil {
		s.Error = res.Err.Error()
	}
	t := f.Totals
	per := func(n int64) float64 {
		if f.Seconds <= 0 {
			return 0
		}
		return float64(n) / f.Seconds
	}
	sf := &SysbenchFigures{SysbenchCounts: countsOf(t), TimeElapsedS: f.Seconds,
		EventsPerSec: per(t.Events), QueriesPerSec: per(t.Queries()), ErrorsPerSec: per(t.Errors),
		LatencySource: SourceSysbench, LatMinMs: float64(t.LatMinNs) / 1e6, LatMaxMs: float64(t.LatMaxNs) / 1e6,
		LatSumMs: float64(t.LatSumNs) / 1e6, Percentile: f.Percentile, SysbenchPercentileMs: f.PercentileMs,
		EventsAvg: f.EventsAvg, EventsStddev: f.EventsStddev, TimeAvgS: f.TimeAvg, TimeStddevS: f.TimeStddev}
	if t.Events > 0 {
		sf.LatAvgMs = float64(t.LatSumNs/t.Events) / 1e6
	}
	s.Sysbench = sf
	s.LostConnections = t.Lost
	if warm.Events > 0 || warm.Queries() > 0 {
		w := countsOf(warm)
		s.Warmup = &w
	}
	if len(res.Totals) > int(opEvent) {
		o := res.Totals[opEvent]
		h, kind := o.Service, "service"
		if o.Response != nil {
			h, kind = o.Response, "response"
		}
		s.HDR = &HDRFigures{Source: SourceHDR, Latency: kind, Count: o.Count(), Failed: o.Failed(), Stats: h.Stats()}
	}
}

// addPrepare fills in what prepare did.
func (s *Summary) addPrepare(p *PrepareResult) {
	for _, steps := range p.Plan.Tables {
		var ss []string
		for _, st := range steps {
			ss = append(ss, st.String())
		}
		s.DDL = append(s.DDL, ss)
	}
	s.Dropped = p.Plan.Dropped
	s.Rows, s.Statements = p.Rows, p.Statements
}

func (s *Summary) write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
