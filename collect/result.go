package collect

import (
	"fmt"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/provision"
)

// ResultSchema versions result.json. A change that breaks readers bumps it.
const ResultSchema = "ybbench-result/1"

// Result is result.json: what was measured and everything that shapes the
// numbers.
type Result struct {
	Schema  string    `json:"schema"`
	RunID   string    `json:"run_id"`
	Profile string    `json:"profile"`
	Created time.Time `json:"created"`
	// Versions of the tools, drivers and database.
	Versions map[string]string `json:"versions"`
	Cluster  *infra.Cluster    `json:"cluster,omitempty"`
	// Hosts holds facts gathered from each host (kernel, CPUs, memory, clock skew).
	Hosts      map[string]map[string]string `json:"hosts,omitempty"`
	Deployment *provision.Deployment        `json:"deployment,omitempty"`
	// Parameters are the run's parameters; Overridden names those that
	// differ from the profile's.
	Parameters map[string]string `json:"parameters"`
	Overridden []string          `json:"overridden,omitempty"`
	Workloads  []WorkloadResult  `json:"workloads"`
	Notes      []string          `json:"notes,omitempty"`
}

// WorkloadResult is one workload of the profile: its phases, the DDL it ran
// on, its published row and the comparison.
type WorkloadResult struct {
	Name   string        `json:"name"`
	DDL    string        `json:"ddl,omitempty"`
	Phases []PhaseResult `json:"phases"`
	// Published is the profile's row for this workload, if it has one.
	Published   *BaselineRow `json:"published,omitempty"`
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// Sanity is threads ÷ (throughput × mean outer-operation latency) of
	// the measured phase: ≈ 1 for a closed loop.
	Sanity     float64 `json:"sanity,omitempty"`
	SanityText string  `json:"sanity_text,omitempty"`
	// CPU is each db host's CPU over the measured phase.
	CPU      map[string]HostCPU `json:"cpu,omitempty"`
	Problems []string           `json:"problems,omitempty"`
}

// HostCPU is a db host's CPU use over a phase.
type HostCPU struct {
	Percent float64 `json:"percent"`
	// Source says what was measured (the node's /proc/stat, or the
	// database processes' own CPU time on hosts that share a kernel).
	Source string `json:"source"`
	// Seconds and SecondsAtEnd are the CPU seconds used over the phase and
	// the processes' cumulative CPU seconds when it ended (process mode).
	Seconds      float64 `json:"cpu_seconds,omitempty"`
	SecondsAtEnd float64 `json:"cpu_seconds_at_end,omitempty"`
}

// PhaseResult is a merged phase, as recorded.
type PhaseResult struct {
	Phase        string              `json:"phase"`
	Agents       []string            `json:"agents"`
	Threads      int                 `json:"threads"`
	Ops          int64               `json:"operations"`
	Throughput   float64             `json:"throughput_ops_per_sec"`
	WindowMS     int64               `json:"window_ms"`
	Complete     bool                `json:"complete"`
	Problems     []string            `json:"problems,omitempty"`
	Counters     map[string]int64    `json:"counters,omitempty"`
	Schedule     string              `json:"schedule,omitempty"`
	Measurements []MeasurementResult `json:"measurements"`
}

// MeasurementResult summarises one merged measurement (µs).
type MeasurementResult struct {
	Name     string           `json:"name"`
	Count    int64            `json:"count"`
	Errors   int64            `json:"errors"`
	Units    int64            `json:"units,omitempty"`
	Late     int64            `json:"late,omitempty"`
	Statuses map[string]int64 `json:"statuses,omitempty"`
	Latency  LatencySummary   `json:"latency_us"`
	// Response is the latency from the intended start, with a schedule.
	Response *LatencySummary `json:"response_us,omitempty"`
}

// LatencySummary holds a histogram's statistics, in microseconds.
type LatencySummary struct {
	Mean     float64 `json:"mean"`
	Min      int64   `json:"min"`
	P50      int64   `json:"p50"`
	P95      int64   `json:"p95"`
	P99      int64   `json:"p99"`
	P999     int64   `json:"p99_9"`
	Max      int64   `json:"max"`
	Overflow int64   `json:"overflow,omitempty"`
}

// Comparison is one published figure beside the measured one.
type Comparison struct {
	Column    string  `json:"column"`
	Statistic string  `json:"statistic"` // what of ours it is compared with
	Unit      string  `json:"unit"`
	Published float64 `json:"published"`
	Measured  float64 `json:"measured"`
	// Ratio is measured ÷ published.
	Ratio float64 `json:"ratio"`
}

func summarize(h interface {
	Count() int64
	Mean() float64
	Min() int64
	Max() int64
	Percentile(float64) int64
	Overflow() int64
}) LatencySummary {
	return LatencySummary{Mean: h.Mean(), Min: h.Min(), P50: h.Percentile(50), P95: h.Percentile(95),
		P99: h.Percentile(99), P999: h.Percentile(99.9), Max: h.Max(), Overflow: h.Overflow()}
}

// PhaseResultOf turns a merged phase into its recorded form.
func PhaseResultOf(p *Phase) PhaseResult {
	r := PhaseResult{Phase: p.Phase, Agents: p.Agents, Threads: p.Threads, Ops: p.Ops, Throughput: p.Throughput,
		WindowMS: p.Window.Milliseconds(), Complete: p.Complete, Problems: p.Problems, Counters: p.Counters, Schedule: p.Schedule}
	for _, m := range p.Measurements {
		mr := MeasurementResult{Name: m.Name, Count: m.Count(), Errors: m.Errors, Late: m.Late, Statuses: m.Statuses, Latency: summarize(m.Service)}
		if m.Units != m.Count()+m.Errors {
			mr.Units = m.Units
		}
		if m.Response != nil {
			s := summarize(m.Response)
			mr.Response = &s
		}
		r.Measurements = append(r.Measurements, mr)
	}
	return r
}

// Find returns a measurement of the phase.
func (p *PhaseResult) Find(name string) *MeasurementResult {
	for i := range p.Measurements {
		if p.Measurements[i].Name == name {
			return &p.Measurements[i]
		}
	}
	return nil
}

// Compare puts the measured phase beside the published row: throughput
// with throughput, each latency column with the statistic it names.
func Compare(row *BaselineRow, p *PhaseResult, throughput float64, cpu map[string]HostCPU) []Comparison {
	if row == nil {
		return nil
	}
	out := []Comparison{{Column: "throughput", Statistic: "throughput", Unit: "ops/s", Published: row.Throughput, Measured: throughput}}
	for _, l := range row.Latencies {
		c := Comparison{Column: l.Label, Statistic: l.Statistic + " " + l.Op, Unit: "ms", Published: l.MS}
		if m := p.Find(l.Op); m != nil {
			switch l.Statistic {
			case "p95":
				c.Measured = float64(m.Latency.P95) / 1000
			case "p99":
				c.Measured = float64(m.Latency.P99) / 1000
			default:
				c.Measured = m.Latency.Mean / 1000
			}
		}
		out = append(out, c)
	}
	if row.CPU > 0 && len(cpu) > 0 {
		var sum float64
		for _, c := range cpu {
			sum += c.Percent
		}
		out = append(out, Comparison{Column: "CPU (User + Sys)", Statistic: "mean db host CPU", Unit: "%", Published: row.CPU, Measured: sum / float64(len(cpu))})
	}
	for i := range out {
		if out[i].Published > 0 {
			out[i].Ratio = out[i].Measured / out[i].Published
		}
	}
	return out
}

// YCSBSanity is threads ÷ (throughput × mean latency of an outer operation)
// for a YCSB phase. An outer operation is one call of the workload: a
// READ-MODIFY-WRITE contains a READ and an UPDATE that are also measured on
// their own, so those are taken out of the READ and UPDATE totals.
func YCSBSanity(p *PhaseResult) (float64, string) {
	total := 0.0 // µs·ops
	ops := 0.0
	rmw := p.Find("READ-MODIFY-WRITE")
	nested := 0.0
	if rmw != nil {
		nested = float64(rmw.Count)
	}
	for _, m := range p.Measurements {
		n := float64(m.Count + m.Errors)
		switch m.Name {
		case "CLEANUP", "VERIFY":
			continue
		case "READ", "UPDATE":
			n -= nested
		}
		if n <= 0 {
			continue
		}
		total += n * m.Latency.Mean
		ops += n
	}
	if ops == 0 || p.Throughput == 0 {
		return 0, "no operations measured"
	}
	mean := total / ops // µs
	v := float64(p.Threads) / (p.Throughput * mean / 1e6)
	return v, fmt.Sprintf("%d threads ÷ (%.0f ops/s × %.3f ms mean) = %.2f", p.Threads, p.Throughput, mean/1000, v)
}

// OneSampleSanity is threads ÷ (rate × mean latency) for workloads whose
// every outer operation is one latency sample (a sysbench event, a KV read,
// write or batch): the rate counts samples, not the keys a batch stands for.
func OneSampleSanity(p *PhaseResult) (float64, string) {
	var total, n float64
	for _, m := range p.Measurements {
		if m.Name == "CLEANUP" {
			continue
		}
		c := float64(m.Count + m.Errors)
		total += c * m.Latency.Mean
		n += c
	}
	if n == 0 || p.WindowMS <= 0 {
		return 0, "no operations measured"
	}
	rate := n / (float64(p.WindowMS) / 1000)
	mean := total / n
	v := float64(p.Threads) / (rate * mean / 1e6)
	return v, fmt.Sprintf("%d threads ÷ (%.0f operations/s × %.3f ms mean) = %.2f", p.Threads, rate, mean/1000, v)
}

// WriteJSON writes v as indented JSON to path, atomically.
func WriteJSON(path string, v any) error {
	return atomicfile.WriteJSON(path, v, 0o644)
}
