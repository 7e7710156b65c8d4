package main

// The reference-tools section (-only refs): ybload beside the JVM tools the
// seeds themselves used, both fetched by the test environment (refs.json):
//
//   - YCSB core 0.17.0's Client with BasicDB (basicdb.verbose=false: it
//     would print every operation) against ybload's null binding: workload
//     A, the same operation count and threads, no database. The agent's own
//     cost per operation; the JVM's start is in YCSB's figure, so the
//     operation count is large enough to make it small.
//   - yb-sample-apps 1.0.11 (java -jar, --disable_yb_load_balancing_policy:
//     on Apache Cassandra there is no YugabyteDB partition metadata) against
//     `ybload kv`, the seeds' three KV workloads scaled to this machine, on
//     the test Cassandra, each run on a fresh ybdemo_keyspace, with the same
//     flags: wall rate and client CPU per counted operation (--num_writes or
//     --num_reads; the batch workload counts as its flags do in both).
//
// Every configuration runs -reps times, the two tools alternating.

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
	refNullOps = flag.Int("refs-null-ops", 5000000, "operations of the YCSB core BasicDB and ybload null runs")
	refThreads = flag.Int("refs-null-threads", 4, "threads of the BasicDB and null runs")
	refKVOps   = flag.Int("refs-kv-ops", 60000, "--num_writes / --num_reads of each KV run")
	refKVThr   = flag.Int("refs-kv-threads", 16, "writers or readers of each KV run")
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

	// YCSB core BasicDB against the null binding.
	nulls := map[string][]sample{}
	ops, thr := strconv.Itoa(*refNullOps), strconv.Itoa(*refThreads)
	for rep := 0; rep < *reps; rep++ {
		for _, v := range []struct {
			name string
			args []string
		}{
			{"YCSB core 0.17.0 BasicDB", []string{r.Java, "-cp", r.YCSBClassPath, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB",
				"-P", wl("workloada"), "-p", "recordcount=100000", "-p", "operationcount=" + ops, "-threads", thr, "-p", "basicdb.verbose=false"}},
			{"ybload null binding", []string{*ybload, "run", "null", "-P", wl("workloada"), "-p", "recordcount=100000", "-p", "operationcount=" + ops,
				"-p", "threadcount=" + thr}},
		} {
			s, err := measure(v.args, int64(*refNullOps))
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			nulls[v.name] = append(nulls[v.name], s)
			fmt.Fprintf(os.Stderr, "%s rep %d: %.3f µs CPU/op, %.0f ops/s (its own figure)\n", v.name, rep+1, cpuPerOpExact(s), s.thr)
		}
	}
	fmt.Fprintf(out, "## Beside YCSB core 0.17.0 (no database): workload A, %d threads, %d operations\n\n", *refThreads, *refNullOps)
	fmt.Fprintf(out, "| client | its own ops/s (median) | spread | client CPU µs/op (median) | spread | max RSS MB |\n|---|---|---|---|---|---|\n")
	for _, k := range sortedKeys(nulls) {
		s := nulls[k]
		fmt.Fprintf(out, "| %s | %.0f | %s | %.3f | %s | %.0f |\n", k, median(s, func(x sample) float64 { return x.thr }),
			spread(s, func(x sample) float64 { return x.thr }), median(s, cpuPerOpExact), spread(s, cpuPerOpExact), median(s, rssMB))
	}
	fmt.Fprintf(out, "\nybload CPU/op ÷ YCSB core's: %.2f× (YCSB's includes its JVM's start)\n\n",
		median(nulls["ybload null binding"], cpuPerOpExact)/median(nulls["YCSB core 0.17.0 BasicDB"], cpuPerOpExact))

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
	kvOps, kvThr := strconv.Itoa(*refKVOps), strconv.Itoa(*refKVThr)
	workloads := []struct {
		name  string
		flags []string
	}{
		{"write-heavy (CassandraKeyValue)", []string{"--workload", "CassandraKeyValue", "--nouuid", "--value_size", "256",
			"--num_threads_read", "0", "--num_threads_write", kvThr, "--num_unique_keys", "1000000000", "--num_writes", kvOps, "--num_reads", "0"}},
		{"read-heavy (CassandraKeyValue)", []string{"--workload", "CassandraKeyValue", "--nouuid", "--value_size", "256",
			"--num_threads_read", kvThr, "--num_threads_write", "0", "--num_unique_keys", "1000000", "--num_reads", kvOps, "--num_writes", "0"}},
		{"batch write-heavy (CassandraBatchKeyValue, 25 keys)", []string{"--workload", "CassandraBatchKeyValue", "--nouuid", "--batch_size", "25", "--value_size", "256",
			"--num_threads_read", "0", "--num_threads_write", kvThr, "--num_unique_keys", "1000000000", "--num_writes", kvOps, "--num_reads", "0"}},
	}
	kv := map[string][]sample{}
	for rep := 0; rep < *reps; rep++ {
		for _, w := range workloads {
			for _, tool := range []string{"yb-sample-apps 1.0.11", "ybload kv"} {
				args := append([]string{*ybload, "kv", "--nodes", nodes}, w.flags...)
				if tool != "ybload kv" {
					args = append([]string{r.Java, "-jar", r.YBSampleApps, "--nodes", nodes, "--disable_yb_load_balancing_policy"}, w.flags...)
				}
				if err := drop(); err != nil {
					return err
				}
				s, err := measure(args, int64(*refKVOps))
				if err != nil {
					return fmt.Errorf("%s %s: %w", tool, w.name, err)
				}
				key := w.name + " | " + tool
				kv[key] = append(kv[key], s)
				fmt.Fprintf(os.Stderr, "%s rep %d: %.1f s wall, %.1f s CPU\n", key, rep+1, s.wall.Seconds(), s.cpu.Seconds())
			}
		}
	}
	fmt.Fprintf(out, "## Beside yb-sample-apps 1.0.11 (test Cassandra): %d threads, %d counted operations per run, -reps %d\n\n", *refKVThr, *refKVOps, *reps)
	fmt.Fprintf(out, "| workload | client | ops/s over its wall time (median) | spread | client CPU s (median) | CPU µs/op | spread | max RSS MB |\n|---|---|---|---|---|---|---|---|\n")
	for _, k := range sortedKeys(kv) {
		s := kv[k]
		fmt.Fprintf(out, "| %s | %.0f | %s | %.2f | %.1f | %s | %.0f |\n", k, median(s, rate), spread(s, rate),
			median(s, func(x sample) float64 { return x.cpu.Seconds() }), median(s, cpuPerOpExact), spread(s, cpuPerOpExact), median(s, rssMB))
	}
	for _, w := range workloads {
		y, j := kv[w.name+" | ybload kv"], kv[w.name+" | yb-sample-apps 1.0.11"]
		fmt.Fprintf(out, "\n%s: ybload CPU/op %.2f× yb-sample-apps', rate %.2f×", w.name, median(y, cpuPerOpExact)/median(j, cpuPerOpExact), median(y, rate)/median(j, rate))
	}
	fmt.Fprintln(out, "\n\n(both rates over the whole process, setup and the JVM's start included)")
	fmt.Fprintln(out)
	return nil
}

// cpuPerOpExact is client CPU per operation in µs, to the nanosecond.
func cpuPerOpExact(s sample) float64 { return float64(s.cpu.Nanoseconds()) / 1000 / float64(s.ops) }

// rssMB is the client's peak resident memory.
func rssMB(s sample) float64 { return float64(s.maxRSS) / 1024 }
