//go:build e2e

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/internal/testenv"
)

// limitRun is a short time-bound YCSB C run on a local postgres cluster of
// one db host and one client.
func limitRun(cmd, subnet string, extra ...string) []string {
	args := []string{cmd, "--local", "--flavor=postgres", "--db-hosts=1", "--client-hosts=1", "--workloads=workloadc",
		"--records=2000", "--operations=100000000", "--duration=6s", "--load-threads=4", "--start-delay=2s", "--subnet=" + subnet + ".0/24"}
	return append(args, extra...)
}

// Each verdict of the limit attribution, forced by real processes on a
// local cluster of its own: the agent held to a tenth of a core by a
// cgroup (its client's sshd moved into it, so the agent it starts
// inherits it) gives client; the database's processes held alike give
// database-cpu; a target far below capacity gives target. Each asserts
// the verdict and that no other rule fired. (One thread giving
// concurrency is asserted of TestE2EHistoryRegression's first run: one
// thread, workload C, a db host and a client of its own, nothing held.)
func TestE2ELimitAttribution(t *testing.T) {
	cases := []struct {
		name, subnet, want string
		threads            string
		extra              []string
		hold               func(t *testing.T, dir string)
		// holdAgent holds the measured phase's agent, once it runs.
		holdAgent bool
	}{
		{name: "client", subnet: "10.213.171", want: bottleneck.Client, threads: "8", holdAgent: true},
		{name: "database-cpu", subnet: "10.213.172", want: bottleneck.DatabaseCPU, threads: "8",
			hold: func(t *testing.T, dir string) {
				testenv.CPUQuota(t, "limit-db", 0.1, postgresOf(t, dir, "db-1")...)
				testenv.MountCgroupsIn(t, sshdOf(t, dir, "db-1"))
			}},
		{name: "target", subnet: "10.213.173", want: bottleneck.Target, threads: "4", extra: []string{"--agent-properties=target=100"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runs := runsDir(t)
			cleanupRuns(t, runs)
			args := limitRun("up", tc.subnet, append([]string{"--threads=" + tc.threads, "--runs-dir=" + runs}, tc.extra...)...)
			if r := ybbench(t, args...); r.code != 0 {
				t.Fatalf("up: %d\n%s", r.code, tail(r.stderr, 20))
			}
			dir := runDirIn(t, runs, 0)
			defer func() {
				if r := ybbench(t, "down", "--run", dir); r.code != 0 {
					t.Errorf("down: %d\n%s", r.code, tail(r.stderr, 20))
				}
				assertNothingRemains(t, dir, tc.subnet+".")
			}()
			for _, stage := range []string{"install", "bench", "collect", "report"} {
				if stage == "bench" && tc.hold != nil {
					tc.hold(t, dir)
				}
				if stage == "bench" && tc.holdAgent {
					benchHoldingTheAgent(t, dir)
					continue
				}
				if r := ybbench(t, stage, "--run", dir); r.code != 0 {
					t.Fatalf("%s: %d\n%s", stage, r.code, tail(r.stderr, 20))
				}
			}
			res := readRunResult(t, dir)
			w := res.Workloads[0]
			if w.Limit == nil || w.Limit.LimitedBy != tc.want {
				t.Fatalf("limited by %+v, want %s", w.Limit, tc.want)
			}
			for _, f := range w.Limit.Fired {
				if f != tc.want {
					t.Errorf("rule %s fired too: %q", f, w.Limit.Evidence)
				}
			}
			// The reports open with it, and a local stand-in run is
			// never called reproduced.
			md, err := os.ReadFile(filepath.Join(dir, "report.md"))
			if err != nil || !strings.Contains(string(md), w.Limit.Summary) {
				t.Errorf("report.md does not say %q (%v)", w.Limit.Summary, err)
			}
			if rep := res.Reproduction; rep == nil || rep.Rows[0].Status != collect.NotComparable || !strings.Contains(rep.Summary, "0 of 1 reproduced") {
				t.Errorf("reproduction of a local run: %+v", rep)
			}
			// The host held by a quota reads as throttled by it past the
			// rule, in the kernel's own counters; the hosts of a run
			// nothing held are not throttled at all.
			for _, h := range w.Limit.Hosts {
				held := (tc.name == "client" && h.Role == "client") || (tc.name == "database-cpu" && h.Role == "db")
				if held && h.ThrottledPercent < w.Limit.Rules.Throttled || !held && h.ThrottledPercent != 0 {
					t.Errorf("%s: its CPU quota ran out in %.1f%% of its periods (held by a quota: %v)", h.Host, h.ThrottledPercent, held)
				}
			}
			t.Logf("%s: %s; %q", tc.name, w.Limit.Summary, w.Limit.Evidence)
		})
	}
}

// benchHoldingTheAgent runs the bench stage and, once the measured
// phase's agent has written its pid file, holds that agent (alone: the
// readings of its host are not slowed) to a tenth of a core.
func benchHoldingTheAgent(t *testing.T, dir string) {
	t.Helper()
	cmd, out := start(t, "bench", "--run", dir)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var pidFile string
	for pidFile == "" {
		select {
		case err := <-done:
			t.Fatalf("bench ended before its run phase's agent started: %v\n%s", err, tail(out.String(), 20))
		case <-tick.C:
			_ = filepath.WalkDir(filepath.Join(dir, "hosts", "client-1"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Name() == "workloadc-run.pid" {
					pidFile = p
				}
				return nil
			})
		}
	}
	var pid int
	for pid == 0 {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if pid == 0 {
			<-tick.C
		}
	}
	testenv.CPUQuota(t, "limit-client", 0.1, pid)
	testenv.MountCgroupsIn(t, sshdOf(t, dir, "client-1"))
	if err := <-done; err != nil {
		t.Fatalf("bench: %v\n%s", err, tail(out.String(), 20))
	}
}

// sshdOf is the pid of a local host's sshd, whose sessions fork from it.
func sshdOf(t *testing.T, dir, host string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "hosts", host, "ssh", "sshd.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// postgresOf is a local db host's postmaster and its children: backends
// it forks later inherit the group it is in.
func postgresOf(t *testing.T, dir, host string) []int {
	t.Helper()
	var pidFile string
	_ = filepath.WalkDir(filepath.Join(dir, "hosts", host), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "postmaster.pid" {
			pidFile = p
		}
		return nil
	})
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("no postmaster.pid under %s: %v", host, err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{pm}
	kids, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pm), "task", strconv.Itoa(pm), "children"))
	for _, k := range strings.Fields(string(kids)) {
		if n, err := strconv.Atoi(k); err == nil && !slices.Contains(pids, n) {
			pids = append(pids, n)
		}
	}
	return pids
}
