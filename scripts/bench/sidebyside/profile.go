package main

// The profile section (-only profile): where ybload's client CPU goes, in
// one ybload sysbench oltp_point_select run at the first of
// -sysbench-threads with --ybload-cpuprofile; the top 10 entries of go tool
// pprof -top go into the output, the profile itself beside it.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

func profileSection(ctx context.Context, out *strings.Builder, env pgEnv, fresh func(string) error) error {
	os.Setenv("PGPASSWORD", env.Postgres.Password)
	threads, err := intList("sysbench-threads", *sbThreads)
	if err != nil {
		return err
	}
	const db = "ybb_sysbench_prof"
	if err := sbPrepare(env, fresh, db); err != nil {
		return err
	}
	prof, err := filepath.Abs(filepath.Join(*workdir, "ybload-sysbench.pprof"))
	if err != nil {
		return err
	}
	args := sbCmd(env, "ybload", "oltp_point_select", db, "--threads="+strconv.Itoa(threads[0]), "--time="+strconv.Itoa(*sbTime),
		"--ybload-cpuprofile="+prof, "run")
	x, err := measure(args, 0)
	if err != nil {
		return err
	}
	f, err := parseSysbench(x.stdout)
	if err != nil {
		return err
	}
	top, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-nodecount=10", *ybload, prof).Output()
	if err != nil {
		return fmt.Errorf("go tool pprof -top %s: %w", prof, err)
	}
	fmt.Fprintf(out, "## CPU profile of ybload sysbench\n\noltp_point_select, %d threads, %d s: %.0f tps, %.2f µs CPU/txn; profile %s.\n\n```\n%s```\n\n",
		threads[0], *sbTime, f.tps, x.cpu.Seconds()*1e6/float64(max(f.events, 1)), prof, top)
	return nil
}
