package main

// The reference-tools section (-only refs): ybload beside the JVM tools the
// seeds themselves used, both fetched by the test environment (refs.json):
//
//   - YCSB core 0.17.0's Client with BasicDB (basicdb.verbose=false: it
//     would print every operation) against ybload's null binding with
//     null.values=skip (BasicDB reads no value, and YCSB makes a value's
//     bytes only when they are read; ybload's default makes them): workloads
//     A and C, the same operation count and threads, no database. The
//     agent's own cost per operation against YCSB's framework cost: YCSB's
//     CPU less its JVM's start-up (a run of -refs-startup-ops operations,
//     each repetition), over the operations.
//   - yb-sample-apps 1.0.11 (java -jar, --disable_yb_load_balancing_policy:
//     on Apache Cassandra there is no YugabyteDB partition metadata) against
//     `ybload kv`, the seeds' three KV workloads scaled to this machine, on
//     the test Cassandra, each run on a fresh ybdemo_keyspace, with the same
//     flags: wall rate and client CPU per counted operation (--num_writes or
//     --num_reads; the batch workload counts as its flags do in both);
//     refskv.go.
//
// Every configuration runs -reps times, the two tools' order alternating;
// each Java tool's start-up share of its CPU is printed, and must be under 5%
// for its figures to be the framework's (the defaults are sized for that).

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

var (
	refNullOps  = flag.Int("refs-null-ops", 8000000, "operations of the YCSB core BasicDB and ybload null runs")
	refStartOps = flag.Int("refs-startup-ops", 100, "operations of the Java tools' start-up runs (their CPU is the JVM's start-up cost)")
	refThreads  = flag.Int("refs-null-threads", 4, "threads of the BasicDB and null runs")
	refKVOn     = flag.Bool("refs-kv", true, "run the yb-sample-apps half of -only refs (false: only the YCSB BasicDB half, about 10 s a repetition)")
	// The KV defaults make the JVM's start-up (about 1.9 s of CPU here, the
	// driver's connection included) under 5% of yb-sample-apps' CPU: it
	// spends about 140 µs per write, 40 µs per batched key and 135 µs per
	// read, and a read-heavy run first writes 100 000 keys (its pure-read
	// setup, which ybload kv does too) at about 20 s of CPU. A whole make
	// bench with 150 000 reads and 2 500 000 batched keys printed shares of
	// 4.8% and 5.1%; the counts below leave a margin.
	refKVOps      = flag.Int("refs-kv-ops", 300000, "--num_writes of each write-heavy KV run")
	refKVReadOps  = flag.Int("refs-kv-read-ops", 200000, "--num_reads of each read-heavy KV run")
	refKVBatchOps = flag.Int("refs-kv-batch-ops", 3000000, "--num_writes of each batch write-heavy KV run")
	refKVThr      = flag.Int("refs-kv-threads", 16, "writers or readers of each KV run")
)

// refTools are where the test environment put the Java tools.
type refTools struct {
	Java          string `json:"java"`
	YCSBClassPath string `json:"ycsb_classpath"`
	YBSampleApps  string `json:"yb_sample_apps_jar"`
}

type refsEnv struct {
	Refs      *refTools `json:"refs"`
	Cassandra *struct {
		Hosts []string `json:"hosts"`
		Port  int      `json:"port"`
	} `json:"cassandra"`
}

func refsSection(ctx context.Context, out *strings.Builder) error {
	b, err := os.ReadFile(*endpoints)
	if err != nil {
		return err
	}
	var env refsEnv
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	if env.Refs == nil || env.Cassandra == nil {
		return fmt.Errorf("no refs or Cassandra in %s (run make testenv)", *endpoints)
	}
	nulls, start, err := measureBasicDB(env.Refs)
	if err != nil {
		return err
	}
	writeBasicDB(out, nulls, start)
	fmt.Fprint(out, "\n\n")
	if !*refKVOn {
		return nil
	}
	return sampleAppsHalf(ctx, out, env)
}

const ycsbName, nullName = "YCSB core 0.17.0 BasicDB", "ybload null binding, null.values=skip"

// basicDBArgs is YCSB core's Client with BasicDB on workload w.
func basicDBArgs(r *refTools, w string, ops int) []string {
	return []string{r.Java, "-cp", r.YCSBClassPath, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB",
		"-P", workloadFile(w), "-p", "recordcount=100000", "-p", "operationcount=" + strconv.Itoa(ops), "-threads", strconv.Itoa(*refThreads), "-p", "basicdb.verbose=false"}
}

// measureBasicDB runs YCSB core BasicDB and the null binding on workloads
// A and C, by "workload | client", and YCSB's JVM start-up each repetition:
// a run of -refs-startup-ops operations, taken off YCSB's CPU for its
// framework cost per operation.
func measureBasicDB(r *refTools) (nulls map[string][]sample, ycsbStart []sample, err error) {
	nulls = map[string][]sample{}
	for rep := 0; rep < *reps; rep++ {
		s, err := measure(basicDBArgs(r, "workloada", *refStartOps), int64(*refStartOps))
		if err != nil {
			return nil, nil, fmt.Errorf("YCSB start-up run: %w", err)
		}
		ycsbStart = append(ycsbStart, s)
		for _, w := range []string{"workloada", "workloadc"} {
			for _, tool := range alternated([]string{ycsbName, nullName}, rep) {
				args := basicDBArgs(r, w, *refNullOps)
				if tool == nullName {
					args = []string{*ybload, "run", "null", "-P", workloadFile(w), "-p", "recordcount=100000", "-p", "operationcount=" + strconv.Itoa(*refNullOps),
						"-p", "threadcount=" + strconv.Itoa(*refThreads), "-p", "null.values=skip"}
				}
				s, err := measure(args, int64(*refNullOps))
				if err != nil {
					return nil, nil, fmt.Errorf("%s %s: %w", tool, w, err)
				}
				key := w + " | " + tool
				nulls[key] = append(nulls[key], s)
				fmt.Fprintf(os.Stderr, "%s rep %d: %.3f µs CPU/op, %.0f ops/s (its own figure)\n", key, rep+1, cpuPerOpExact(s), s.thr)
			}
		}
	}
	return nulls, ycsbStart, nil
}

// writeBasicDB prints the BasicDB half: YCSB's start-up, the table, and
// ybload's CPU per operation against YCSB's framework cost.
func writeBasicDB(out *strings.Builder, nulls map[string][]sample, ycsbStart []sample) {
	start := median(ycsbStart, cpuSeconds)
	fmt.Fprintf(out, "## Beside YCSB core 0.17.0 (no database): workloads A and C, %d threads, %d operations, -reps %d alternated\n\n", *refThreads, *refNullOps, *reps)
	fmt.Fprintf(out, "YCSB's JVM start-up (a run of %d operations): %.2f s CPU (median; %s), %.1f%% of the workload A run's CPU (must be under 5%%: else raise -refs-null-ops). "+
		"Framework cost = (CPU − start-up) / operations.\n\n", *refStartOps, start, spread(ycsbStart, cpuSeconds), 100*start/median(nulls["workloada | "+ycsbName], cpuSeconds))
	fmt.Fprintf(out, "| workload | client | its own ops/s (median) | spread | client CPU µs/op (median) | spread | framework cost µs/op | max RSS MB |\n|---|---|---|---|---|---|---|---|\n")
	framework := func(x sample) float64 { return (x.cpu.Seconds() - start) * 1e6 / float64(x.ops) }
	ownRate := func(x sample) float64 { return x.thr }
	for _, k := range sortedKeys(nulls) {
		s := nulls[k]
		fw := median(s, cpuPerOpExact)
		if strings.HasSuffix(k, ycsbName) {
			fw = median(s, framework)
		}
		fmt.Fprintf(out, "| %s | %.0f | %s | %.3f | %s | %.3f | %.0f |\n", k, median(s, ownRate),
			spread(s, ownRate), median(s, cpuPerOpExact), spread(s, cpuPerOpExact), fw, median(s, rssMB))
	}
	for _, w := range []string{"workloada", "workloadc"} {
		y, j := nulls[w+" | "+nullName], nulls[w+" | "+ycsbName]
		fmt.Fprintf(out, "\n%s: ybload CPU/op = %.2f× YCSB's framework cost/op (goal ≤ 0.4: %s); %.2f× its whole CPU/op", w,
			median(y, cpuPerOpExact)/median(j, framework), goalOf(valuesOf(y, cpuPerOpExact), valuesOf(j, framework), 0.4, false),
			median(y, cpuPerOpExact)/median(j, cpuPerOpExact))
	}
}

// cpuPerOpExact is client CPU per operation in µs, to the nanosecond.
func cpuPerOpExact(s sample) float64 { return float64(s.cpu.Nanoseconds()) / 1000 / float64(s.ops) }

// cpuSeconds is the client's CPU time.
func cpuSeconds(s sample) float64 { return s.cpu.Seconds() }

// rssMB is the client's peak resident memory.
func rssMB(s sample) float64 { return float64(s.maxRSS) / 1024 }
