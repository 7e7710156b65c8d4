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
//     --num_reads; the batch workload counts as its flags do in both).
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
	"time"

	"github.com/gocql/gocql"
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

type refsEnv struct {
	Refs *struct {
		Java          string `json:"java"`
		YCSBClassPath string `json:"ycsb_classpath"`
		YBSampleApps  string `json:"yb_sample_apps_jar"`
	} `json:"refs"`
	Cassandra *struct {
		Hosts []string `json:"hosts"`
		Port  int      `json:"port"`
	} `json:"cassandra"`
}

func refsSection(ctx context.Context, out *strings.Builder, wl func(string) string) error {
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
	r := env.Refs

	// YCSB core BasicDB against the null binding, workloads A and C. The
	// JVM's start-up is measured each repetition as a run of
	// -refs-startup-ops operations and taken off YCSB's CPU for its
	// framework cost per operation.
	const ycsbName, nullName = "YCSB core 0.17.0 BasicDB", "ybload null binding, null.values=skip"
	ycsbArgs := func(w string, ops int) []string {
		return []string{r.Java, "-cp", r.YCSBClassPath, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB",
			"-P", wl(w), "-p", "recordcount=100000", "-p", "operationcount=" + strconv.Itoa(ops), "-threads", strconv.Itoa(*refThreads), "-p", "basicdb.verbose=false"}
	}
	nulls := map[string][]sample{}
	var ycsbStart []sample
	for rep := 0; rep < *reps; rep++ {
		s, err := measure(ycsbArgs("workloada", *refStartOps), int64(*refStartOps))
		if err != nil {
			return fmt.Errorf("YCSB start-up run: %w", err)
		}
		ycsbStart = append(ycsbStart, s)
		for _, w := range []string{"workloada", "workloadc"} {
			tools := []string{ycsbName, nullName}
			if rep%2 == 1 {
				tools = []string{nullName, ycsbName}
			}
			for _, tool := range tools {
				args := ycsbArgs(w, *refNullOps)
				if tool == nullName {
					args = []string{*ybload, "run", "null", "-P", wl(w), "-p", "recordcount=100000", "-p", "operationcount=" + strconv.Itoa(*refNullOps),
						"-p", "threadcount=" + strconv.Itoa(*refThreads), "-p", "null.values=skip"}
				}
				s, err := measure(args, int64(*refNullOps))
				if err != nil {
					return fmt.Errorf("%s %s: %w", tool, w, err)
				}
				key := w + " | " + tool
				nulls[key] = append(nulls[key], s)
				fmt.Fprintf(os.Stderr, "%s rep %d: %.3f µs CPU/op, %.0f ops/s (its own figure)\n", key, rep+1, cpuPerOpExact(s), s.thr)
			}
		}
	}
	start := median(ycsbStart, cpuSeconds)
	fmt.Fprintf(out, "## Beside YCSB core 0.17.0 (no database): workloads A and C, %d threads, %d operations, -reps %d alternated\n\n", *refThreads, *refNullOps, *reps)
	fmt.Fprintf(out, "YCSB's JVM start-up (a run of %d operations): %.2f s CPU (median; %s), %.1f%% of the workload A run's CPU (must be under 5%%: else raise -refs-null-ops). "+
		"Framework cost = (CPU − start-up) / operations.\n\n", *refStartOps, start, spread(ycsbStart, cpuSeconds), 100*start/median(nulls["workloada | "+ycsbName], cpuSeconds))
	fmt.Fprintf(out, "| workload | client | its own ops/s (median) | spread | client CPU µs/op (median) | spread | framework cost µs/op | max RSS MB |\n|---|---|---|---|---|---|---|---|\n")
	framework := func(x sample) float64 { return (x.cpu.Seconds() - start) * 1e6 / float64(x.ops) }
	for _, k := range sortedKeys(nulls) {
		s := nulls[k]
		fw := median(s, cpuPerOpExact)
		if strings.HasSuffix(k, ycsbName) {
			fw = median(s, framework)
		}
		fmt.Fprintf(out, "| %s | %.0f | %s | %.3f | %s | %.3f | %.0f |\n", k, median(s, func(x sample) float64 { return x.thr }),
			spread(s, func(x sample) float64 { return x.thr }), median(s, cpuPerOpExact), spread(s, cpuPerOpExact), fw, median(s, rssMB))
	}
	for _, w := range []string{"workloada", "workloadc"} {
		y, j := nulls[w+" | "+nullName], nulls[w+" | "+ycsbName]
		fmt.Fprintf(out, "\n%s: ybload CPU/op = %.2f× YCSB's framework cost/op (goal ≤ 0.4: %s); %.2f× its whole CPU/op", w,
			median(y, cpuPerOpExact)/median(j, framework), goalOf(valuesOf(y, cpuPerOpExact), valuesOf(j, framework), 0.4, false),
			median(y, cpuPerOpExact)/median(j, cpuPerOpExact))
	}
	fmt.Fprint(out, "\n\n")
	if !*refKVOn {
		return nil
	}

	// yb-sample-apps against ybload kv.
	c := env.Cassandra
	nodes := hostPorts(c.Hosts, c.Port)
	cl := gocql.NewCluster(c.Hosts...)
	cl.Port, cl.ProtoVersion, cl.Timeout = c.Port, 4, 60*time.Second
	sess, err := cl.CreateSession()
	if err != nil {
		return fmt.Errorf("connect to Cassandra: %w", err)
	}
	defer sess.Close()
	const ks = "ybdemo_keyspace" // both tools' default
	drop := func() error { return sess.Query("DROP KEYSPACE IF EXISTS " + ks).WithContext(ctx).Exec() }
	defer drop()
	kvThr := strconv.Itoa(*refKVThr)
	writes := func(n int) []string {
		return []string{"--workload", "CassandraKeyValue", "--nouuid", "--value_size", "256",
			"--num_threads_read", "0", "--num_threads_write", kvThr, "--num_unique_keys", "1000000000", "--num_writes", strconv.Itoa(n), "--num_reads", "0"}
	}
	workloads := []struct {
		name  string
		ops   int
		flags []string
	}{
		{"write-heavy (CassandraKeyValue)", *refKVOps, writes(*refKVOps)},
		{"read-heavy (CassandraKeyValue)", *refKVReadOps, []string{"--workload", "CassandraKeyValue", "--nouuid", "--value_size", "256",
			"--num_threads_read", kvThr, "--num_threads_write", "0", "--num_unique_keys", "1000000", "--num_reads", strconv.Itoa(*refKVReadOps), "--num_writes", "0"}},
		{"batch write-heavy (CassandraBatchKeyValue, 25 keys)", *refKVBatchOps, []string{"--workload", "CassandraBatchKeyValue", "--nouuid", "--batch_size", "25", "--value_size", "256",
			"--num_threads_read", "0", "--num_threads_write", kvThr, "--num_unique_keys", "1000000000", "--num_writes", strconv.Itoa(*refKVBatchOps), "--num_reads", "0"}},
	}
	// ybload kv runs twice: with Go's defaults, and with GOMAXPROCS=1 (the
	// runtime's own setting, recorded in the record's settings), which here,
	// on two cores shared with Cassandra, spares the hand-offs between OS
	// threads that wake a worker when its response arrives.
	const javaKV, ybKV, ybKV1 = "yb-sample-apps 1.0.11", "ybload kv", "ybload kv, GOMAXPROCS=1"
	javaArgs := func(flags []string) []string {
		return append([]string{r.Java, "-jar", r.YBSampleApps, "--nodes", nodes, "--disable_yb_load_balancing_policy"}, flags...)
	}
	kv := map[string][]sample{}
	var kvStart []sample
	for rep := 0; rep < *reps; rep++ {
		// The JVM's start-up, with the driver's connection: a write run of
		// -refs-startup-ops operations.
		if err := drop(); err != nil {
			return err
		}
		s, err := measure(javaArgs(writes(*refStartOps)), int64(*refStartOps))
		if err != nil {
			return fmt.Errorf("yb-sample-apps start-up run: %w", err)
		}
		kvStart = append(kvStart, s)
		for _, w := range workloads {
			tools := []string{javaKV, ybKV, ybKV1}
			if rep%2 == 1 {
				tools = []string{ybKV1, ybKV, javaKV}
			}
			for _, tool := range tools {
				var args []string
				switch tool {
				case javaKV:
					args = javaArgs(w.flags)
				case ybKV:
					args = append([]string{*ybload, "kv", "--nodes", nodes}, w.flags...)
				default:
					args = append([]string{"env", "GOMAXPROCS=1", *ybload, "kv", "--nodes", nodes}, w.flags...)
				}
				if err := drop(); err != nil {
					return err
				}
				s, err := measure(args, int64(w.ops))
				if err != nil {
					return fmt.Errorf("%s %s: %w", tool, w.name, err)
				}
				key := w.name + " | " + tool
				kv[key] = append(kv[key], s)
				fmt.Fprintf(os.Stderr, "%s rep %d: %.1f s wall, %.1f s CPU\n", key, rep+1, s.wall.Seconds(), s.cpu.Seconds())
			}
		}
	}
	fmt.Fprintf(out, "## Beside yb-sample-apps 1.0.11 (test Cassandra): %d threads, counted operations per run: %d write-heavy, %d read-heavy, %d batch; -reps %d alternated\n\n",
		*refKVThr, *refKVOps, *refKVReadOps, *refKVBatchOps, *reps)
	kvStartCPU := median(kvStart, cpuSeconds)
	fmt.Fprintf(out, "yb-sample-apps' JVM start-up (a write run of %d operations): %.2f s CPU (median; %s); its share of the Java tool's CPU (must be under 5%%: else raise that workload's -refs-kv-*ops):", *refStartOps, kvStartCPU, spread(kvStart, cpuSeconds))
	for _, w := range workloads {
		fmt.Fprintf(out, " %s %.1f%%;", w.name, 100*kvStartCPU/median(kv[w.name+" | "+javaKV], cpuSeconds))
	}
	fmt.Fprint(out, "\n\n")
	fmt.Fprintf(out, "| workload | client | ops/s over its wall time (median) | spread | client CPU s (median) | CPU µs/op | spread | max RSS MB |\n|---|---|---|---|---|---|---|---|\n")
	for _, k := range sortedKeys(kv) {
		s := kv[k]
		fmt.Fprintf(out, "| %s | %.0f | %s | %.2f | %.1f | %s | %.0f |\n", k, median(s, rate), spread(s, rate),
			median(s, func(x sample) float64 { return x.cpu.Seconds() }), median(s, cpuPerOpExact), spread(s, cpuPerOpExact), median(s, rssMB))
	}
	for _, w := range workloads {
		j := kv[w.name+" | "+javaKV]
		for _, tool := range []string{ybKV, ybKV1} {
			y := kv[w.name+" | "+tool]
			fmt.Fprintf(out, "\n%s: %s CPU/op %.2f× yb-sample-apps' (goal ≤ 0.25: %s), rate %.2f× (goal ≥ 1.0: %s)", w.name, tool,
				median(y, cpuPerOpExact)/median(j, cpuPerOpExact), goalOf(valuesOf(y, cpuPerOpExact), valuesOf(j, cpuPerOpExact), 0.25, false),
				median(y, rate)/median(j, rate), goalOf(valuesOf(y, rate), valuesOf(j, rate), 1.0, true))
		}
	}
	fmt.Fprintln(out, "\n\n(both rates over the whole process, setup and the JVM's start included)")
	fmt.Fprintln(out)
	return nil
}

// cpuPerOpExact is client CPU per operation in µs, to the nanosecond.
func cpuPerOpExact(s sample) float64 { return float64(s.cpu.Nanoseconds()) / 1000 / float64(s.ops) }

// cpuSeconds is the client's CPU time.
func cpuSeconds(s sample) float64 { return s.cpu.Seconds() }

// rssMB is the client's peak resident memory.
func rssMB(s sample) float64 { return float64(s.maxRSS) / 1024 }
