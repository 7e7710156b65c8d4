package collect

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/profiles"
)

// ResultSchema versions result.json. A change that breaks readers bumps it;
// result.schema.json describes it.
const ResultSchema = "ybbench-result/3"

// Result is result.json: what was measured and everything that shapes the
// numbers, built from the run directory alone (Aggregate). Its types are
// collect's own, so that a change to a host or deployment type does not
// change the schema, and it holds no key paths, host keys or secret paths.
type Result struct {
	Schema  string    `json:"schema"`
	RunID   string    `json:"run_id"`
	Profile string    `json:"profile"`
	Created time.Time `json:"created"`
	// Versions of the tools, drivers and database.
	Versions    map[string]string `json:"versions"`
	Environment Environment       `json:"environment"`
	Hosts       []Host            `json:"hosts"`
	Database    *Database         `json:"database,omitempty"`
	// Parameters are the run's parameters; Overridden names those that
	// differ from the profile's.
	Parameters map[string]string `json:"parameters"`
	Overridden []string          `json:"overridden,omitempty"`
	// OverriddenBy says which flag, preset, variable or spec file
	// overrode each (when recorded): "--quick", "--records".
	OverriddenBy map[string]string `json:"overridden_by,omitempty"`
	// Baseline is the profile's published table the run is compared with.
	Baseline  *BaselineResult  `json:"baseline,omitempty"`
	Workloads []WorkloadResult `json:"workloads"`
	Notes     []string         `json:"notes,omitempty"`
	// Caveats are what a reader must know before reading a figure (not
	// the published database, one shared machine, overrides, choices,
	// preflight warnings, the command): both reports render this list.
	Caveats []Caveat `json:"caveats,omitempty"`
	// Invocations holds the ybbench command that created the run (one
	// entry). The commands that worked on it later are in the run's
	// invocations.json, not here: collecting again gives the same result.
	Invocations []Invocation `json:"invocations,omitempty"`
	// Chosen are the settings a default chose, where they differ from the
	// profile's (Overridden holds only what the user asked for).
	Chosen []Choice `json:"chosen,omitempty"`
	// Reproduction is the verdict on each published row (absent without
	// a published table).
	Reproduction *Reproduction `json:"reproduction,omitempty"`
	// Build is the build under test as the run was told it (--build-id,
	// --build-time); absent when it was not, and then a history takes the
	// database's version for it.
	Build *Build `json:"build,omitempty"`
	// PreflightWarnings are the preflight's warnings, each naming its host.
	PreflightWarnings []string `json:"preflight_warnings,omitempty"`
}

// Build names the build of the database (or of anything else) a run
// measured, so that a results history orders runs by it.
type Build struct {
	ID   string     `json:"id"`
	Time *time.Time `json:"time,omitempty"`
}

// Environment is where and how the run ran, including the safety
// settings it ran with.
type Environment struct {
	Provider    string `json:"provider"`
	Family      string `json:"family"`
	Binding     string `json:"binding,omitempty"`
	DBHosts     int    `json:"db_hosts"`
	ClientHosts int    `json:"client_hosts"`
	// AcceptNewHostKeys is whether the run was allowed to trust a host's
	// SSH key on first use; the hosts it did so for say so (host_key_source).
	AcceptNewHostKeys bool `json:"accept_new_host_keys"`
	// DBAuth is "on" (generated credentials) or "off" (the database was
	// left open, as in the seeds' setup).
	DBAuth string `json:"db_auth"`
	// SharedMachine is set when the hosts shared one machine.
	SharedMachine *SharedMachine `json:"shared_machine,omitempty"`
	// PublishedProduct is the database the published figures were
	// measured on (YugabyteDB), to state when this run's was another.
	PublishedProduct string `json:"published_product,omitempty"`
}

// Host is one machine of the run: what it is, never how to reach it.
type Host struct {
	Name         string   `json:"name"`
	Roles        []string `json:"roles"`
	InstanceType string   `json:"instance_type,omitempty"`
	Cloud        string   `json:"cloud,omitempty"`
	Region       string   `json:"region,omitempty"`
	Zone         string   `json:"zone,omitempty"`
	// Shared marks a host that shares this machine's kernel (local hosts).
	Shared bool `json:"shared,omitempty"`
	// HostKeySource says where the pin of its SSH key came from
	// ("accepted-on-first-use" when it was trusted on first contact).
	HostKeySource string `json:"host_key_source,omitempty"`
	// Facts are what the preflight found (kernel, CPUs, memory, clock skew).
	Facts map[string]string `json:"facts,omitempty"`
}

// Database is the deployed database: flavor, version, endpoints and the
// settings that shape a number (no credentials).
type Database struct {
	Flavor string `json:"flavor"`
	// Product is the flavor's database as a reader knows it (PostgreSQL).
	Product  string            `json:"product,omitempty"`
	Version  string            `json:"version"`
	User     string            `json:"user,omitempty"`
	Name     string            `json:"database,omitempty"`
	YSQL     []string          `json:"ysql,omitempty"` // host:port
	YCQL     []string          `json:"ycql,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
}

// BaselineResult is the published table, and whether it satisfies
// Little's law (only a consistent table may gate a release).
type BaselineResult struct {
	profiles.Baseline
	Consistent      bool     `json:"consistent"`
	Inconsistencies []string `json:"inconsistencies,omitempty"`
}

// WorkloadResult is one workload of the profile: its phases, the DDL it ran
// on, its published row and the comparison.
type WorkloadResult struct {
	Name   string        `json:"name"`
	DDL    string        `json:"ddl,omitempty"`
	Phases []PhaseResult `json:"phases"`
	// Published is the profile's row for this workload, if it has one, and
	// PublishedLittlesLaw that row's own threads ÷ (throughput × mean latency).
	Published           *profiles.BaselineRow `json:"published,omitempty"`
	PublishedLittlesLaw *LittlesLaw           `json:"published_littles_law,omitempty"`
	// Throughput is the measured phase's figure the published throughput is
	// compared with, and ThroughputBasis what it counts (the family's own).
	Throughput      float64      `json:"throughput,omitempty"`
	ThroughputBasis string       `json:"throughput_basis,omitempty"`
	Comparisons     []Comparison `json:"comparisons,omitempty"`
	// Sanity is threads ÷ (throughput × mean outer-operation latency) of
	// the measured phase: ≈ 1 for a closed loop.
	Sanity     float64 `json:"sanity,omitempty"`
	SanityText string  `json:"sanity_text,omitempty"`
	// SanityTolerance is how far from 1 Sanity may be, and SanityWithin
	// whether it is (absent when no figure was computed).
	SanityTolerance float64 `json:"sanity_tolerance,omitempty"`
	SanityWithin    *bool   `json:"sanity_within,omitempty"`
	// CPU is each db host's CPU over the measured phase.
	CPU      map[string]HostCPU `json:"cpu,omitempty"`
	Problems []string           `json:"problems,omitempty"`
	// Limit is what limited the measured phase (collect/bottleneck).
	Limit *bottleneck.Verdict `json:"limit,omitempty"`
	// Sweep is the workload's throughput–latency sweep, when it had one
	// (with repetitions, its median repetition's: each repetition's run
	// is followed by a sweep of its own), and SweepAgreement how far the
	// repetitions' knees lie apart.
	Sweep          *SweepResult    `json:"sweep,omitempty"`
	SweepAgreement *SweepAgreement `json:"sweep_agreement,omitempty"`
	// Repetitions are the workload's repetitions, in the order run, when
	// the run repeated its workloads (--repeat N, N > 1); absent otherwise.
	// The workload's own Phases, Throughput, Comparisons, Sanity and CPU
	// are then those of its median repetition, MedianRepetition (by the
	// measured phase's throughput; the lower of the two middle ones when N
	// is even), so that a reader of one repetition reads a real one; Spread
	// gives every figure over all of them.
	Repetitions      []Repetition `json:"repetitions,omitempty"`
	MedianRepetition int          `json:"median_repetition,omitempty"`
	Spread           []Spread     `json:"spread,omitempty"`
}

// Repetition is one repetition of a workload: its phases and figures, as
// a workload of a run without repetitions has them.
type Repetition struct {
	// Index counts from 1; the ledger's steps are bench/<workload>/r<Index>/<phase>.
	Index       int                 `json:"index"`
	Phases      []PhaseResult       `json:"phases"`
	Throughput  float64             `json:"throughput,omitempty"`
	Comparisons []Comparison        `json:"comparisons,omitempty"`
	Sanity      float64             `json:"sanity,omitempty"`
	CPU         map[string]HostCPU  `json:"cpu,omitempty"`
	Problems    []string            `json:"problems,omitempty"`
	Limit       *bottleneck.Verdict `json:"limit,omitempty"`
	Sweep       *SweepResult        `json:"sweep,omitempty"`
}

// Spread is one figure of a workload over its repetitions: the values in
// the order run, their median (what gates use), range and coefficient of
// variation.
type Spread struct {
	// Operation is "" for a figure of the workload as a whole (its
	// throughput and error rate).
	Operation string `json:"operation,omitempty"`
	// Metric is one of the gates' metrics: throughput, error_rate, mean,
	// p50, p95, p99, p99.9, max.
	Metric string    `json:"metric"`
	Unit   string    `json:"unit"`
	Values []float64 `json:"values"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	// CV is the sample standard deviation (n − 1) over the mean; 0 when
	// the mean is 0.
	CV float64 `json:"cv"`
}

// LittlesLaw is threads ÷ (throughput × mean latency) of a published row.
type LittlesLaw struct {
	Threads int     `json:"threads"`
	Value   float64 `json:"value"`
	// Tolerance is how far from 1 Value may be, and Within whether it is.
	Tolerance float64 `json:"tolerance"`
	Within    bool    `json:"within"`
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
		WindowMS: p.Window.Milliseconds(), Complete: p.Complete, Problems: p.Problems, Counters: p.Counters, Schedule: p.Schedule,
		Measurements: []MeasurementResult{}}
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
func Compare(row *profiles.BaselineRow, p *PhaseResult, throughput float64, cpu map[string]HostCPU) []Comparison {
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

// zeroMeanSanity is the Little's-law line of a phase whose every latency
// was below the histograms' 1 µs resolution (an agent's null binding):
// threads ÷ (rate × 0) is no figure, and JSON has no infinity.
const zeroMeanSanity = "mean latency 0 µs (below the histograms' 1 µs resolution): not computed"

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
	if mean == 0 {
		return 0, zeroMeanSanity
	}
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
	if mean == 0 {
		return 0, zeroMeanSanity
	}
	v := float64(p.Threads) / (rate * mean / 1e6)
	return v, fmt.Sprintf("%d threads ÷ (%.0f operations/s × %.3f ms mean) = %.2f", p.Threads, rate, mean/1000, v)
}

// WriteResult writes result.json, atomically, after checking it against
// result.schema.json: a result that does not match its schema is a bug,
// and is never published.
func WriteResult(path string, r *Result) error {
	if err := ValidateResult(r); err != nil {
		return fmt.Errorf("result.json does not match %s: %w", ResultSchema, err)
	}
	return atomicfile.WriteJSON(path, r, 0o644)
}

// ReadResult parses a result.json of this schema version.
func ReadResult(b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("result.json: %w", err)
	}
	if r.Schema != ResultSchema {
		return nil, fmt.Errorf("result.json is %q, not %s", r.Schema, ResultSchema)
	}
	return &r, nil
}
