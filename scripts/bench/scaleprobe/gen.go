package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/pace"
	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hostcpu"
	"github.com/ybbench/ybbench/record/repetition"
)

// shape is a synthetic run: its workloads, repetitions (0: not
// repeated), agents, operations, load and run ticks (one second each,
// warm-up ticks first), measurements per operation, agent and tick, and
// whether the run phase ran to a schedule (its ticks then carry response
// times too).
type shape struct {
	workloads, reps, agents, ops int
	loadTicks, runTicks, warm    int
	perTick                      int
	schedule                     bool
}

var (
	start   = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	opNames = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE"}
	dbHosts = []string{"db-1", "db-2", "db-3"}
)

// generate writes a run directory collect and report read as a finished
// run's: setup.json, every agent's record files (written by the agent's
// own record sink, bench.RecordSink, from measurements of the agent's own
// types) and the db hosts' CPU files of the run phase, read every 5 s.
func generate(dir string, s shape) error {
	setup := &collect.Setup{Schema: collect.SetupSchema, RunID: "scale", Created: start, Profile: "ycsb-ysql", Family: "ycsb", Binding: "ysql",
		Repetitions: s.reps, Parameters: map[string]string{"threads": "32"}, Provider: "local", DBHosts: len(dbHosts), ClientHosts: s.agents,
		DBAuth: "on", Versions: map[string]string{"ybbench": "scale"}}
	rng := rand.New(rand.NewPCG(1, 2))
	at := start
	for w := 1; w <= s.workloads; w++ {
		name := fmt.Sprintf("workload%c", 'a'+w-1)
		setup.Workloads = append(setup.Workloads, collect.SetupWorkload{Name: name,
			Phases: []collect.SetupPhase{{Name: "load", Records: true}, {Name: "run", Records: true}}})
		for _, k := range repetition.Numbers(s.reps) {
			stem := repetition.Stem(name, k)
			for _, ph := range []struct {
				name        string
				ticks, warm int
			}{{"load", s.loadTicks, 0}, {"run", s.runTicks, s.warm}} {
				for a := 1; a <= s.agents; a++ {
					host := fmt.Sprintf("client-%d", a)
					path := filepath.Join(dir, "agents", host, stem+"-"+ph.name+".jsonl")
					if err := writeAgent(path, s, host, name, ph.name, at, ph.ticks, ph.warm, s.schedule && ph.name == "run", rng); err != nil {
						return err
					}
				}
				if ph.name == "run" {
					if err := writeCPU(dir, name, k, at, ph.ticks, rng); err != nil {
						return err
					}
				}
				at = at.Add(time.Duration(ph.ticks+2) * time.Second)
			}
		}
	}
	return collect.WriteSetup(filepath.Join(dir, collect.SetupFile), setup)
}

// writeAgent writes one agent's record file of a phase through the
// agent's record sink: a tick a second, every operation measured perTick
// times, latencies of a few ms.
func writeAgent(path string, s shape, host, workload, phase string, at time.Time, ticks, warm int, scheduled bool, rng *rand.Rand) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sink := bench.NewRecordSink(record.NewWriter(f), record.Meta{Agent: host, Workload: workload, Phase: phase})
	cat := &bench.Catalog{Ops: opNames[:s.ops], Statuses: []bench.StatusDef{{Name: "OK", OK: true}}, Cleanup: -1}
	cfg := &bench.Config{Threads: 32, Duration: time.Duration(ticks-warm) * time.Second, Warmup: time.Duration(warm) * time.Second, Interval: time.Second}
	if scheduled {
		cfg.Schedule = &pace.Target{OpsPerSec: float64(s.ops * s.perTick), Threads: 32}
	}
	if err := sink.Begin(&bench.RunInfo{Workload: workload, Catalog: cat, Config: cfg, Start: at, Scheduled: scheduled}); err != nil {
		return err
	}
	measured, warmup := make([]*bench.OpStats, s.ops), make([]*bench.OpStats, s.ops)
	for j := range measured {
		measured[j] = bench.NewOpStats(bench.Op(j), cat.Ops[j], 1, scheduled)
		warmup[j] = bench.NewOpStats(bench.Op(j), cat.Ops[j], 1, scheduled)
	}
	var ops, warmOps int64
	for i := 0; i < ticks; i++ {
		part := measured
		if i < warm {
			part = warmup
		}
		for j, o := range part {
			measured[j].Reset()
			warmup[j].Reset()
			for range s.perTick {
				v := int64(1000*(1+j) + rng.IntN(3000) + int(rng.ExpFloat64()*500))
				o.Service.Record(v)
				if scheduled {
					o.Response.Record(v + int64(rng.IntN(200)))
				}
			}
			o.Units, o.Statuses[0] = int64(s.perTick), int64(s.perTick)
		}
		if i < warm {
			warmOps += int64(s.ops * s.perTick)
		} else {
			ops += int64(s.ops * s.perTick)
		}
		from := at.Add(time.Duration(i) * time.Second)
		if err := sink.Tick(&bench.Interval{Index: i, Start: from, End: from.Add(time.Second), Measured: measured, Warmup: warmup}); err != nil {
			return err
		}
	}
	end := at.Add(time.Duration(ticks) * time.Second)
	mstart := at.Add(time.Duration(warm) * time.Second)
	if err := sink.End(&bench.Result{Workload: workload, Threads: 32, Start: at, MeasureStart: mstart, End: end, RunTime: end.Sub(mstart),
		Ops: ops, WarmupOps: warmOps, Stop: bench.StopDuration}); err != nil {
		return err
	}
	return f.Close()
}

// writeCPU writes the run phase's CPU file: each db host read every 5 s.
func writeCPU(dir, workload string, rep int, at time.Time, secs int, rng *rand.Rand) error {
	f := &hostcpu.File{Workload: workload, Rep: rep, Phase: "run", Hosts: map[string]hostcpu.Span{}}
	n := secs/5 + 2
	for _, h := range dbHosts {
		var rs []hostcpu.Sample
		busy, total := int64(1000), int64(10000)
		for i := 0; i < n; i++ {
			rs = append(rs, hostcpu.Sample{Mode: hostcpu.ModeNode, Busy: busy, Total: total, Hz: 100, Cores: 4,
				At: float64(at.Unix()) + float64(i*secs)/float64(n-1)})
			busy += int64(100 + rng.IntN(200))
			total += 400
		}
		f.Hosts[h] = hostcpu.Span{Before: rs[0], After: rs[n-1], Samples: rs[1 : n-1]}
	}
	return hostcpu.Write(dir, f)
}
