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
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
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

type sample struct {
	wall   time.Duration
	cpu    time.Duration // user + sys of the client process
	maxRSS int64         // KiB
	ops    int64
	thr    float64 // ops/s as the tool reported it
	stdout string
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
	only      = flag.String("only", "", "comma list of sections to run: load,run,null,memory,sysbench,callgrind,profile,ycql,refs,pipeline (default all)")
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
		{"refs-null-ops", *refNullOps}, {"refs-null-threads", *refThreads}, {"refs-kv-ops", *refKVOps}, {"refs-kv-read-ops", *refKVReadOps}, {"refs-kv-batch-ops", *refKVBatchOps}, {"refs-startup-ops", *refStartOps}, {"callgrind-events", *cgEvents}, {"refs-kv-threads", *refKVThr}} {
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
	return *only == "" || slices.Contains(strings.Split(*only, ","), section)
}

func run() error {
	b, err := os.ReadFile(*endpoints)
	if err != nil {
		return err
	}
	var env pgEnv
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	pg := env.Postgres
	if err := os.MkdirAll(*workdir, 0o755); err != nil {
		return err
	}
	ctx := context.Background()
	adminURL := fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", pg.User, pg.Password, pg.Host, pg.Port, pg.Database)
	dbURL := func(db string) string {
		return fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", pg.User, pg.Password, pg.Host, pg.Port, db)
	}
	fresh := func(db string) error {
		c, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
			return err
		}
		_, err = c.Exec(ctx, "CREATE DATABASE "+db)
		return err
	}
	ybProps := func(db string) string {
		p := filepath.Join(*workdir, db+".properties")
		os.WriteFile(p, []byte(fmt.Sprintf("db.driver=org.postgresql.Driver\ndb.url=jdbc:postgresql://%s:%d/%s;\ndb.user=%s\ndb.passwd=%s\n", pg.Host, pg.Port, db, pg.User, pg.Password)), 0o600)
		return p
	}
	gyArgs := func(db string) []string {
		return []string{"-p", "pg.host=" + pg.Host, "-p", "pg.port=" + strconv.Itoa(pg.Port), "-p", "pg.user=" + pg.User,
			"-p", "pg.password=" + pg.Password, "-p", "pg.db=" + db, "-p", "workload=core"}
	}
	wl := func(name string) string {
		p := filepath.Join(*workdir, name)
		src, _ := os.ReadFile(filepath.Join("bench/ycsb/workloads", name))
		os.WriteFile(p, src, 0o644)
		return p
	}
	rec := "recordcount=" + strconv.Itoa(*records)
	thr := "threadcount=" + strconv.Itoa(*threads)
	opc := "operationcount=" + strconv.Itoa(*ops)
	out := &strings.Builder{}
	fmt.Fprintf(out, "# ybload beside its peers\n\n%s; PostgreSQL %s (config %s); %d records, %d threads, %d operations per run, %d repetitions alternated; client CPU = user+sys of the client process.\n\n",
		time.Now().Format(time.RFC3339), pg.Version, pg.Config, *records, *threads, *ops, *reps)

	// Load: ybload with and without batching, go-ycsb.
	if want("load") || want("run") {
		loads := map[string][]sample{}
		for r := 0; r < *reps; r++ {
			for _, v := range []struct {
				name string
				db   string
				cmd  func(db string) []string
			}{
				{"ybload load (unbatched, YCSB default)", "ybb_ybload", func(db string) []string {
					return []string{*ybload, "load", "ysql", "-P", wl("workloada"), "-P", ybProps(db), "-p", rec, "-p", thr, "-p", "ysql.createtable=true"}
				}},
				{"ybload load, db.batchsize=1000 jdbc.batchupdateapi=true (YCSB JDBC batching)", "ybb_ybload_b", func(db string) []string {
					return []string{*ybload, "load", "ysql", "-P", wl("workloada"), "-P", ybProps(db), "-p", rec, "-p", thr, "-p", "ysql.createtable=true", "-p", "db.batchsize=1000", "-p", "jdbc.batchupdateapi=true"}
				}},
				{"ybload load, db.batchsize=1000 ysql.load.batch=copy (extension)", "ybb_ybload_c", func(db string) []string {
					return []string{*ybload, "load", "ysql", "-P", wl("workloada"), "-P", ybProps(db), "-p", rec, "-p", thr, "-p", "ysql.createtable=true", "-p", "db.batchsize=1000", "-p", "ysql.load.batch=copy"}
				}},
				{"ybload load, db.batchsize=1000 ysql.load.batch=multirow (extension)", "ybb_ybload_m", func(db string) []string {
					return []string{*ybload, "load", "ysql", "-P", wl("workloada"), "-P", ybProps(db), "-p", rec, "-p", thr, "-p", "ysql.createtable=true", "-p", "db.batchsize=1000", "-p", "ysql.load.batch=multirow"}
				}},
				{"go-ycsb load", "ybb_goycsb", func(db string) []string {
					return append([]string{*goycsb, "load", "pg", "-P", wl("workloada"), "-p", rec, "-p", thr}, gyArgs(db)...)
				}},
			} {
				if err := fresh(v.db); err != nil {
					return err
				}
				s, err := measure(v.cmd(v.db), int64(*records))
				if err != nil {
					return fmt.Errorf("%s: %w", v.name, err)
				}
				loads[v.name] = append(loads[v.name], s)
			}
		}
		fmt.Fprintf(out, "## Load phase (%d records)\n\n| client | records/s (median) | spread | client CPU µs/record |\n|---|---|---|---|\n", *records)
		for _, name := range sortedKeys(loads) {
			s := loads[name]
			fmt.Fprintf(out, "| %s | %.0f | %s | %.1f |\n", name, median(s, rate), spread(s, rate), median(s, cpuPerOp))
		}
		for _, name := range sortedKeys(loads) {
			if strings.HasPrefix(name, "ybload") {
				fmt.Fprintf(out, "\n%s: %.2f× go-ycsb's load", name, median(loads[name], rate)/median(loads["go-ycsb load"], rate))
			}
		}
		fmt.Fprintln(out, "\n\n(target: with db.batchsize on, ≥ 5× go-ycsb's load)")
		fmt.Fprintln(out)
	}

	if want("run") {
		floorURL := dbURL("ybb_ybload")
		runs := map[string][]sample{}
		for r := 0; r < *reps; r++ {
			for _, w := range []struct{ file, read string }{{"workloadc", "1.0"}, {"workloada", "0.5"}} {
				for _, tool := range []string{"ybload", "go-ycsb", "pgx floor"} {
					var args []string
					switch tool {
					case "ybload":
						args = []string{*ybload, "run", "ysql", "-P", wl(w.file), "-P", ybProps("ybb_ybload"), "-p", rec, "-p", opc, "-p", thr}
					case "go-ycsb":
						args = append([]string{*goycsb, "run", "pg", "-P", wl(w.file), "-p", rec, "-p", opc, "-p", thr}, gyArgs("ybb_goycsb")...)
					default:
						args = []string{*floor, "-url", floorURL, "-threads", strconv.Itoa(*threads), "-ops", strconv.Itoa(*ops), "-records", strconv.Itoa(*records), "-read", w.read}
					}
					s, err := measure(args, int64(*ops))
					if err != nil {
						return fmt.Errorf("%s %s: %w", tool, w.file, err)
					}
					key := w.file + " | " + tool
					runs[key] = append(runs[key], s)
					fmt.Fprintf(os.Stderr, "%s rep %d: %.0f ops/s, %.1f µs CPU/op\n", key, r+1, rate(s), cpuPerOp(s))
				}
			}
		}
		fmt.Fprintf(out, "## Run phase (%d operations, %d threads)\n\n| workload | client | ops/s (median) | spread | client CPU µs/op (median) | spread |\n|---|---|---|---|---|---|\n", *ops, *threads)
		for _, k := range sortedKeys(runs) {
			s := runs[k]
			fmt.Fprintf(out, "| %s | %.0f | %s | %.1f | %s |\n", k, median(s, rate), spread(s, rate), median(s, cpuPerOp), spread(s, cpuPerOp))
		}
		for _, w := range []string{"workloada", "workloadc"} {
			y, g, f := runs[w+" | ybload"], runs[w+" | go-ycsb"], runs[w+" | pgx floor"]
			fmt.Fprintf(out, "\n%s: ybload CPU/op = %.2f× go-ycsb's (target ≤ 0.7), %.2f× the pgx floor's (target ≤ 1.2); throughput %.2f× go-ycsb's (target ≥ 1.1)\n",
				w, median(y, cpuPerOp)/median(g, cpuPerOp), median(y, cpuPerOp)/median(f, cpuPerOp), median(y, rate)/median(g, rate))
			// Issue 15's goals against the floor, judged as the sysbench
			// section judges its goals.
			fmt.Fprintf(out, "%s against the pgx floor (issue 15): CPU/op %.2f× (goal ≤ 1.1: %s), throughput %.2f× (goal ≥ 1.0: %s)\n",
				w, median(y, cpuPerOp)/median(f, cpuPerOp), goalOf(valuesOf(y, cpuPerOp), valuesOf(f, cpuPerOp), 1.1, false),
				median(y, rate)/median(f, rate), goalOf(valuesOf(y, rate), valuesOf(f, rate), 1.0, true))
		}
		fmt.Fprintln(out)
	}

	if want("null") {
		nulls := map[string][]sample{}
		nop := "operationcount=" + strconv.Itoa(*nullOps)
		for r := 0; r < *reps; r++ {
			for _, v := range []struct {
				name string
				args []string
			}{
				{"ybload null binding", []string{*ybload, "run", "null", "-P", wl("workloada"), "-p", rec, "-p", nop, "-p", thr}},
				{"go-ycsb basic db", []string{*goycsb, "run", "basic", "-P", wl("workloada"), "-p", rec, "-p", nop, "-p", thr, "-p", "workload=core"}},
			} {
				s, err := measure(v.args, int64(*nullOps))
				if err != nil {
					return fmt.Errorf("%s: %w", v.name, err)
				}
				nulls[v.name] = append(nulls[v.name], s)
			}
		}
		fmt.Fprintf(out, "## No database: workload A, %d threads, %d operations\n\n| client | ops/s (median) | spread | CPU µs/op |\n|---|---|---|---|\n", *threads, *nullOps)
		for _, k := range sortedKeys(nulls) {
			s := nulls[k]
			fmt.Fprintf(out, "| %s | %.0f | %s | %.3f |\n", k, median(s, rate), spread(s, rate), median(s, cpuPerOp))
		}
		fmt.Fprintf(out, "\nybload null / go-ycsb basic: %.2f× (target ≥ 3)\n\n", median(nulls["ybload null binding"], rate)/median(nulls["go-ycsb basic db"], rate))
	}

	if want("memory") {
		s, err := measure([]string{*ybload, "run", "ysql", "-P", wl("workloada"), "-P", ybProps("ybb_ybload"), "-p", rec, "-p", opc, "-p", "threadcount=256", "-s"}, int64(*ops))
		if err != nil {
			return fmt.Errorf("memory run: %w", err)
		}
		fmt.Fprintf(out, "## Agent memory\n\nybload workload A, 256 threads, %d operations against PostgreSQL: max RSS %.1f MB (target ≤ 256 MB), %.0f ops/s\n", *ops, float64(s.maxRSS)/1024, rate(s))
	}
	if want("sysbench") {
		if err := sysbenchSection(ctx, out, env, fresh); err != nil {
			return fmt.Errorf("sysbench section: %w", err)
		}
	}
	if want("callgrind") {
		if err := callgrindSection(ctx, out, env, fresh); err != nil {
			return fmt.Errorf("callgrind section: %w", err)
		}
	}
	if want("profile") {
		if err := profileSection(ctx, out, env, fresh); err != nil {
			return fmt.Errorf("profile section: %w", err)
		}
	}
	if want("ycql") {
		if err := ycqlSection(ctx, out); err != nil {
			return fmt.Errorf("ycql section: %w", err)
		}
	}
	if want("refs") {
		if err := refsSection(ctx, out, wl); err != nil {
			return fmt.Errorf("refs section: %w", err)
		}
	}
	if want("pipeline") {
		if err := pipelineSection(out); err != nil {
			return fmt.Errorf("pipeline section: %w", err)
		}
	}
	fmt.Print(out.String())
	return os.WriteFile(filepath.Join(*workdir, "bench.md"), []byte(out.String()), 0o644)
}

var ycsbThroughput = regexp.MustCompile(`\[OVERALL\], Throughput\(ops/sec\), ([0-9.E]+)`)

// measure runs one client process and takes its wall time, CPU and peak RSS.
func measure(args []string, ops int64) (sample, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, _ := os.CreateTemp("", "sidebyside-*.err")
	defer os.Remove(stderr.Name())
	cmd.Stderr = stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		stderr.Seek(0, io.SeekStart)
		tail := tailOf(stderr, 20)
		return sample{}, fmt.Errorf("%v: %v\n%s", strings.Join(redact(args), " "), err, tail)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{wall: wall, ops: ops, stdout: stdout.String(), maxRSS: ru.Maxrss,
		cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	if m := ycsbThroughput.FindStringSubmatch(s.stdout); m != nil {
		s.thr, _ = strconv.ParseFloat(m[1], 64)
	}
	return s, nil
}

func redact(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if strings.Contains(a, "password=") || strings.Contains(a, "passwd=") {
			k, _, _ := strings.Cut(a, "=")
			out[i] = k + "=****"
		}
	}
	return out
}

func tailOf(f *os.File, n int) string {
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// rate is operations per second of the client's whole wall time, the same
// definition for every tool (each tool's own figure differs: go-ycsb counts
// from its first sample, YCSB from before its threads start).
func rate(s sample) float64     { return float64(s.ops) / s.wall.Seconds() }
func cpuPerOp(s sample) float64 { return float64(s.cpu.Microseconds()) / float64(s.ops) }

func median(s []sample, f func(sample) float64) float64 {
	v := make([]float64, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

func spread(s []sample, f func(sample) float64) string {
	lo, hi := f(s[0]), f(s[0])
	for _, x := range s {
		lo, hi = min(lo, f(x)), max(hi, f(x))
	}
	return fmt.Sprintf("%.4g–%.4g", lo, hi)
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}
