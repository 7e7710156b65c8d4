package main

// The sysbench section (-only sysbench, issues 5 and 15): ybload sysbench
// --compat=1.0.20 beside Debian's sysbench 1.0.20 on the same tables of the
// same local PostgreSQL, the tools' order alternating each repetition, plus a
// bare pgconn floor of point selects: transactions per second, client CPU per
// transaction, and read/write/other queries per transaction, at each of
// -sysbench-threads and in each placement: shared (client and server on
// both cores) and apart (pin.go: the server on one core, the client on the
// other, so that the client's own saturation shows). Each pair of figures is
// judged by the goal rule (goalOf). sbreport.go prints the figures.

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	sbBin     = flag.String("sysbench", "sysbench", "Debian's sysbench 1.0.20 (sysbench section)")
	sbFloor   = flag.String("sbfloor", ".cache/bench/sbfloor", "sbfloor binary, built by the sysbench section")
	sbTime    = flag.Int("sysbench-time", 5, "seconds per sysbench run")
	sbThreads = flag.String("sysbench-threads", "16,64", "comma list of the sysbench runs' thread counts")
	sbPlaces  = flag.String("sysbench-placements", "shared,apart", "comma list: shared (client and server on both cores), apart (postmaster pinned to core 0, client on core 1)")
	sbReps    = flag.Int("sysbench-reps", 5, "repetitions of the sysbench section (-reps given alone sets it too)")
	sbTables  = flag.Int("sysbench-tables", 4, "sysbench tables")
	sbRows    = flag.Int("sysbench-table-size", 50000, "rows per sysbench table")
	sbEvents  = flag.Int("sysbench-events", 1000, "events of the one-thread queries-per-transaction runs")
)

var sbWorkloads = []string{"oltp_point_select", "oltp_read_only", "oltp_read_write"}

// sbBlocking is ybload on blocking sockets (--ybload-socket=blocking, issue
// 15's connection mode without the network poller), measured on
// oltp_point_select, where the client's cost per statement shows most.
const sbBlocking = "ybload, blocking socket"

// sbTools are the section's clients, in the order its tables list them.
var sbTools = []string{"sysbench", "ybload", sbBlocking, "pgx floor"}

// Each tool prepares its own copy once (informational); the runs all use
// the copy Debian's sysbench prepared, sbDB.
const sbDB, sbYbloadDB = "ybb_sysbench", "ybb_sysbench_ybload"

// sbResults are the section's measured runs, and the start-up runs taken
// off them, by configuration.
type sbResults struct {
	runs, startRuns map[sbKey][]sbRun
}

func sysbenchSection(ctx context.Context, all *strings.Builder, env pgEnv, fresh func(string) error) error {
	out := &strings.Builder{}
	// What the section wrote is kept in its own file even when a later
	// step fails.
	defer func() {
		all.WriteString(out.String())
		os.WriteFile(filepath.Join(*workdir, "issue5-sysbench.md"), []byte(out.String()), 0o644)
	}()
	// Both tools (libpq and ybload) read the password from PGPASSWORD: it
	// stays off the command lines.
	os.Setenv("PGPASSWORD", env.Postgres.Password)
	if err := buildSbfloor(); err != nil {
		return err
	}
	ver, _ := exec.Command(*sbBin, "--version").Output()
	preload, err := sbPreload(ctx, env)
	if err != nil {
		return err
	}
	prep, err := sbPrepareCopies(env, fresh)
	if err != nil {
		return err
	}
	threads, err := intList("sysbench-threads", *sbThreads)
	if err != nil {
		return err
	}
	places, err := sbPlacements(out)
	if err != nil {
		return err
	}
	n := sysbenchReps()
	res, err := sbMeasure(env, places, threads, n)
	if err != nil {
		return err
	}
	one, err := sbQueriesPerTx(env)
	if err != nil {
		return err
	}
	writeSbHeader(out, env, strings.TrimSpace(string(ver)), preload, n, prep)
	for _, pl := range places {
		for _, th := range threads {
			writeSbConfig(out, res, pl, th)
		}
	}
	writeSbQueries(out, one)
	return nil
}

// buildSbfloor builds the pgx floor of point selects, from this checkout,
// for the sections that run it.
func buildSbfloor() error {
	if b, err := exec.Command("go", "build", "-o", *sbFloor, "./scripts/bench/sbfloor").CombinedOutput(); err != nil {
		return fmt.Errorf("build sbfloor: %v\n%s", err, b)
	}
	return nil
}

// sbPreload is the server's shared_preload_libraries, which the report
// names: a loaded pg_stat_statements costs every statement on the server.
func sbPreload(ctx context.Context, env pgEnv) (string, error) {
	pg := env.Postgres
	admin, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", pg.User, pg.Password, pg.Host, pg.Port, pg.Database))
	if err != nil {
		return "", err
	}
	var preload string
	admin.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&preload)
	admin.Close(ctx)
	return preload, nil
}

// sbPrepareCopies has each tool prepare its own copy of the tables, once,
// timed for the report.
func sbPrepareCopies(env pgEnv, fresh func(string) error) (map[string]sample, error) {
	prep := map[string]sample{}
	for _, p := range []struct{ tool, db string }{{"sysbench", sbDB}, {"ybload", sbYbloadDB}} {
		if err := fresh(p.db); err != nil {
			return nil, err
		}
		s, err := measure(sbCmd(env, p.tool, "oltp_read_write", p.db, "--threads=1", "prepare"), 0)
		if err != nil {
			return nil, fmt.Errorf("%s prepare: %w", p.tool, err)
		}
		prep[p.tool] = s
	}
	return prep, nil
}

// sbPlacements are -sysbench-placements; apart is skipped, and the report
// says so, on a machine with one CPU, where there is no second core to
// keep the client on.
func sbPlacements(out *strings.Builder) ([]string, error) {
	places := strings.Split(*sbPlaces, ",")
	for _, pl := range places {
		if pl != "shared" && pl != "apart" {
			return nil, fmt.Errorf("-sysbench-placements: %q: want shared or apart", pl)
		}
	}
	if runtime.NumCPU() < 2 && slices.Contains(places, "apart") {
		fmt.Fprintf(out, "(placement apart skipped: %d CPU)\n\n", runtime.NumCPU())
		places = slices.DeleteFunc(places, func(p string) bool { return p == "apart" })
	}
	return places, nil
}

// sbMeasure runs n repetitions of every placement and thread count. A
// placement holds for all its thread counts in a repetition: the
// postmaster is pinned once, before their clients connect.
func sbMeasure(env pgEnv, places []string, threads []int, n int) (*sbResults, error) {
	res := &sbResults{runs: map[sbKey][]sbRun{}, startRuns: map[sbKey][]sbRun{}}
	for r := 0; r < n; r++ {
		for _, pl := range places {
			if err := inPlacement(env.Postgres.DataDir, pl, func(pin []string) error {
				for _, th := range threads {
					if err := res.measureConfig(env, pin, pl, th, r); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// measureConfig runs repetition r of one placement (pin: its command
// prefix) and thread count: each client's start-up run, the workloads with
// the tools' order alternating, and then the pgx floor.
func (res *sbResults) measureConfig(env pgEnv, pin []string, pl string, th, r int) error {
	thr := strconv.Itoa(th)
	start, err := res.measureStartUps(env, pin, pl, th)
	if err != nil {
		return err
	}
	for _, wl := range sbWorkloads {
		tools := []string{"sysbench", "ybload"}
		if wl == "oltp_point_select" {
			tools = append(tools, sbBlocking)
		}
		for _, tool := range alternated(tools, r) {
			x, err := sbMeasureRun(append(pin, sbCmd(env, tool, wl, sbDB, "--threads="+thr, "--time="+strconv.Itoa(*sbTime), "run")...))
			if err != nil {
				return fmt.Errorf("%s %s (%s, %d threads): %w", tool, wl, pl, th, err)
			}
			x.start = start[tool]
			k := sbKey{pl, th, wl, tool}
			res.runs[k] = append(res.runs[k], x)
			fmt.Fprintf(os.Stderr, "%s rep %d: %.0f tps, %.1f µs CPU/txn, %d ignored errors\n", k, r+1, x.f.tps, x.cpuPerTx(), x.f.errors)
		}
	}
	x, err := sbMeasureRun(sbFloorArgs(env, pin, thr, strconv.Itoa(*sbTime)))
	if err != nil {
		return fmt.Errorf("sbfloor (%s, %d threads): %w", pl, th, err)
	}
	x.start = start["pgx floor"]
	k := sbKey{pl, th, "oltp_point_select", "pgx floor"}
	res.runs[k] = append(res.runs[k], x)
	fmt.Fprintf(os.Stderr, "%s rep %d: %.0f tps, %.1f µs CPU/txn\n", k, r+1, x.f.tps, x.cpuPerTx())
	return nil
}

// measureStartUps runs each client for one transaction per thread in the
// placement of the runs that follow: the CPU of its start-up and teardown,
// by tool, which their CPU per transaction leaves out.
func (res *sbResults) measureStartUps(env pgEnv, pin []string, pl string, th int) (map[string]time.Duration, error) {
	thr := strconv.Itoa(th)
	start := map[string]time.Duration{}
	for _, tool := range sbTools {
		args := sbFloorArgs(env, pin, thr, "0", "-events", thr)
		if tool != "pgx floor" {
			args = append(pin, sbCmd(env, tool, "oltp_point_select", sbDB, "--threads="+thr, "--events="+thr, "--time=0", "run")...)
		}
		x, err := sbMeasureRun(args)
		if err != nil {
			return nil, fmt.Errorf("%s start-up run (%s, %d threads): %w", tool, pl, th, err)
		}
		start[tool] = x.s.cpu
		k := sbKey{pl, th, "", tool}
		res.startRuns[k] = append(res.startRuns[k], x)
	}
	return start, nil
}

// sbQueriesPerTx runs each workload with each tool for -sysbench-events
// transactions on one thread: what each tool's transactions are made of,
// which must be the same.
func sbQueriesPerTx(env pgEnv) (map[string]sbFigures, error) {
	one := map[string]sbFigures{}
	for _, wl := range sbWorkloads {
		for _, tool := range []string{"sysbench", "ybload"} {
			x, err := sbMeasureRun(sbCmd(env, tool, wl, sbDB, "--threads=1", "--events="+strconv.Itoa(*sbEvents), "--time=0", "run"))
			if err != nil {
				return nil, fmt.Errorf("%s %s (1 thread): %w", tool, wl, err)
			}
			one[wl+" | "+tool] = x.f
		}
	}
	return one, nil
}

// sbFloorURL is the pgx floor's URL for db; the password comes from
// PGPASSWORD.
func sbFloorURL(env pgEnv, db string) string {
	pg := env.Postgres
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", pg.User, pg.Host, pg.Port, db)
}

// sbFloorArgs is the pgx floor's command line on the section's tables, with
// thr threads for secs seconds, after the placement's prefix pin.
func sbFloorArgs(env pgEnv, pin []string, thr, secs string, extra ...string) []string {
	return append(append(pin, *sbFloor, "-url", sbFloorURL(env, sbDB), "-threads", thr, "-tables", strconv.Itoa(*sbTables),
		"-table-size", strconv.Itoa(*sbRows), "-time", secs), extra...)
}

// sbCmd is the command line of one sysbench-compatible tool on db: Debian's
// sysbench, or ybload sysbench --compat=1.0.20; the password comes from
// PGPASSWORD.
func sbCmd(env pgEnv, tool, wl, db string, extra ...string) []string {
	return sbCmdWith(*ybload, env, tool, wl, db, extra...)
}

// sbCmdWith is sbCmd with another ybload binary.
func sbCmdWith(ybloadBin string, env pgEnv, tool, wl, db string, extra ...string) []string {
	pg := env.Postgres
	var a []string
	switch tool {
	case "sysbench":
		a = []string{*sbBin, wl}
	case sbBlocking:
		a = []string{ybloadBin, "sysbench", wl, "--compat=1.0.20", "--ybload-socket=blocking"}
	default:
		a = []string{ybloadBin, "sysbench", wl, "--compat=1.0.20"}
	}
	a = append(a, "--db-driver=pgsql", "--pgsql-host="+pg.Host, "--pgsql-port="+strconv.Itoa(pg.Port), "--pgsql-user="+pg.User, "--pgsql-db="+db,
		"--tables="+strconv.Itoa(*sbTables), "--table-size="+strconv.Itoa(*sbRows), "--rand-type=uniform")
	return append(a, extra...)
}

// sbPrepare makes db afresh with sysbench's tables, prepared by Debian's
// sysbench, for the sections that measure on their own copy.
func sbPrepare(env pgEnv, fresh func(string) error, db string) error {
	if err := fresh(db); err != nil {
		return err
	}
	if _, err := measure(sbCmd(env, "sysbench", "oltp_read_write", db, "--threads=1", "prepare"), 0); err != nil {
		return fmt.Errorf("sysbench prepare %s: %w", db, err)
	}
	return nil
}

// sysbenchReps is -sysbench-reps, or -reps when only that was given (a
// short trial with -reps 1 stays short).
func sysbenchReps() int {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["reps"] && !set["sysbench-reps"] {
		return *reps
	}
	return *sbReps
}

// inPlacement runs f with the prefix that places a client: nothing when
// shared; when apart, the postmaster pinned to core 0 for f's duration and
// the client under taskset on core 1.
func inPlacement(dataDir, pl string, f func(prefix []string) error) (err error) {
	if pl != "apart" {
		return f(nil)
	}
	p, err := pinPostmaster(dataDir, 0)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := p.restore(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	return f([]string{"taskset", "-c", "1"})
}

// intList parses a flag's comma list of positive integers.
func intList(name, v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-%s=%s: %q is not a positive integer", name, v, f)
		}
		out = append(out, n)
	}
	return out, nil
}
