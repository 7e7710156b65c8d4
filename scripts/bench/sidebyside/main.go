// Command sidebyside runs ybload beside its peers on the same local
// PostgreSQL and prints the figures of the agent's benchmark (README,
// "Benchmarks"): client CPU per operation, throughput, load rate, the null
// binding's rate and the agent's resident memory. Each configuration runs
// several times, alternating tools; medians and spreads are reported.
//
// It is a measurement, not a test: it asserts nothing and never fails on a
// figure.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type pgEnv struct {
	Postgres struct {
		Host     string `json:"host"`
		Port     int    `json:"port"`
		User     string `json:"user"`
		Password string `json:"password"`
		Database string `json:"database"`
		Version  string `json:"version"`
		Config   string `json:"config"`
		DataDir  string `json:"data_dir"`
	} `json:"postgres"`
}

var (
	endpoints = flag.String("endpoints", ".testenv/endpoints.json", "test environment endpoints file")
	ybload    = flag.String("ybload", "bin/ybload", "ybload binary")
	goycsb    = flag.String("goycsb", ".cache/bench/go-ycsb", "go-ycsb v1.0.3 binary")
	floor     = flag.String("floor", ".cache/bench/pgxfloor", "pgxfloor binary")
	records   = flag.Int("records", 100000, "records per table")
	ops       = flag.Int("ops", 200000, "operations per run phase")
	threads   = flag.Int("threads", 32, "client threads")
	reps      = flag.Int("reps", 3, "repetitions of each configuration (alternated)")
	nullOps   = flag.Int("null-ops", 10000000, "operations of the null-binding runs")
	only      = flag.String("only", "", "comma list of sections to run: load,run,null,memory,sysbench,callgrind,profile,ycql,refs,pipeline,sampling,sweep,metrics,pacing,scale,fanout,agentmem (default all; scale takes fanout and agentmem with it)")
	workdir   = flag.String("work", "bench-out", "directory for property files and outputs")
)

func main() {
	flag.Parse()
	for _, f := range []struct {
		name string
		v    int
	}{{"reps", *reps}, {"pipeline-reps", *pipelineReps}, {"records", *records}, {"ops", *ops}, {"threads", *threads},
		{"null-ops", *nullOps}, {"sysbench-time", *sbTime}, {"sysbench-reps", *sbReps}, {"sysbench-tables", *sbTables},
		{"sysbench-table-size", *sbRows}, {"sysbench-events", *sbEvents}, {"ycql-records", *ycqlRecords}, {"ycql-ops", *ycqlOps},
		{"ycql-threads", *ycqlThreads}, {"ycql-kv-time", *ycqlKVTime},
		{"refs-null-ops", *refNullOps}, {"refs-null-threads", *refThreads}, {"refs-kv-ops", *refKVOps}, {"refs-kv-read-ops", *refKVReadOps}, {"refs-kv-batch-ops", *refKVBatchOps}, {"refs-startup-ops", *refStartOps}, {"callgrind-events", *cgEvents}, {"refs-kv-threads", *refKVThr},
		{"metrics-time", *metricsTime}, {"metrics-reps", *metricsReps}, {"metrics-threads", *metricsThreads}, {"metrics-target", *metricsTarget}} {
		if f.v < 1 {
			fmt.Fprintf(os.Stderr, "sidebyside: -%s=%d: must be at least 1\n", f.name, f.v)
			os.Exit(2)
		}
	}
	if *cgEvents < 2 {
		// The short run does a fifth, at least 1: the two must differ, or
		// instructions per transaction divide by zero.
		fmt.Fprintf(os.Stderr, "sidebyside: -callgrind-events=%d: must be at least 2 (the short run does a fifth, at least 1)\n", *cgEvents)
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

func want(section string) bool {
	chosen := strings.Split(*only, ",")
	// The growth curves are one section to a reader: scale takes the
	// orchestrator's fan-out and the agent's memory with it.
	grows := (section == "fanout" || section == "agentmem") && slices.Contains(chosen, "scale")
	return *only == "" || grows || slices.Contains(chosen, section)
}

// run runs the sections -only names, always in this order, into one
// report. The report is printed and kept as bench.md once every chosen
// section has run: a section that fails ends the run with its error, and
// no partial report is printed.
func run() error {
	var env pgEnv
	if needsPostgres() {
		b, err := os.ReadFile(*endpoints)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(*workdir, 0o755); err != nil {
		return err
	}
	ctx := context.Background()
	pb := newPGBench(ctx, env)
	out := &strings.Builder{}
	if needsPostgres() {
		fmt.Fprintf(out, "# ybload beside its peers\n\n%s; PostgreSQL %s (config %s); %d records, %d threads, %d operations per run, %d repetitions alternated; client CPU = user+sys of the client process.\n\n",
			time.Now().Format(time.RFC3339), env.Postgres.Version, env.Postgres.Config, *records, *threads, *ops, *reps)
	} else {
		// The sections chosen say their own sizes.
		fmt.Fprintf(out, "# ybload beside its peers\n\n%s; no PostgreSQL section; client CPU = user+sys of the client process.\n\n", time.Now().Format(time.RFC3339))
	}

	// The YCSB sections on PostgreSQL say what failed themselves; the load
	// phase also makes the tables the run phase reads.
	for _, s := range []struct {
		on  bool
		run func(*strings.Builder) error
	}{
		{want("load") || want("run"), pb.loadSection},
		{want("run"), pb.runSection},
		{want("null"), pb.nullSection},
		{want("memory"), pb.memorySection},
	} {
		if s.on {
			if err := s.run(out); err != nil {
				return err
			}
		}
	}
	for _, s := range []struct {
		name string
		run  func() error
	}{
		{"sysbench", func() error { return sysbenchSection(ctx, out, env, pb.fresh) }},
		{"callgrind", func() error { return callgrindSection(ctx, out, env, pb.fresh) }},
		{"profile", func() error { return profileSection(ctx, out, env, pb.fresh) }},
		{"ycql", func() error { return ycqlSection(ctx, out) }},
		{"refs", func() error { return refsSection(ctx, out) }},
		{"pipeline", func() error { return pipelineSection(out) }},
		{"sampling", func() error { return samplingSection(out) }},
		{"sweep", func() error { return sweepSection(out) }},
		{"metrics", func() error { return metricsSection(out) }},
		{"pacing", func() error { return pacingSection(out) }},
		{"scale", func() error { return scaleSection(out) }},
		{"fanout", func() error { return fanoutSection(out) }},
		{"agentmem", func() error { return agentmemSection(out) }},
	} {
		if want(s.name) {
			if err := s.run(); err != nil {
				return fmt.Errorf("%s section: %w", s.name, err)
			}
		}
	}
	fmt.Print(out.String())
	return os.WriteFile(filepath.Join(*workdir, "bench.md"), []byte(out.String()), 0o644)
}

// needsPostgres reports whether a chosen section runs on the test
// PostgreSQL, whose endpoints file run reads; the others (the null
// binding's, the metrics', the local clusters') run without it.
func needsPostgres() bool {
	for _, s := range []string{"load", "run", "memory", "sysbench", "callgrind", "profile"} {
		if want(s) {
			return true
		}
	}
	return false
}

// workloadFile copies Java YCSB's workload file name into the work
// directory and returns the copy's path: every tool reads the same file,
// and the work directory keeps what each run was given.
func workloadFile(name string) string {
	p := filepath.Join(*workdir, name)
	src, _ := os.ReadFile(filepath.Join("bench/ycsb/workloads", name))
	os.WriteFile(p, src, 0o644)
	return p
}
