package main

// The sysbench section's report: its conditions, then for each placement
// and thread count the start-up CPU, the table of figures and the goals
// judged, then the queries per transaction at one thread.

import (
	"fmt"
	"strconv"
	"strings"
)

// writeSbHeader says what the section ran on and how its figures are
// made, and how long each tool's prepare took.
func writeSbHeader(out *strings.Builder, env pgEnv, version, preload string, n int, prep map[string]sample) {
	pg := env.Postgres
	fmt.Fprintf(out, "## sysbench: ybload sysbench --compat=1.0.20 beside %s\n\n", version)
	fmt.Fprintf(out, "PostgreSQL %s (config %s); pg_stat_statements loaded on the server: %v (shared_preload_libraries = %q; the extension is not created in the benchmark's database). "+
		"%d tables × %d rows, %s threads, %d s per run, --rand-type=uniform for both, %d repetitions, the tools' order alternating; client CPU = (user+sys of the client process − its start-up run's) / transactions; tps as each tool reports it. "+
		"A goal is met when ybload's median meets it and the two tools' min–max ranges do not overlap (issue 15).\n\n",
		pg.Version, pg.Config, strings.Contains(preload, "pg_stat_statements"), preload, *sbTables, *sbRows, *sbThreads, *sbTime, n)
	fmt.Fprintf(out, "prepare (%d × %d rows, 1 thread): sysbench %.1f s wall, %.2f s CPU; ybload %.1f s wall, %.2f s CPU\n\n",
		*sbTables, *sbRows, prep["sysbench"].wall.Seconds(), prep["sysbench"].cpu.Seconds(), prep["ybload"].wall.Seconds(), prep["ybload"].cpu.Seconds())
}

// writeSbConfig prints one placement and thread count: the clients'
// start-up CPU, the figures of every workload and client, and each
// workload's goals.
func writeSbConfig(out *strings.Builder, res *sbResults, pl string, th int) {
	fmt.Fprintf(out, "### %s, %d threads\n\nstart-up and teardown CPU (a run of one transaction per thread; median, spread):", placeName(pl), th)
	for _, tool := range sbTools {
		xs := res.startRuns[sbKey{pl, th, "", tool}]
		fmt.Fprintf(out, " %s %.3f s (%s);", tool, medianOf(xs, startCPU), spreadOf(xs, startCPU))
	}
	fmt.Fprintf(out, "\n\n| workload | client | tps (median) | spread | client CPU µs/txn, start-up off (median) | spread | whole process's µs/txn (median) | r/w/o per txn (median run) | ignored errors per run |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, wl := range sbWorkloads {
		for _, tool := range sbTools {
			if xs := res.runs[sbKey{pl, th, wl, tool}]; xs != nil {
				writeSbRow(out, wl, tool, xs)
			}
		}
	}
	fmt.Fprintln(out)
	for _, wl := range sbWorkloads {
		fmt.Fprintln(out, sbGoals(res, pl, th, wl))
	}
	fmt.Fprintln(out)
}

// writeSbRow is one client's row of a workload: its queries per
// transaction are those of its median run by tps.
func writeSbRow(out *strings.Builder, wl, tool string, xs []sbRun) {
	r, w, o := medianRun(xs, sbRun.tps).f.perTx()
	var errs []string
	for _, x := range xs {
		errs = append(errs, strconv.FormatInt(x.f.errors, 10))
	}
	fmt.Fprintf(out, "| %s | %s | %.0f | %s | %.2f | %s | %.2f | %.3f/%.3f/%.3f | %s |\n", wl, tool, medianOf(xs, sbRun.tps), spreadOf(xs, sbRun.tps),
		medianOf(xs, sbRun.cpuPerTx), spreadOf(xs, sbRun.cpuPerTx), medianOf(xs, sbRun.rawCPUPerTx), r, w, o, strings.Join(errs, ", "))
}

// sbGoals is one workload's line of goals: ybload against sysbench, and
// where they ran, against the pgx floor and on blocking sockets.
func sbGoals(res *sbResults, pl string, th int, wl string) string {
	tps, cpu := sbRun.tps, sbRun.cpuPerTx
	y, s := res.runs[sbKey{pl, th, wl, "ybload"}], res.runs[sbKey{pl, th, wl, "sysbench"}]
	line := fmt.Sprintf("%s: tps %.3f× sysbench's (goal ≥ 1.0: %s); CPU/txn %.3f× (goal ≤ 0.9: %s)", wl,
		medianOf(y, tps)/medianOf(s, tps), goal(y, s, tps, 1.0, true), medianOf(y, cpu)/medianOf(s, cpu), goal(y, s, cpu, 0.9, false))
	if f := res.runs[sbKey{pl, th, wl, "pgx floor"}]; f != nil {
		line += fmt.Sprintf("; CPU/txn %.3f× the pgx floor's (%.2f µs)", medianOf(y, cpu)/medianOf(f, cpu), medianOf(f, cpu))
	}
	yr, yw, yo := medianRun(y, tps).f.perTx()
	sr, sw, so := medianRun(s, tps).f.perTx()
	line += fmt.Sprintf("; queries/txn %.4f vs %.4f (%+.2f%%)", yr+yw+yo, sr+sw+so, 100*((yr+yw+yo)/(sr+sw+so)-1))
	if b := res.runs[sbKey{pl, th, wl, sbBlocking}]; b != nil {
		line += fmt.Sprintf("; blocking socket: tps %.3f× sysbench's (%s), CPU/txn %.3f× (%s), CPU/txn %.3f× ybload's on the poller",
			medianOf(b, tps)/medianOf(s, tps), goal(b, s, tps, 1.0, true), medianOf(b, cpu)/medianOf(s, cpu), goal(b, s, cpu, 0.9, false),
			medianOf(b, cpu)/medianOf(y, cpu))
	}
	return line
}

// writeSbQueries prints the one-thread runs' statement counts side by
// side: the two tools' transactions must be made of the same statements.
func writeSbQueries(out *strings.Builder, one map[string]sbFigures) {
	fmt.Fprintf(out, "\n### Queries per transaction, --threads=1 --events=%d --time=0 (target: identical)\n\n| workload | sysbench r/w/o (errors) | ybload r/w/o (errors) | identical |\n|---|---|---|---|\n", *sbEvents)
	for _, wl := range sbWorkloads {
		s, y := one[wl+" | sysbench"], one[wl+" | ybload"]
		same := s.events == y.events && s.read == y.read && s.write == y.write && s.other == y.other
		fmt.Fprintf(out, "| %s | %d/%d/%d (%d) in %d txn | %d/%d/%d (%d) in %d txn | %v |\n", wl, s.read, s.write, s.other, s.errors, s.events,
			y.read, y.write, y.other, y.errors, y.events, same)
	}
	fmt.Fprintln(out)
}

func placeName(pl string) string {
	if pl == "apart" {
		return "apart: postmaster pinned to core 0 (taskset -a -cp), client on core 1"
	}
	return "shared: client and server on both cores"
}
