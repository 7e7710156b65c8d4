//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
)

// The kv-ycql profile's write-heavy and batch-write workloads, quick, on a
// 3-node Cassandra cluster the pipeline installs over SSH: every phase
// runs, the report shows throughput, latency and node CPU, and the CPU it
// reports agrees (±10 %) with the CPU time the test reads itself from each
// database process. (The read-heavy workload's setup, 100,000 keys written
// before it reads, runs in TestE2EScaleOutKV, on two clients.)
func TestE2ECassandraKV(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	if r := ybbench(t, "up", "--local", "--profile=kv-ycql", "--workloads=write-heavy,batch-write", "--db-hosts=3", "--client-hosts=1", "--duration=5s", "--threads=8",
		"--runs-dir="+runs, "--subnet=10.213.113.0/24"); r.code != 0 {
		t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	for _, st := range []string{"install", "bench", "collect", "report"} {
		if r := ybbench(t, st, "--run", dir); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", st, r.code, r.stderr)
		}
	}
	// The test's own reading of each Cassandra process's CPU time.
	var dep provision.Deployment
	b, _ := os.ReadFile(filepath.Join(dir, "deployment.json"))
	if err := json.Unmarshal(b, &dep); err != nil || dep.Flavor != "cassandra" || len(dep.Processes) != 3 {
		t.Fatalf("deployment %+v %v", dep, err)
	}
	// Authentication on by default: the agents ran as the bench role,
	// whose password only the run's 0600 secrets file holds.
	if st, err := os.Stat(dep.PasswordFile); dep.User != "ybbench" || dep.Settings["auth"] != "on" || err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("deployment credentials: user %q, auth %q, password file %s (%v)", dep.User, dep.Settings["auth"], dep.PasswordFile, err)
	}
	own := map[string]float64{}
	for _, p := range dep.Processes {
		own[p.Host] = processCPUSeconds(t, p.PIDFile)
	}
	var res collect.Result
	b, _ = os.ReadFile(filepath.Join(dir, "result.json"))
	checkSchema(t, b)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Workloads) != 2 {
		t.Fatalf("%d workloads", len(res.Workloads))
	}
	for _, w := range res.Workloads {
		if len(w.Phases) != 1 || w.Phases[0].Ops <= 0 {
			t.Errorf("%s: phases %+v", w.Name, w.Phases)
		}
		if len(w.CPU) != 3 {
			t.Errorf("%s: CPU of %d hosts", w.Name, len(w.CPU))
		}
	}
	last := res.Workloads[1].CPU // batch-write, the last phase: its end reading is the latest
	for host, secs := range own {
		got := last[host].SecondsAtEnd
		if got <= 0 || secs < got || (secs-got)/secs > 0.10 {
			t.Errorf("%s: the report's CPU time at the end of the last phase is %.2f s; the process has used %.2f s (want within 10 %%, and not more)", host, got, secs)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"## write-heavy", "## batch-write", "CPU (User + Sys)", "Node CPU (user+sys)", "database processes' own CPU time", "1M keys"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Fatalf("down: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, "10.213.113.")
}

// The ycsb-ycql profile's workload E (inserts and scans), quick, on a
// one-node Cassandra cluster (the three-node install is
// TestE2ECassandraKV's): the whole run, torn down.
func TestE2ECassandraYCSB(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	r := ybbench(t, "run", "--local", "--profile=ycsb-ycql", "--db-hosts=1", "--workloads=workloade", "--records=2000", "--operations=4000",
		"--threads=8", "--load-threads=4", "--duration=30s", "--runs-dir="+runs, "--subnet=10.213.114.0/24")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	var res collect.Result
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	checkSchema(t, b)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if m := findMeasurement(t, &res, "workloade", "run", "SCAN"); m.Count == 0 {
		t.Error("no scans")
	}
	if m := findMeasurement(t, &res, "workloade", "load", "INSERT"); m.Count != 2000 {
		t.Errorf("loaded %d records, want 2000", m.Count)
	}
	if !strings.Contains(r.stdout, "mean SCAN") || readLedger(t, dir).State != "torn-down" {
		t.Errorf("report or teardown missing:\n%s", r.stdout)
	}
	assertNothingRemains(t, dir, "10.213.114.")
}

// processCPUSeconds is a process's utime+stime+cutime+cstime, in seconds.
func processCPUSeconds(t *testing.T, pidFile string) float64 {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", pidFile, err)
	}
	ticks, _ := testenv.ProcStat(t, pid)
	return float64(ticks) / 100 // CLK_TCK is 100 on Linux
}
