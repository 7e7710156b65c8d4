package main

// The instruction-count section (-only callgrind): times on this shared
// two-core machine move by more than the differences the sysbench goals are
// about; instructions do not. Each client (Debian's sysbench, ybload sysbench
// --compat=1.0.20, the pgx floor for point selects) runs one thread under
// valgrind --tool=callgrind for a fixed number of events (--events=N
// --time=0) twice, N and N/5, and the difference of the two counts over the
// difference of the events is its instructions per transaction, start-up
// (connecting, preparing, the Go runtime's or LuaJIT's own start) taken off.
//
// Go binaries run with GODEBUG=asyncpreemptoff=1: callgrind 3.19 asserts on
// the SIGURG the Go scheduler preempts goroutines with. A client that still
// cannot run is named with the reason, and the section goes on.

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
)

var cgEvents = flag.Int("callgrind-events", 1000, "transactions of the longer callgrind run of each client (the shorter does a fifth)")

var cgCollected = regexp.MustCompile(`Collected : (\d+)`)

// callgrindRun is one client's run under callgrind: its instruction count,
// or why there is none.
func callgrindRun(args []string, goBinary bool, outFile string) (int64, error) {
	cmd := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=" + outFile}, args...)...)
	cmd.Env = os.Environ()
	if goBinary {
		cmd.Env = append(cmd.Env, "GODEBUG=asyncpreemptoff=1")
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	m := cgCollected.FindStringSubmatch(stderr.String())
	if err != nil || m == nil {
		why := "no instruction count in its output"
		if err != nil {
			why = err.Error()
		}
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(l, "Assertion") || strings.Contains(l, "FATAL") || strings.Contains(l, "unhandled") {
				why += ": " + strings.TrimSpace(l)
				break
			}
		}
		return 0, fmt.Errorf("%s: %s", strings.Join(redact(args), " "), why)
	}
	return strconv.ParseInt(m[1], 10, 64)
}

func callgrindSection(ctx context.Context, out *strings.Builder, env pgEnv, fresh func(string) error) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		fmt.Fprintf(out, "## Instructions per transaction\n\nvalgrind is not installed (make bench installs it): skipped.\n\n")
		return nil
	}
	os.Setenv("PGPASSWORD", env.Postgres.Password)
	if err := buildSbfloor(); err != nil {
		return err
	}
	// ybload built as make build builds it, but with its symbol table:
	// the code and so the counts are the same as the stripped binary's,
	// and callgrind can name the functions the instructions are spent in.
	symYbload := filepath.Join(filepath.Dir(*sbFloor), "ybload-symbols")
	build := exec.Command("go", "build", "-trimpath", "-o", symYbload, "./cmd/ybload")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build ybload with symbols: %v\n%s", err, b)
	}
	const db = "ybb_sysbench_cg"
	if err := sbPrepare(env, fresh, db); err != nil {
		return err
	}
	dir := filepath.Join(*workdir, "callgrind")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	long, short := *cgEvents, max(*cgEvents/5, 1)
	floorURL := sbFloorURL(env, db)
	fmt.Fprintf(out, "## Instructions per transaction (callgrind)\n\nOne thread, --time=0, %d and %d events on %d tables × %d rows; (instructions of the long run − the short run's) / %d; "+
		"Go binaries with GODEBUG=asyncpreemptoff=1; call graphs in %s.\n\n| workload | client | instructions/txn | start-up instructions | vs sysbench |\n|---|---|---|---|---|\n",
		long, short, *sbTables, *sbRows, long-short, dir)
	var failed []string
	var profile [2]string // ybload's oltp_point_select call graphs, short and long
	for _, wl := range sbWorkloads {
		var sbPerTx float64
		for _, tool := range sbTools {
			if (tool == "pgx floor" || tool == sbBlocking) && wl != "oltp_point_select" {
				continue
			}
			args := func(n int) []string {
				if tool == "pgx floor" {
					return []string{*sbFloor, "-url", floorURL, "-threads", "1", "-tables", strconv.Itoa(*sbTables),
						"-table-size", strconv.Itoa(*sbRows), "-time", "0", "-events", strconv.Itoa(n)}
				}
				return sbCmdWith(symYbload, env, tool, wl, db, "--threads=1", "--events="+strconv.Itoa(n), "--time=0", "run")
			}
			var counts [2]int64
			var files [2]string
			var err error
			for i, n := range []int{short, long} {
				files[i] = filepath.Join(dir, fmt.Sprintf("%s.%s.%d.out", strings.NewReplacer(" ", "-", ",", "").Replace(tool), wl, n))
				if counts[i], err = callgrindRun(args(n), tool != "sysbench", files[i]); err != nil {
					break
				}
			}
			if err == nil && tool == "ybload" && wl == "oltp_point_select" {
				profile = files
			}
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s %s cannot run under callgrind: %v", tool, wl, err))
				fmt.Fprintf(out, "| %s | %s | — | — | — |\n", wl, tool)
				continue
			}
			perTx := float64(counts[1]-counts[0]) / float64(long-short)
			start := float64(counts[0]) - perTx*float64(short)
			vs := "—"
			if tool == "sysbench" {
				sbPerTx = perTx
			} else if sbPerTx > 0 {
				vs = fmt.Sprintf("%.3f×", perTx/sbPerTx)
			}
			fmt.Fprintf(out, "| %s | %s | %.0f | %.0f | %s |\n", wl, tool, perTx, start, vs)
			fmt.Fprintf(os.Stderr, "callgrind %s %s: %.0f instructions/txn\n", wl, tool, perTx)
		}
	}
	fmt.Fprintln(out, "\n(goal: ybload's instructions/txn ≤ sysbench's)")
	for _, f := range failed {
		fmt.Fprintln(out, "\n"+f)
	}
	if profile[0] != "" {
		fmt.Fprintf(out, "\n### Where ybload's instructions per transaction go (oltp_point_select)\n\n")
		if err := writeInstrProfile(out, profile[0], profile[1], long-short); err != nil {
			fmt.Fprintf(out, "No profile: %v\n", err)
		}
	}
	fmt.Fprintln(out)
	return ctx.Err()
}
