package report

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
	"github.com/ybbench/ybbench/record/hostcpu"
	"github.com/ybbench/ybbench/record/repetition"
)

// synth describes a synthetic run directory: its workloads, repetitions
// (0: not repeated), agents, operations, ticks per phase and warm-up
// ticks of the run phase, and the CPU readings per db host.
type synth struct {
	workloads  []string
	reps       int
	agents     []string
	ops        []string
	loadTicks  int
	runTicks   int
	warmTicks  int
	perTick    int // measurements per operation, agent and tick
	dbHosts    []string
	cpuSamples int // readings between the phase's first and last
	verdict    bool
	// histograms, when set, is how many histograms each operation's ticks
	// of a file cycle through (drawn and encoded once each): a cheaper
	// fixture of a long run, whose ticks all decode alike.
	histograms int
}

// fixture is collect/report/testdata/run: 3 repetitions of one workload, two
// agents, two operations, 4 load and 8 run ticks (2 of warm-up), two db
// hosts read 3 times in between, a verdict.
var fixture = synth{workloads: []string{"workloada"}, reps: 3, agents: []string{"client-1", "client-2"},
	ops: []string{"READ", "UPDATE"}, loadTicks: 4, runTicks: 8, warmTicks: 2, perTick: 50,
	dbHosts: []string{"db-1", "db-2"}, cpuSamples: 3, verdict: true}

var synthStart = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// writeSynth writes the run directory: the agents' record files, the CPU
// files, result.json (from the records, through collect.Merge, as
// Aggregate makes it; repetitions and their spread filled in as --repeat
// would) and verdict.json.
func writeSynth(dir string, s synth) error {
	rng := rand.New(rand.NewSource(1))
	res := &collect.Result{Schema: collect.ResultSchema, RunID: "fixture-run", Profile: "ycsb-ysql", Created: synthStart,
		Versions: map[string]string{"ybbench": "test"}, Environment: collect.Environment{Provider: "local", Family: "ycsb", DBHosts: len(s.dbHosts), ClientHosts: len(s.agents), DBAuth: "on"},
		Hosts:        []collect.Host{},
		Parameters:   map[string]string{"threads": "64", "duration": "1m0s", "records": "2000", "operations": "20000", "workloads": "workloada"},
		Overridden:   []string{"records", "threads"},
		OverriddenBy: map[string]string{"records": "--records"}}
	start := synthStart
	for _, w := range s.workloads {
		wr := collect.WorkloadResult{Name: w}
		n := s.reps
		if n == 0 {
			n = 1
		}
		for k := 1; k <= n; k++ {
			name := w
			if s.reps > 0 {
				name = repetition.Stem(w, k)
			}
			var phases []collect.PhaseResult
			for _, ph := range []struct {
				name        string
				ticks, warm int
			}{{"load", s.loadTicks, 0}, {"run", s.runTicks, s.warmTicks}} {
				var files []collect.AgentFile
				for _, a := range s.agents {
					path := filepath.Join(dir, "agents", a, name+"-"+ph.name+".jsonl")
					f, err := writeRecords(path, w, ph.name, a, start, ph.ticks, ph.warm, s, rng, float64(k))
					if err != nil {
						return err
					}
					files = append(files, collect.AgentFile{Host: a, Path: path, File: f})
				}
				merged, err := collect.Merge(files)
				if err != nil {
					return err
				}
				phases = append(phases, collect.PhaseResultOf(merged))
				if ph.name == "run" {
					if err := writeCPU(dir, name, start.Add(time.Duration(ph.warm)*time.Second), ph.ticks-ph.warm, s, rng); err != nil {
						return err
					}
				}
				start = start.Add(time.Duration(ph.ticks+2) * time.Second)
			}
			run := phases[len(phases)-1]
			if s.reps == 0 {
				wr.Phases, wr.Throughput = phases, run.Throughput
				continue
			}
			wr.Repetitions = append(wr.Repetitions, collect.Repetition{Index: k, Phases: phases, Throughput: run.Throughput})
		}
		if s.reps > 0 {
			fillSpread(&wr)
		}
		wr.Comparisons = collect.Compare(&profiles.BaselineRow{Workload: w, Throughput: 37443,
			Latencies: []profiles.Published{{Label: "Read Latency", Op: "READ", MS: 1.5, Statistic: "mean"}, {Label: "Write Latency (update)", Op: "UPDATE", MS: 12, Statistic: "p99"}}},
			&wr.Phases[len(wr.Phases)-1], wr.Throughput, nil)
		res.Workloads = append(res.Workloads, wr)
	}
	if err := collect.WriteResult(filepath.Join(dir, ResultFile), res); err != nil {
		return err
	}
	if !s.verdict {
		return nil
	}
	return writeVerdict(dir, res)
}

// writeRecords writes one agent's record file of a phase: one tick per
// operation and second, latencies around a few ms (slower in repetition
// k's later ticks, so that the lines differ).
func writeRecords(path, workload, phase, agent string, start time.Time, ticks, warm int, s synth, rng *rand.Rand, k float64) (*record.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	rw := record.NewWriter(fh)
	f := &record.File{Meta: &record.Meta{V: record.Version, Type: record.KindMeta, Agent: agent, Workload: workload, Phase: phase,
		Start: start, IntervalMS: 1000, Threads: 32, WarmupMS: int64(warm) * 1000, Geometry: record.Shared, Ops: s.ops, Statuses: []string{"OK"}}}
	if err := rw.Write(f.Meta); err != nil {
		return nil, err
	}
	var ops int64
	drawn := map[[2]int]string{}
	for i := 0; i < ticks; i++ {
		for j, op := range s.ops {
			key := [2]int{j, i}
			if s.histograms > 0 {
				key[1] = i % s.histograms
			}
			enc, ok := drawn[key]
			if !ok {
				h := hist.New()
				for range perTick(s, k) {
					h.Record(int64(1000*(1+j) + rng.Intn(3000) + int(200*k*float64(i))))
				}
				var err error
				if enc, err = h.Encode(); err != nil {
					return nil, err
				}
				if s.histograms > 0 {
					drawn[key] = enc
				}
			}
			t := record.Tick{V: record.Version, Type: record.KindTick, Agent: agent, Phase: phase, Op: op, Warmup: i < warm, Index: i,
				Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i+1) * time.Second),
				Count: int64(perTick(s, k)), Statuses: map[string]int64{"OK": int64(perTick(s, k))}, Service: enc}
			if err := rw.Write(t); err != nil {
				return nil, err
			}
			f.Ticks = append(f.Ticks, t)
			if i >= warm {
				ops += int64(perTick(s, k))
			}
		}
	}
	f.End = &record.End{V: record.Version, Type: record.KindEnd, Agent: agent, Phase: phase, MeasureStart: start.Add(time.Duration(warm) * time.Second),
		End: start.Add(time.Duration(ticks) * time.Second), RunTimeMS: float64(ticks-warm) * 1000, Ops: ops, Stop: "duration"}
	if err := rw.Write(f.End); err != nil {
		return nil, err
	}
	return f, rw.Flush()
}

// perTick is the measurements per operation, agent and tick of
// repetition k (1 without repetitions): 10 more with each repetition.
func perTick(s synth, k float64) int { return s.perTick + 10*(int(k)-1) }

// writeCPU writes the run phase's CPU file, named as the agents' files
// are (<workload>-r<k> for repetition k).
func writeCPU(dir, name string, start time.Time, secs int, s synth, rng *rand.Rand) error {
	if len(s.dbHosts) == 0 {
		return nil
	}
	f := &hostcpu.File{Workload: name, Phase: "run", Hosts: map[string]hostcpu.Span{}}
	at0 := float64(start.Unix())
	for _, h := range s.dbHosts {
		var rs []hostcpu.Sample
		busy, total := int64(1000), int64(10000)
		n := s.cpuSamples + 2
		for i := 0; i < n; i++ {
			rs = append(rs, hostcpu.Sample{Mode: hostcpu.ModeNode, Busy: busy, Total: total, Hz: 100, Cores: 4, At: at0 + float64(i*secs)/float64(n-1)})
			busy += int64(100 + rng.Intn(200))
			total += 400
		}
		f.Hosts[h] = hostcpu.Span{Before: rs[0], After: rs[n-1], Samples: rs[1 : n-1]}
	}
	return hostcpu.Write(dir, f)
}

// fillSpread fills in the workload's own figures from its median
// repetition and the spread of throughput and each operation's p99, as
// --repeat does.
func fillSpread(w *collect.WorkloadResult) {
	reps := w.Repetitions
	order := make([]int, len(reps))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return reps[order[a]].Throughput < reps[order[b]].Throughput })
	med := reps[order[(len(reps)-1)/2]]
	w.MedianRepetition, w.Phases, w.Throughput = med.Index, med.Phases, med.Throughput
	spread := func(op, metric, unit string, v func(r collect.Repetition) float64) collect.Spread {
		sp := collect.Spread{Operation: op, Metric: metric, Unit: unit}
		var sum float64
		for _, r := range reps {
			sp.Values = append(sp.Values, v(r))
			sum += v(r)
		}
		sorted := slices.Sorted(slices.Values(sp.Values))
		sp.Min, sp.Max, sp.Median = sorted[0], sorted[len(sorted)-1], sorted[(len(sorted)-1)/2]
		mean := sum / float64(len(reps))
		var ss float64
		for _, x := range sp.Values {
			ss += (x - mean) * (x - mean)
		}
		if mean != 0 && len(reps) > 1 {
			sp.CV = math.Sqrt(ss/float64(len(reps)-1)) / mean
		}
		return sp
	}
	w.Spread = append(w.Spread, spread("", "throughput", "ops/s", func(r collect.Repetition) float64 { return r.Throughput }))
	for _, m := range w.Phases[len(w.Phases)-1].Measurements {
		name := m.Name
		w.Spread = append(w.Spread, spread(name, "p99", "ms", func(r collect.Repetition) float64 {
			return float64(r.Phases[len(r.Phases)-1].Find(name).Latency.P99) / 1000
		}))
	}
}

// writeVerdict writes a verdict of two gates: throughput against the
// published table (failed), and a p99 bound on READ (passed).
func writeVerdict(dir string, r *collect.Result) error {
	w := r.Workloads[0]
	tp := w.Throughput
	base := 37443.0
	ratio := tp / base
	bound := 0.9 * base
	p99 := float64(w.Phases[len(w.Phases)-1].Find("READ").Latency.P99)
	lim := 50000.0
	v := &verdict.Verdict{Schema: verdict.Schema, RunID: r.RunID, Profile: r.Profile, Created: synthStart, GateFile: "gates.yaml",
		Baseline: verdict.BaselineInfo{Source: "published"}, Complete: true, Outcome: "fail", Passed: 1, Failed: 1,
		Gates: []verdict.Gate{
			{Rule: verdict.Rule{Workload: "*", Metric: "throughput", Op: ">=", Ratio: ptr(0.9), Line: 3}, Workload: w.Name, Metric: "throughput", Outcome: "fail",
				Unit: "ops/s", Measured: &tp, Baseline: &base, Ratio: &ratio, Bound: &bound, Tolerance: ">= 0.9 × baseline"},
			{Rule: verdict.Rule{Workload: w.Name, Operation: "READ", Metric: "p99", Op: "<=", Value: &lim, Line: 4}, Workload: w.Name, Operation: "READ", Metric: "p99",
				Outcome: "pass", Unit: "µs", Measured: &p99, Bound: &lim, Tolerance: "<= 50000 µs"},
		}}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := verdict.Validate(b); err != nil {
		return fmt.Errorf("fixture verdict: %w", err)
	}
	return verdict.Write(filepath.Join(dir, verdict.VerdictFile), v)
}

func ptr(x float64) *float64 { return &x }
