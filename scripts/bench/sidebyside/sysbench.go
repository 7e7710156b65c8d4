package main

// The sysbench section (-only sysbench, issues 5 and 15): ybload sysbench
// --compat=1.0.20 beside Debian's sysbench 1.0.20 on the same tables of the
// same local PostgreSQL, the tools' order alternating each repetition, plus a
// bare pgconn floor of point selects: transactions per second, client CPU per
// transaction, and read/write/other queries per transaction, at each of
// -sysbench-threads and in each placement: shared (client and server on
// both cores) and apart (pin.go: the server on one core, the client on the
// other, so that the client's own saturation shows). Each pair of figures is
// judged by the goal rule (goalOf).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// sbFigures are what a sysbench-format report says.
type sbFigures struct {
	events, read, write, other, errors int64
	tps                                float64
}

var (
	sbTxLine  = regexp.MustCompile(`(?m)^\s+transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`)
	sbNumLine = func(label string) *regexp.Regexp { return regexp.MustCompile(`(?m)^\s+` + label + `:\s+(\d+)`) }
	sbRead    = sbNumLine("read")
	sbWrite   = sbNumLine("write")
	sbOther   = sbNumLine("other")
	sbErrors  = sbNumLine("ignored errors")
)

func parseSysbench(out string) (sbFigures, error) {
	var f sbFigures
	m := sbTxLine.FindStringSubmatch(out)
	if m == nil {
		return f, fmt.Errorf("no transactions line in:\n%s", out)
	}
	f.events, _ = strconv.ParseInt(m[1], 10, 64)
	f.tps, _ = strconv.ParseFloat(m[2], 64)
	for _, x := range []struct {
		re  *regexp.Regexp
		dst *int64
	}{{sbRead, &f.read}, {sbWrite, &f.write}, {sbOther, &f.other}, {sbErrors, &f.errors}} {
		if m := x.re.FindStringSubmatch(out); m != nil {
			*x.dst, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	return f, nil
}

func (f sbFigures) perTx() (r, w, o float64) {
	if f.events == 0 {
		return 0, 0, 0
	}
	n := float64(f.events)
	return float64(f.read) / n, float64(f.write) / n, float64(f.other) / n
}

// sbRun is one measured run of one client.
type sbRun struct {
	s sample
	f sbFigures
	// start is the CPU of the same client's start-up and teardown: a run of
	// one transaction per thread just before, in the same placement. At 64
	// threads sysbench's start (a LuaJIT state and a connection per thread)
	// is a large part of a short run's CPU.
	start time.Duration
}

// cpuPerTx is client CPU per transaction, the start-up's taken off.
func (r sbRun) cpuPerTx() float64 {
	return float64((r.s.cpu - r.start).Microseconds()) / float64(max(r.f.events, 1))
}

// rawCPUPerTx is the whole process's CPU per transaction.
func (r sbRun) rawCPUPerTx() float64 {
	return float64(r.s.cpu.Microseconds()) / float64(max(r.f.events, 1))
}

func sysbenchSection(ctx context.Context, all *strings.Builder, env pgEnv, fresh func(string) error) error {
	pg := env.Postgres
	out := &strings.Builder{}
	defer func() {
		all.WriteString(out.String())
		os.WriteFile(filepath.Join(*workdir, "issue5-sysbench.md"), []byte(out.String()), 0o644)
	}()
	// Both tools (libpq and ybload) read the password from PGPASSWORD: it
	// stays off the command lines.
	os.Setenv("PGPASSWORD", pg.Password)
	if b, err := exec.Command("go", "build", "-o", *sbFloor, "./scripts/bench/sbfloor").CombinedOutput(); err != nil {
		return fmt.Errorf("build sbfloor: %v\n%s", err, b)
	}
	ver, _ := exec.Command(*sbBin, "--version").Output()
	admin, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", pg.User, pg.Password, pg.Host, pg.Port, pg.Database))
	if err != nil {
		return err
	}
	var preload string
	admin.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&preload)
	admin.Close(ctx)

	cmd := func(tool, wl, db string, extra ...string) []string { return sbCmd(env, tool, wl, db, extra...) }
	run := func(args []string) (sbRun, error) {
		s, err := measure(args, 0)
		if err != nil {
			return sbRun{}, err
		}
		f, err := parseSysbench(s.stdout)
		return sbRun{s: s, f: f}, err
	}

	// Each tool prepares its own copy once (informational); the runs all use
	// the copy Debian's sysbench prepared.
	const db, ybdb = "ybb_sysbench", "ybb_sysbench_ybload"
	prep := map[string]sample{}
	for _, p := range []struct{ tool, db string }{{"sysbench", db}, {"ybload", ybdb}} {
		if err := fresh(p.db); err != nil {
			return err
		}
		s, err := measure(cmd(p.tool, "oltp_read_write", p.db, "--threads=1", "prepare"), 0)
		if err != nil {
			return fmt.Errorf("%s prepare: %w", p.tool, err)
		}
		prep[p.tool] = s
	}

	threads, err := intList("sysbench-threads", *sbThreads)
	if err != nil {
		return err
	}
	places := strings.Split(*sbPlaces, ",")
	for _, pl := range places {
		if pl != "shared" && pl != "apart" {
			return fmt.Errorf("-sysbench-placements: %q: want shared or apart", pl)
		}
	}
	if runtime.NumCPU() < 2 && slices.Contains(places, "apart") {
		fmt.Fprintf(out, "(placement apart skipped: %d CPU)\n\n", runtime.NumCPU())
		places = slices.DeleteFunc(places, func(p string) bool { return p == "apart" })
	}
	n := sysbenchReps()

	floorURL := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", pg.User, pg.Host, pg.Port, db)
	runs, startRuns := map[sbKey][]sbRun{}, map[sbKey][]sbRun{}
	for r := 0; r < n; r++ {
		for _, pl := range places {
			if err := inPlacement(pg.DataDir, pl, func(pin []string) error {
				for _, th := range threads {
					thr := strconv.Itoa(th)
					floorArgs := func(time string, extra ...string) []string {
						return append(append(pin, *sbFloor, "-url", floorURL, "-threads", thr, "-tables", strconv.Itoa(*sbTables),
							"-table-size", strconv.Itoa(*sbRows), "-time", time), extra...)
					}
					start := map[string]time.Duration{}
					for _, tool := range []string{"sysbench", "ybload", sbBlocking, "pgx floor"} {
						args := floorArgs("0", "-events", thr)
						if tool != "pgx floor" {
							args = append(pin, cmd(tool, "oltp_point_select", db, "--threads="+thr, "--events="+thr, "--time=0", "run")...)
						}
						x, err := run(args)
						if err != nil {
							return fmt.Errorf("%s start-up run (%s, %d threads): %w", tool, pl, th, err)
						}
						start[tool] = x.s.cpu
						startRuns[sbKey{pl, th, "", tool}] = append(startRuns[sbKey{pl, th, "", tool}], x)
					}
					for _, wl := range sbWorkloads {
						tools := []string{"sysbench", "ybload"}
						if wl == "oltp_point_select" {
							tools = append(tools, sbBlocking)
						}
						if r%2 == 1 {
							slices.Reverse(tools)
						}
						for _, tool := range tools {
							x, err := run(append(pin, cmd(tool, wl, db, "--threads="+thr, "--time="+strconv.Itoa(*sbTime), "run")...))
							if err != nil {
								return fmt.Errorf("%s %s (%s, %d threads): %w", tool, wl, pl, th, err)
							}
							x.start = start[tool]
							k := sbKey{pl, th, wl, tool}
							runs[k] = append(runs[k], x)
							fmt.Fprintf(os.Stderr, "%s rep %d: %.0f tps, %.1f µs CPU/txn, %d ignored errors\n", k, r+1, x.f.tps, x.cpuPerTx(), x.f.errors)
						}
					}
					x, err := run(floorArgs(strconv.Itoa(*sbTime)))
					if err != nil {
						return fmt.Errorf("sbfloor (%s, %d threads): %w", pl, th, err)
					}
					x.start = start["pgx floor"]
					k := sbKey{pl, th, "oltp_point_select", "pgx floor"}
					runs[k] = append(runs[k], x)
					fmt.Fprintf(os.Stderr, "%s rep %d: %.0f tps, %.1f µs CPU/txn\n", k, r+1, x.f.tps, x.cpuPerTx())
				}
				return nil
			}); err != nil {
				return err
			}
		}
	}

	// Queries per transaction at one thread, a fixed number of events.
	one := map[string]sbFigures{}
	for _, wl := range sbWorkloads {
		for _, tool := range []string{"sysbench", "ybload"} {
			x, err := run(cmd(tool, wl, db, "--threads=1", "--events="+strconv.Itoa(*sbEvents), "--time=0", "run"))
			if err != nil {
				return fmt.Errorf("%s %s (1 thread): %w", tool, wl, err)
			}
			one[wl+" | "+tool] = x.f
		}
	}

	fmt.Fprintf(out, "## sysbench: ybload sysbench --compat=1.0.20 beside %s\n\n", strings.TrimSpace(string(ver)))
	fmt.Fprintf(out, "PostgreSQL %s (config %s); pg_stat_statements loaded on the server: %v (shared_preload_libraries = %q; the extension is not created in the benchmark's database). "+
		"%d tables × %d rows, %s threads, %d s per run, --rand-type=uniform for both, %d repetitions, the tools' order alternating; client CPU = (user+sys of the client process − its start-up run's) / transactions; tps as each tool reports it. "+
		"A goal is met when ybload's median meets it and the two tools' min–max ranges do not overlap (issue 15).\n\n",
		pg.Version, pg.Config, strings.Contains(preload, "pg_stat_statements"), preload, *sbTables, *sbRows, *sbThreads, *sbTime, n)
	fmt.Fprintf(out, "prepare (%d × %d rows, 1 thread): sysbench %.1f s wall, %.2f s CPU; ybload %.1f s wall, %.2f s CPU\n\n",
		*sbTables, *sbRows, prep["sysbench"].wall.Seconds(), prep["sysbench"].cpu.Seconds(), prep["ybload"].wall.Seconds(), prep["ybload"].cpu.Seconds())
	tps := func(x sbRun) float64 { return x.f.tps }
	cpu := func(x sbRun) float64 { return x.cpuPerTx() }
	for _, pl := range places {
		for _, th := range threads {
			fmt.Fprintf(out, "### %s, %d threads\n\nstart-up and teardown CPU (a run of one transaction per thread; median, spread):", placeName(pl), th)
			for _, tool := range []string{"sysbench", "ybload", sbBlocking, "pgx floor"} {
				xs := startRuns[sbKey{pl, th, "", tool}]
				fmt.Fprintf(out, " %s %.3f s (%s);", tool, medianOf(xs, startCPU), spreadOf(xs, startCPU))
			}
			fmt.Fprintf(out, "\n\n| workload | client | tps (median) | spread | client CPU µs/txn, start-up off (median) | spread | whole process's µs/txn (median) | r/w/o per txn (median run) | ignored errors per run |\n|---|---|---|---|---|---|---|---|---|\n")
			for _, wl := range sbWorkloads {
				for _, tool := range []string{"sysbench", "ybload", sbBlocking, "pgx floor"} {
					xs := runs[sbKey{pl, th, wl, tool}]
					if xs == nil {
						continue
					}
					r, w, o := medianRun(xs, tps).f.perTx()
					var errs []string
					for _, x := range xs {
						errs = append(errs, strconv.FormatInt(x.f.errors, 10))
					}
					fmt.Fprintf(out, "| %s | %s | %.0f | %s | %.2f | %s | %.2f | %.3f/%.3f/%.3f | %s |\n", wl, tool, medianOf(xs, tps), spreadOf(xs, tps),
						medianOf(xs, cpu), spreadOf(xs, cpu), medianOf(xs, sbRun.rawCPUPerTx), r, w, o, strings.Join(errs, ", "))
				}
			}
			fmt.Fprintln(out)
			for _, wl := range sbWorkloads {
				y, s := runs[sbKey{pl, th, wl, "ybload"}], runs[sbKey{pl, th, wl, "sysbench"}]
				line := fmt.Sprintf("%s: tps %.3f× sysbench's (goal ≥ 1.0: %s); CPU/txn %.3f× (goal ≤ 0.9: %s)", wl,
					medianOf(y, tps)/medianOf(s, tps), goal(y, s, tps, 1.0, true), medianOf(y, cpu)/medianOf(s, cpu), goal(y, s, cpu, 0.9, false))
				if f := runs[sbKey{pl, th, wl, "pgx floor"}]; f != nil {
					line += fmt.Sprintf("; CPU/txn %.3f× the pgx floor's (%.2f µs)", medianOf(y, cpu)/medianOf(f, cpu), medianOf(f, cpu))
				}
				yr, yw, yo := medianRun(y, tps).f.perTx()
				sr, sw, so := medianRun(s, tps).f.perTx()
				line += fmt.Sprintf("; queries/txn %.4f vs %.4f (%+.2f%%)", yr+yw+yo, sr+sw+so, 100*((yr+yw+yo)/(sr+sw+so)-1))
				if b := runs[sbKey{pl, th, wl, sbBlocking}]; b != nil {
					line += fmt.Sprintf("; blocking socket: tps %.3f× sysbench's (%s), CPU/txn %.3f× (%s), CPU/txn %.3f× ybload's on the poller",
						medianOf(b, tps)/medianOf(s, tps), goal(b, s, tps, 1.0, true), medianOf(b, cpu)/medianOf(s, cpu), goal(b, s, cpu, 0.9, false),
						medianOf(b, cpu)/medianOf(y, cpu))
				}
				fmt.Fprintln(out, line)
			}
			fmt.Fprintln(out)
		}
	}
	fmt.Fprintf(out, "\n### Queries per transaction, --threads=1 --events=%d --time=0 (target: identical)\n\n| workload | sysbench r/w/o (errors) | ybload r/w/o (errors) | identical |\n|---|---|---|---|\n", *sbEvents)
	for _, wl := range sbWorkloads {
		s, y := one[wl+" | sysbench"], one[wl+" | ybload"]
		same := s.events == y.events && s.read == y.read && s.write == y.write && s.other == y.other
		fmt.Fprintf(out, "| %s | %d/%d/%d (%d) in %d txn | %d/%d/%d (%d) in %d txn | %v |\n", wl, s.read, s.write, s.other, s.errors, s.events,
			y.read, y.write, y.other, y.errors, y.events, same)
	}
	fmt.Fprintln(out)
	return nil
}

func startCPU(x sbRun) float64 { return x.s.cpu.Seconds() }

func medianOf(xs []sbRun, f func(sbRun) float64) float64 { return f(medianRun(xs, f)) }

// medianRun is the run with the median value of f (the upper one of two).
func medianRun(xs []sbRun, f func(sbRun) float64) sbRun {
	s := append([]sbRun(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && f(s[j]) < f(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

func spreadOf(xs []sbRun, f func(sbRun) float64) string {
	lo, hi := f(xs[0]), f(xs[0])
	for _, x := range xs {
		lo, hi = min(lo, f(x)), max(hi, f(x))
	}
	return fmt.Sprintf("%.4g–%.4g", lo, hi)
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

// sbKey names one configuration of the sysbench section.
type sbKey struct {
	place   string
	threads int
	wl      string
	tool    string
}

func (k sbKey) String() string {
	return fmt.Sprintf("%s %s (%s, %d threads)", k.wl, k.tool, k.place, k.threads)
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

func placeName(pl string) string {
	if pl == "apart" {
		return "apart: postmaster pinned to core 0 (taskset -a -cp), client on core 1"
	}
	return "shared: client and server on both cores"
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

// goal says whether ybload (y) meets a goal against sysbench (s).
func goal(y, s []sbRun, f func(sbRun) float64, bound float64, atLeast bool) string {
	return goalOf(valuesOf(y, f), valuesOf(s, f), bound, atLeast)
}

func valuesOf[T any](xs []T, f func(T) float64) []float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	return v
}

// goalOf is the goal rule: the ratio of ybload's median (y) to the
// peer's (p) on the right side of bound, and the two min–max ranges apart.
func goalOf(y, p []float64, bound float64, atLeast bool) string {
	ratio := medianValue(y) / medianValue(p)
	overlap := slices.Min(y) <= slices.Max(p) && slices.Min(p) <= slices.Max(y)
	ok := ratio <= bound
	if atLeast {
		ok = ratio >= bound
	}
	switch {
	case ok && !overlap:
		return "met"
	case ok:
		return "median meets it, ranges overlap"
	case overlap:
		return "not met, ranges overlap"
	}
	return "not met, ranges apart"
}

// medianValue is the median of v (the upper one of two), as median's.
func medianValue(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
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
