package ycsb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/record/hist"
)

// writeExport writes the final report with the chosen YCSB exporter; an
// unknown one falls back to text with YCSB's notice on stderr.
func writeExport(w, stderr io.Writer, exporter string, res *bench.Result, o ReportOptions) error {
	switch exporter {
	case "site.ycsb.measurements.exporter.TextMeasurementsExporter", "text":
		return WriteReport(w, res, o)
	case "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "site.ycsb.measurements.exporter.JSONMeasurementsExporter", "json":
		var buf bytes.Buffer
		if err := WriteReport(&buf, res, o); err != nil {
			return err
		}
		return textToJSON(w, buf.String(), !strings.HasSuffix(exporter, "JSONMeasurementsExporter"))
	}
	fmt.Fprintf(stderr, "Could not find exporter %s, will use default text reporter.\n", exporter)
	return WriteReport(w, res, o)
}

// textToJSON re-renders report lines as YCSB's JSON exporters do:
// {"metric","measurement","value"} objects, in one array or one per line.
func textToJSON(w io.Writer, text string, array bool) error {
	type row struct {
		Metric      string `json:"metric"`
		Measurement string `json:"measurement"`
		Value       any    `json:"value"`
	}
	var rows []row
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		parts := strings.SplitN(l, ", ", 3)
		if len(parts) != 3 {
			continue
		}
		r := row{Metric: strings.Trim(parts[0], "[]"), Measurement: parts[1]}
		if i, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
			r.Value = i
		} else if f, err := strconv.ParseFloat(parts[2], 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			r.Value = f
		}
		rows = append(rows, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if array {
		return enc.Encode(rows)
	}
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// Summary is ybload's machine-readable summary of one YCSB phase, written
// beside the text report (ybload.summary).
type Summary struct {
	Schema        string            `json:"schema"`
	Tool          map[string]string `json:"tool"`
	Phase         string            `json:"phase"`
	Binding       string            `json:"binding"`
	WorkloadFiles []string          `json:"workload_files"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	RunTimeMS     int64             `json:"runtime_ms"`
	Throughput    float64           `json:"throughput_ops_per_sec"`
	Ops           int64             `json:"operations"`
	WarmupMS      int64             `json:"warmup_ms,omitempty"`
	WarmupOps     int64             `json:"warmup_operations,omitempty"`
	Threads       int               `json:"threads"`
	Stop          string            `json:"stop"`
	// DDL is what the binding ran to create the table, when it did.
	DDL       string `json:"ddl,omitempty"`
	Error     string `json:"error,omitempty"`
	Cancelled int64  `json:"cancelled,omitempty"`
	// Latency says what the measurements' latencies are: "service" (from
	// the actual start, YCSB's default) or "response" (from the intended start).
	Measurements []SummaryOp       `json:"measurements"`
	Counters     map[string]int64  `json:"counters"`
	Settings     map[string]string `json:"settings"`
}

// SummaryOp is one measurement of the summary.
type SummaryOp struct {
	Name    string `json:"name"`
	Latency string `json:"latency"`
	Count   int64  `json:"count"`
	Errors  int64  `json:"errors"`
	Late    int64  `json:"late,omitempty"`
	hist.Stats
	Statuses map[string]int64 `json:"statuses,omitempty"`
}

func summaryOf(res *bench.Result, settings map[string]string, counters map[string]int64, inv *Invocation) *Summary {
	phase := "run"
	if inv.Load {
		phase = "load"
	}
	s := &Summary{
		Schema: "ybload-ycsb-summary/1", Tool: map[string]string{"name": "ybload", "go": runtime.Version()},
		Phase: phase, Binding: inv.Binding, WorkloadFiles: inv.WorkloadFiles,
		Start: res.Start, End: res.End, RunTimeMS: res.RunTime.Milliseconds(), Throughput: res.Throughput(),
		Ops: res.Ops, WarmupMS: res.MeasureStart.Sub(res.Start).Milliseconds(), WarmupOps: res.WarmupOps,
		Threads: res.Threads, Stop: string(res.Stop), Cancelled: res.Cancelled,
		Counters: counters, Settings: settings,
	}
	if res.Err != nil {
		s.Error = res.Err.Error()
	}
	for _, o := range res.Totals {
		if o.Empty() {
			continue
		}
		add := func(kind string, h *hist.Hist) {
			op := SummaryOp{Name: o.Name, Latency: kind, Count: o.Count(), Errors: o.Failed(), Late: o.Late,
				Stats: h.Stats()}
			for i, n := range o.Statuses {
				if n > 0 {
					if op.Statuses == nil {
						op.Statuses = map[string]int64{}
					}
					op.Statuses[statusDefs[i].Name] = n
				}
			}
			s.Measurements = append(s.Measurements, op)
		}
		add("service", o.Service)
		if o.Response != nil {
			add("response", o.Response)
		}
	}
	return s
}

func writeSummaryFile(path string, res *bench.Result, o ReportOptions, settings map[string]string, counters map[string]int64, inv *Invocation, ddl string) error {
	s := summaryOf(res, settings, counters, inv)
	s.DDL = ddl
	return writeSummary(path, s)
}

// writePrepareSummary writes the summary of a prepare-only invocation
// (ybload.prepare.only): no measurements, the settings and the DDL the
// binding ran.
func writePrepareSummary(path string, b Binding, settings map[string]string, inv *Invocation) error {
	s := &Summary{Schema: "ybload-ycsb-summary/1", Tool: map[string]string{"name": "ybload", "go": runtime.Version()},
		Phase: "prepare", Binding: inv.Binding, WorkloadFiles: inv.WorkloadFiles, Stop: "prepared",
		Measurements: []SummaryOp{}, Counters: map[string]int64{}, Settings: settings, DDL: ddlOf(b)}
	return writeSummary(path, s)
}

// ddlOf is the DDL a binding ran, if it says.
func ddlOf(b Binding) string {
	if d, ok := b.(DDLer); ok {
		return d.DDL()
	}
	return ""
}

func writeSummary(path string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// settingsOf collects everything that shapes a number: the properties (with
// secrets masked), where each workload file came from, the binding's own
// settings, and the agent's.
func settingsOf(p *Props, inv *Invocation, b Binding, cfg *Config, ro *runOptions, version string) map[string]string {
	s := map[string]string{}
	for _, k := range p.Keys() {
		v := p.Get(k, "")
		if isSecretKey(k) {
			v = "****"
		}
		s["prop."+k] = v
	}
	s["ybload.version"] = version
	s["go.version"] = runtime.Version()
	s["ybload.seed"] = strconv.FormatUint(ro.seed, 10)
	s["ybload.interval"] = ro.interval.String()
	s["workload_files"] = strings.Join(inv.WorkloadFiles, ";")
	s["binding"] = inv.Binding
	s["recordcount.effective"] = strconv.FormatInt(cfg.RecordCount, 10)
	if d, ok := b.(Describer); ok {
		for k, v := range d.Settings() {
			s[k] = v
		}
	}
	return s
}
