package main

// The refs section's second half: yb-sample-apps 1.0.11 against ybload kv
// on the test Cassandra (refs.go says how they are compared).

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// ybload kv runs twice: with Go's defaults, and with GOMAXPROCS=1 (the
// runtime's own setting, recorded in the record's settings), which here,
// on two cores shared with Cassandra, spares the hand-offs between OS
// threads that wake a worker when its response arrives.
const javaKV, ybKV, ybKV1 = "yb-sample-apps 1.0.11", "ybload kv", "ybload kv, GOMAXPROCS=1"

// kvWorkload is one of the seeds' KV workloads: the flags both tools are
// given, and the operations they count.
type kvWorkload struct {
	name  string
	ops   int
	flags []string
}

// kvWrites are the flags of a write-heavy run of n writes.
func kvWrites(n int) []string {
	return []string{"--workload", "CassandraKeyValue", "--nouuid", "--value_size", "256",
		"--num_threads_read", "0", "--num_threads_write", strconv.Itoa(*refKVThr), "--num_unique_keys", "1000000000", "--num_writes", strconv.Itoa(n), "--num_reads", "0"}
}

func kvWorkloads() []kvWorkload {
	kvThr := strconv.Itoa(*refKVThr)
	return []kvWorkload{
		{"write-heavy (CassandraKeyValue)", *refKVOps, kvWrites(*refKVOps)},
		{"read-heavy (CassandraKeyValue)", *refKVReadOps, []string{"--workload", "CassandraKeyValue", "--nouuid", "--value_size", "256",
			"--num_threads_read", kvThr, "--num_threads_write", "0", "--num_unique_keys", "1000000", "--num_reads", strconv.Itoa(*refKVReadOps), "--num_writes", "0"}},
		{"batch write-heavy (CassandraBatchKeyValue, 25 keys)", *refKVBatchOps, []string{"--workload", "CassandraBatchKeyValue", "--nouuid", "--batch_size", "25", "--value_size", "256",
			"--num_threads_read", "0", "--num_threads_write", kvThr, "--num_unique_keys", "1000000000", "--num_writes", strconv.Itoa(*refKVBatchOps), "--num_reads", "0"}},
	}
}

// sampleAppsHalf measures yb-sample-apps against ybload kv and prints
// their figures; the tools' keyspace is dropped before every run, so each
// starts on an empty one, and at the end.
func sampleAppsHalf(ctx context.Context, out *strings.Builder, env refsEnv) error {
	c := env.Cassandra
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
	workloads := kvWorkloads()
	kv, start, err := measureSampleApps(env.Refs, hostPorts(c.Hosts, c.Port), workloads, drop)
	if err != nil {
		return err
	}
	writeSampleApps(out, workloads, kv, start)
	return nil
}

// kvArgs is tool's command line for flags, on nodes.
func kvArgs(r *refTools, nodes, tool string, flags []string) []string {
	switch tool {
	case javaKV:
		return append([]string{r.Java, "-jar", r.YBSampleApps, "--nodes", nodes, "--disable_yb_load_balancing_policy"}, flags...)
	case ybKV:
		return append([]string{*ybload, "kv", "--nodes", nodes}, flags...)
	}
	return append([]string{"env", "GOMAXPROCS=1", *ybload, "kv", "--nodes", nodes}, flags...)
}

// measureSampleApps runs every workload with each tool, by "workload |
// client", and yb-sample-apps' JVM start-up each repetition, with the
// driver's connection: a write run of -refs-startup-ops operations.
func measureSampleApps(r *refTools, nodes string, workloads []kvWorkload, drop func() error) (kv map[string][]sample, kvStart []sample, err error) {
	kv = map[string][]sample{}
	for rep := 0; rep < *reps; rep++ {
		if err := drop(); err != nil {
			return nil, nil, err
		}
		s, err := measure(kvArgs(r, nodes, javaKV, kvWrites(*refStartOps)), int64(*refStartOps))
		if err != nil {
			return nil, nil, fmt.Errorf("yb-sample-apps start-up run: %w", err)
		}
		kvStart = append(kvStart, s)
		for _, w := range workloads {
			for _, tool := range alternated([]string{javaKV, ybKV, ybKV1}, rep) {
				if err := drop(); err != nil {
					return nil, nil, err
				}
				s, err := measure(kvArgs(r, nodes, tool, w.flags), int64(w.ops))
				if err != nil {
					return nil, nil, fmt.Errorf("%s %s: %w", tool, w.name, err)
				}
				key := w.name + " | " + tool
				kv[key] = append(kv[key], s)
				fmt.Fprintf(os.Stderr, "%s rep %d: %.1f s wall, %.1f s CPU\n", key, rep+1, s.wall.Seconds(), s.cpu.Seconds())
			}
		}
	}
	return kv, kvStart, nil
}

// writeSampleApps prints the yb-sample-apps half: the JVM's start-up and
// its share of each workload's CPU, the table, and each ybload kv's goals.
func writeSampleApps(out *strings.Builder, workloads []kvWorkload, kv map[string][]sample, kvStart []sample) {
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
			median(s, cpuSeconds), median(s, cpuPerOpExact), spread(s, cpuPerOpExact), median(s, rssMB))
	}
	for _, w := range workloads {
		j := kv[w.name+" | "+javaKV]
		for _, tool := range []string{ybKV, ybKV1} {
			y := kv[w.name+" | "+tool]
			fmt.Fprintf(out, "\n%s: %s CPU/op %.2f× yb-sample-apps' (goal ≤ 0.25: %s), rate %.2f× (goal ≥ 1.0: %s)", w.name, tool,
				median(y, cpuPerOpExact)/median(j, cpuPerOpExact), goal(y, j, cpuPerOpExact, 0.25, false),
				median(y, rate)/median(j, rate), goal(y, j, rate, 1.0, true))
		}
	}
	fmt.Fprintln(out, "\n\n(both rates over the whole process, setup and the JVM's start included)")
	fmt.Fprintln(out)
}
