package main

// The sysbench section (-only sysbench, issue 5): ybload sysbench
// --compat=1.0.20 beside Debian's sysbench 1.0.20 on the same tables of the
// same local PostgreSQL, alternating, plus a bare pgconn floor of point
// selects: transactions per second, client CPU per transaction, and read/
// write/other queries per transaction.

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

var (
	sbBin     = flag.String("sysbench", "sysbench", "Debian's sysbench 1.0.20 (sysbench section)")
	sbFloor   = flag.String("sbfloor", ".cache/bench/sbfloor", "sbfloor binary, built by the sysbench section")
	sbTime    = flag.Int("sysbench-time", 30, "seconds per sysbench run")
	sbThreads = flag.Int("sysbench-threads", 16, "threads of the sysbench runs")
	sbTables  = flag.Int("sysbench-tables", 4, "sysbench tables")
	sbRows    = flag.Int("sysbench-table-size", 50000, "rows per sysbench table")
	sbEvents  = flag.Int("sysbench-events", 1000, "events of the one-thread queries-per-transaction runs")
)

var sbWorkloads = []string{"oltp_point_select", "oltp_read_only", "oltp_read_write"}

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
}

func (r sbRun) cpuPerTx() float64 {
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

	conn := func(db string) []string {
		return []string{"--db-driver=pgsql", "--pgsql-host=" + pg.Host, "--pgsql-port=" + strconv.Itoa(pg.Port), "--pgsql-user=" + pg.User, "--pgsql-db=" + db}
	}
	size := []string{"--tables=" + strconv.Itoa(*sbTables), "--table-size=" + strconv.Itoa(*sbRows), "--rand-type=uniform"}
	cmd := func(tool, wl, db string, extra ...string) []string {
		var a []string
		if tool == "sysbench" {
			a = []string{*sbBin, wl}
		} else {
			a = []string{*ybload, "sysbench", wl, "--compat=1.0.20"}
		}
		return append(append(append(a, conn(db)...), size...), extra...)
	}
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

	floorURL := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", pg.User, pg.Host, pg.Port, db)
	runs := map[string][]sbRun{}
	for r := 0; r < *reps; r++ {
		for _, wl := range sbWorkloads {
			tools := []string{"sysbench", "ybload"}
			if r%2 == 1 {
				tools = []string{"ybload", "sysbench"}
			}
			for _, tool := range tools {
				x, err := run(cmd(tool, wl, db, "--threads="+strconv.Itoa(*sbThreads), "--time="+strconv.Itoa(*sbTime), "run"))
				if err != nil {
					return fmt.Errorf("%s %s: %w", tool, wl, err)
				}
				runs[wl+" | "+tool] = append(runs[wl+" | "+tool], x)
				fmt.Fprintf(os.Stderr, "%s %s rep %d: %.0f tps, %.1f µs CPU/txn, %d ignored errors\n", wl, tool, r+1, x.f.tps, x.cpuPerTx(), x.f.errors)
			}
		}
		x, err := run([]string{*sbFloor, "-url", floorURL, "-threads", strconv.Itoa(*sbThreads), "-tables", strconv.Itoa(*sbTables),
			"-table-size", strconv.Itoa(*sbRows), "-time", strconv.Itoa(*sbTime)})
		if err != nil {
			return fmt.Errorf("sbfloor: %w", err)
		}
		runs["oltp_point_select | pgx floor"] = append(runs["oltp_point_select | pgx floor"], x)
		fmt.Fprintf(os.Stderr, "pgx floor rep %d: %.0f tps, %.1f µs CPU/txn\n", r+1, x.f.tps, x.cpuPerTx())
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
		"%d tables × %d rows, %d threads, %d s per run, --rand-type=uniform for both, %d repetitions alternated; client CPU = user+sys of the client process / transactions; tps as each tool reports it.\n\n",
		pg.Version, pg.Config, strings.Contains(preload, "pg_stat_statements"), preload, *sbTables, *sbRows, *sbThreads, *sbTime, *reps)
	fmt.Fprintf(out, "prepare (%d × %d rows, 1 thread): sysbench %.1f s wall, %.2f s CPU; ybload %.1f s wall, %.2f s CPU\n\n",
		*sbTables, *sbRows, prep["sysbench"].wall.Seconds(), prep["sysbench"].cpu.Seconds(), prep["ybload"].wall.Seconds(), prep["ybload"].cpu.Seconds())
	fmt.Fprintf(out, "| workload | client | tps (median) | spread | client CPU µs/txn (median) | spread | r/w/o per txn (median run) | ignored errors per run |\n|---|---|---|---|---|---|---|---|\n")
	tps := func(x sbRun) float64 { return x.f.tps }
	cpu := func(x sbRun) float64 { return x.cpuPerTx() }
	for _, k := range sortedKeys(runs) {
		xs := runs[k]
		mid := medianRun(xs, tps)
		r, w, o := mid.f.perTx()
		var errs []string
		for _, x := range xs {
			errs = append(errs, strconv.FormatInt(x.f.errors, 10))
		}
		fmt.Fprintf(out, "| %s | %.0f | %s | %.2f | %s | %.3f/%.3f/%.3f | %s |\n", k, medianOf(xs, tps), spreadOf(xs, tps), medianOf(xs, cpu), spreadOf(xs, cpu), r, w, o, strings.Join(errs, ", "))
	}
	fmt.Fprintln(out)
	for _, wl := range sbWorkloads {
		y, s := runs[wl+" | ybload"], runs[wl+" | sysbench"]
		line := fmt.Sprintf("%s: ybload tps = %.3f× sysbench's (target ≥ 1.0); CPU/txn = %.3f× sysbench's (target ≤ 1.0)",
			wl, medianOf(y, tps)/medianOf(s, tps), medianOf(y, cpu)/medianOf(s, cpu))
		if f := runs[wl+" | pgx floor"]; f != nil {
			line += fmt.Sprintf(", %.3f× the pgx floor's (%.2f µs)", medianOf(y, cpu)/medianOf(f, cpu), medianOf(f, cpu))
		}
		yr, yw, yo := medianRun(y, tps).f.perTx()
		sr, sw, so := medianRun(s, tps).f.perTx()
		line += fmt.Sprintf("; queries/txn at %d threads: %.4f vs %.4f (%+.2f%%, target within 0.5%%)",
			*sbThreads, yr+yw+yo, sr+sw+so, 100*((yr+yw+yo)/(sr+sw+so)-1))
		fmt.Fprintln(out, line)
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
