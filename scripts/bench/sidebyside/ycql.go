package main

// The YCQL section (-only ycql, issue 4): on the shared test Cassandra,
// ybload's YCSB A and C over YCQL beside go-ycsb v1.0.3's cassandra binding
// with the same property file and thread count, alternating, and the KV
// write-heavy phase at 64 and 256 writers: throughput and client CPU per
// operation.
//
// Fairness. Both tools read one property file. go-ycsb pins consistency
// QUORUM, so ybload's read and write consistency are set to QUORUM in it
// too (on this one-node, RF=1 keyspace QUORUM and ONE both wait for the one
// replica); both keep two connections per host. go-ycsb names its key column
// ycsb_key and creates its own table, so each tool loads a table of its own
// in the same keyspace (go-ycsb's named with -p table=usertable_goycsb),
// with the same record count, Java YCSB's workload files (go-ycsb's own
// files differ, spec ycsb §8.6) and its own key hashing. go-ycsb cannot
// scan over CQL, so only A and C are compared.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

var (
	ycqlRecords = flag.Int("ycql-records", 100000, "records of the YCQL section's tables")
	ycqlOps     = flag.Int("ycql-ops", 100000, "operations per YCQL run phase")
	ycqlThreads = flag.Int("ycql-threads", 32, "threads of the YCQL YCSB runs")
	ycqlKVTime  = flag.Int("ycql-kv-time", 20, "seconds per KV write-heavy run")
)

type cassEnv struct {
	Cassandra *struct {
		Hosts   []string `json:"hosts"`
		Port    int      `json:"port"`
		Version string   `json:"version"`
	} `json:"cassandra"`
}

func ycqlSection(ctx context.Context, out *strings.Builder) error {
	b, err := os.ReadFile(*endpoints)
	if err != nil {
		return err
	}
	var env cassEnv
	if err := json.Unmarshal(b, &env); err != nil || env.Cassandra == nil {
		return fmt.Errorf("no Cassandra in %s (run make testenv): %v", *endpoints, err)
	}
	c := env.Cassandra
	const ks = "ybb_sidebyside"
	cl := gocql.NewCluster(c.Hosts...)
	cl.Port, cl.ProtoVersion, cl.Consistency, cl.Timeout = c.Port, 4, gocql.One, 30*time.Second
	s, err := cl.CreateSession()
	if err != nil {
		return fmt.Errorf("connect to Cassandra: %w", err)
	}
	defer s.Close()
	if err := s.Query("CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").WithContext(ctx).Exec(); err != nil {
		return err
	}
	// The shared test node keeps no benchmark data (the KV runs write
	// millions of keys).
	defer s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	yb, err := newYCQLBench(c.Hosts, c.Port, ks)
	if err != nil {
		return err
	}
	loads, err := yb.measureLoads()
	if err != nil {
		return err
	}
	runs, err := yb.measureRuns()
	if err != nil {
		return err
	}
	kvs, err := measureKVWrites(ks, hostPorts(c.Hosts, c.Port))
	if err != nil {
		return err
	}
	sec := &strings.Builder{}
	yb.write(sec, c.Version, loads, runs, kvs)
	out.WriteString(sec.String())
	return os.WriteFile(filepath.Join(*workdir, "ycql-bench.md"), []byte(sec.String()), 0o644)
}

// ycqlBench is what the YCSB runs over YCQL share: the one property file
// both tools read, and the counts every run is given.
type ycqlBench struct {
	props, rec, thr, opc string
}

// newYCQLBench writes the property file for keyspace ks on hosts.
func newYCQLBench(hosts []string, port int, ks string) (*ycqlBench, error) {
	props := filepath.Join(*workdir, "ycql.properties")
	content := fmt.Sprintf(`# One property file for both clients.
# ybload (yugabyteCQL binding)
hosts=%[1]s
port=%[2]d
cassandra.readconsistencylevel=QUORUM
cassandra.writeconsistencylevel=QUORUM
cassandra.maxconnections=2
cassandra.coreconnections=2
# go-ycsb (cassandra binding): QUORUM is fixed in its code
cassandra.cluster=%[3]s
cassandra.connections=2
# both
cassandra.keyspace=%[4]s
`, strings.Join(hosts, ","), port, hostPorts(hosts, port), ks)
	if err := os.WriteFile(props, []byte(content), 0o644); err != nil {
		return nil, err
	}
	return &ycqlBench{props: props, rec: "recordcount=" + strconv.Itoa(*ycqlRecords),
		thr: "threadcount=" + strconv.Itoa(*ycqlThreads), opc: "operationcount=" + strconv.Itoa(*ycqlOps)}, nil
}

// goycsbCQL is a go-ycsb command line on its own table, which it names
// and creates unlike ybload's.
func goycsbCQL(args ...string) []string {
	return append(append([]string{*goycsb}, args...), "-p", "workload=core", "-p", "table=usertable_goycsb")
}

// measureLoads loads both tables, once: the run phases leave them as they
// are.
func (y *ycqlBench) measureLoads() (map[string]sample, error) {
	loads := map[string]sample{}
	for _, v := range []struct {
		name string
		args []string
	}{
		{"ybload load ycql", []string{*ybload, "load", "ycql", "-P", workloadFile("workloada"), "-P", y.props, "-p", y.rec, "-p", y.thr, "-p", "ycql.createtable=true", "-p", "ycql.droptable=true"}},
		{"go-ycsb load cassandra", goycsbCQL("load", "cassandra", "-P", workloadFile("workloada"), "-P", y.props, "-p", y.rec, "-p", y.thr, "-p", "dropdata=true")},
	} {
		smp, err := measure(v.args, int64(*ycqlRecords))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		loads[v.name] = smp
	}
	return loads, nil
}

// measureRuns runs workloads C and A with both tools, by "workload |
// client".
func (y *ycqlBench) measureRuns() (map[string][]sample, error) {
	runs := map[string][]sample{}
	for r := 0; r < *reps; r++ {
		for _, w := range []string{"workloadc", "workloada"} {
			for _, tool := range []string{"ybload", "go-ycsb"} {
				args := []string{*ybload, "run", "ycql", "-P", workloadFile(w), "-P", y.props, "-p", y.rec, "-p", y.opc, "-p", y.thr}
				if tool == "go-ycsb" {
					args = goycsbCQL("run", "cassandra", "-P", workloadFile(w), "-P", y.props, "-p", y.rec, "-p", y.opc, "-p", y.thr)
				}
				smp, err := measure(args, int64(*ycqlOps))
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", tool, w, err)
				}
				key := w + " | " + tool
				runs[key] = append(runs[key], smp)
				fmt.Fprintf(os.Stderr, "ycql %s rep %d: %.0f ops/s, %.1f µs CPU/op\n", key, r+1, rate(smp), cpuPerOp(smp))
			}
		}
	}
	return runs, nil
}

// measureKVWrites runs the KV write-heavy phase (seed 004's first command)
// at 64 and 256 writers, for --ycql-kv-time seconds each, threads started
// together.
func measureKVWrites(ks, nodes string) (map[int][]kvSample, error) {
	kvs := map[int][]kvSample{}
	for r := 0; r < *reps; r++ {
		for _, writers := range []int{64, 256} {
			k, err := kvRun(ks, nodes, writers)
			if err != nil {
				return nil, fmt.Errorf("kv %d writers: %w", writers, err)
			}
			kvs[writers] = append(kvs[writers], k)
			fmt.Fprintf(os.Stderr, "kv write-heavy %d writers rep %d: %.0f keys/s, %.1f µs CPU/key\n", writers, r+1, k.keysPerSec, k.cpuPerKey)
		}
	}
	return kvs, nil
}

// write prints the section: its conditions and drivers, the loads, the run
// phases with ybload's ratios, and the KV write-heavy runs.
func (y *ycqlBench) write(sec *strings.Builder, version string, loads map[string]sample, runs map[string][]sample, kvs map[int][]kvSample) {
	fmt.Fprintf(sec, "## YCQL: ybload beside go-ycsb v1.0.3 (cassandra binding) on Cassandra %s\n\n", version)
	fmt.Fprintf(sec, "One node on this machine, keyspace RF=1; %d records, %d operations per run, %d threads, %d repetitions alternated; one property file (%s), QUORUM for both; client CPU = user+sys of the client process; ops/s over the client's whole wall time.\n\n",
		*ycqlRecords, *ycqlOps, *ycqlThreads, *reps, y.props)
	fmt.Fprintf(sec, "Drivers: ybload %s; go-ycsb %s.\n\n", moduleOf(*ybload, "github.com/gocql/gocql"), moduleOf(*goycsb, "github.com/gocql/gocql"))
	fmt.Fprintf(sec, "| load | records/s | client CPU µs/record |\n|---|---|---|\n")
	for _, k := range sortedKeys(loads) {
		fmt.Fprintf(sec, "| %s | %.0f | %.1f |\n", k, rate(loads[k]), cpuPerOp(loads[k]))
	}
	fmt.Fprintln(sec)
	writeRunTable(sec, runs)
	for _, w := range []string{"workloada", "workloadc"} {
		yb, g := runs[w+" | ybload"], runs[w+" | go-ycsb"]
		fmt.Fprintf(sec, "\n%s: ybload CPU/op = %.2f× go-ycsb's (target ≤ 0.8); throughput %.2f× go-ycsb's\n",
			w, median(yb, cpuPerOp)/median(g, cpuPerOp), median(yb, rate)/median(g, rate))
	}
	writeKVWrites(sec, kvs)
}

// writeKVWrites prints the KV write-heavy runs' table.
func writeKVWrites(sec *strings.Builder, kvs map[int][]kvSample) {
	keys := func(x kvSample) float64 { return x.keysPerSec }
	cpu := func(x kvSample) float64 { return x.cpuPerKey }
	fmt.Fprintf(sec, "\n### KV write-heavy (CassandraKeyValue, --nouuid --value_size 256, %d s per run, no thread stagger)\n\n| writers | keys/s (median) | spread | client CPU µs/key (median) | spread | p99 ms (median) |\n|---|---|---|---|---|---|\n", *ycqlKVTime)
	for _, wr := range []int{64, 256} {
		k := kvs[wr]
		fmt.Fprintf(sec, "| %d | %.0f | %s | %.1f | %s | %.1f |\n", wr, kvMedian(k, keys), kvSpread(k, keys), kvMedian(k, cpu), kvSpread(k, cpu),
			kvMedian(k, func(x kvSample) float64 { return x.p99ms }))
	}
	fmt.Fprintln(sec)
}

func hostPorts(hosts []string, port int) string {
	hp := make([]string, len(hosts))
	for i, h := range hosts {
		hp[i] = fmt.Sprintf("%s:%d", h, port)
	}
	return strings.Join(hp, ",")
}

type kvSample struct {
	keysPerSec, cpuPerKey, p99ms float64
}

// kvRun runs the write-heavy phase for --ycql-kv-time seconds and reads its
// JSON summary: keys per second over the measured window, client CPU per key.
func kvRun(ks, nodes string, writers int) (kvSample, error) {
	sum := filepath.Join(*workdir, fmt.Sprintf("kv-%d.json", writers))
	args := []string{*ybload, "kv", "--workload", "CassandraKeyValue", "--nodes", nodes, "--nouuid", "--value_size", "256",
		"--num_threads_read", "0", "--num_threads_write", strconv.Itoa(writers), "--num_unique_keys", "1000000000",
		"--num_writes", "-1", "--run_time", strconv.Itoa(*ycqlKVTime), "--ybload_keyspace", ks, "--ybload_stagger_ms", "0",
		"--ybload_summary", sum}
	smp, err := measure(args, 1)
	if err != nil {
		return kvSample{}, err
	}
	b, err := os.ReadFile(sum)
	if err != nil {
		return kvSample{}, err
	}
	var s struct {
		Measurements []struct {
			Name       string  `json:"name"`
			Units      int64   `json:"units"`
			KeysPerSec float64 `json:"keys_per_sec"`
			P99US      int64   `json:"p99_us"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return kvSample{}, err
	}
	for _, m := range s.Measurements {
		if m.Name == "Write" && m.Units > 0 {
			return kvSample{keysPerSec: m.KeysPerSec, cpuPerKey: float64(smp.cpu.Microseconds()) / float64(m.Units), p99ms: float64(m.P99US) / 1000}, nil
		}
	}
	return kvSample{}, fmt.Errorf("no writes in %s", sum)
}

func kvMedian(s []kvSample, f func(kvSample) float64) float64 {
	x := make([]sample, len(s))
	for i := range s {
		x[i] = sample{thr: f(s[i])}
	}
	return median(x, func(v sample) float64 { return v.thr })
}

func kvSpread(s []kvSample, f func(kvSample) float64) string {
	x := make([]sample, len(s))
	for i := range s {
		x[i] = sample{thr: f(s[i])}
	}
	return spread(x, func(v sample) float64 { return v.thr })
}

// moduleOf reads a dependency's version from a Go binary's build info.
func moduleOf(bin, module string) string {
	ob, err := exec.Command("go", "version", "-m", bin).Output()
	outb := string(ob)
	if err != nil {
		return module + " (unknown)"
	}
	for _, l := range strings.Split(outb, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && (f[0] == "dep" || f[0] == "=>") && f[1] == module {
			return module + " " + f[2]
		}
	}
	return module + " (not found)"
}
