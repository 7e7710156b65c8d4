//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The run lifecycle: a torn-down run taken up again, and one process per
// run. Small runs: one db host, one client, workload A on 1000 records.

func smallArgs(cmd string, extra ...string) []string {
	return append([]string{cmd, "--local", "--db-hosts=1", "--client-hosts=1", "--flavor=postgres", "--workloads=workloada",
		"--records=1000", "--operations=2000", "--threads=4", "--load-threads=2", "--start-delay=1s"}, extra...)
}

// A torn-down run resumed makes its hosts again and runs whole, and its
// teardown removes them: the resume's own at its end, so that a later down
// has nothing left to do, and nothing of the run remains — no namespace,
// no sshd, no database process.
func TestE2EResumeATornDownRun(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.140"
	cleanupRuns(t, runs)
	if r := ybbench(t, smallArgs("up", "--runs-dir="+runs, "--subnet="+subnet+".0/24")...); r.code != 0 {
		t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Fatalf("down: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, subnet+".")

	r := ybbench(t, "resume", "--run", dir)
	if r.code != 0 {
		t.Fatalf("resume of a torn-down run: exit %d\n%s", r.code, tail(r.stderr, 40))
	}
	if !strings.Contains(r.stdout, "## workloada") {
		t.Errorf("the resumed run printed no report:\n%s", r.stdout)
	}
	var rec struct {
		State    string      `json:"state"`
		Reopened []time.Time `json:"reopened"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "run.json"))
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.State != "torn-down" || len(rec.Reopened) != 1 {
		t.Errorf("after the resume: state %q, reopened %v; want torn-down, reopened once", rec.State, rec.Reopened)
	}
	d := ybbench(t, "down", "--run", dir)
	if d.code != 0 || !strings.Contains(d.stderr, "already torn down") {
		t.Errorf("down after the resume's teardown: exit %d, want 0 and already torn down:\n%s", d.code, d.stderr)
	}
	assertNothingRemains(t, dir, subnet+".")
	assertNoProcessOf(t, dir)
	assertNoDatabaseData(t, dir)
}

// Two resumes of one run at once: the second exits 2 naming the first's
// pid, a down meanwhile says to interrupt that process instead, and the
// first completes.
func TestE2EOneProcessPerRun(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.141"
	cleanupRuns(t, runs)
	if r := ybbench(t, smallArgs("up", "--runs-dir="+runs, "--subnet="+subnet+".0/24")...); r.code != 0 {
		t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	first, out := start(t, "resume", "--run", dir)
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	pid := strconv.Itoa(first.Process.Pid)
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, ".lock"))
		if strings.TrimSpace(string(b)) == pid {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the first resume (pid %s) never held the run:\n%s", pid, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	second := ybbench(t, "resume", "--run", dir)
	if second.code != 2 || !strings.Contains(second.stderr, "process "+pid) {
		t.Errorf("a second resume: exit %d, want 2 naming pid %s:\n%s", second.code, pid, second.stderr)
	}
	down := ybbench(t, "down", "--run", dir)
	if down.code != 2 || !strings.Contains(down.stderr, "kill -INT "+pid) {
		t.Errorf("a down meanwhile: exit %d, want 2 and kill -INT %s:\n%s", down.code, pid, down.stderr)
	}
	if status := ybbench(t, "status", "--run", dir); status.code != 0 {
		t.Errorf("status of a held run: exit %d\n%s", status.code, status.stderr)
	}

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the first resume: %v\n%s", err, tail(out.String(), 40))
		}
	case <-time.After(5 * time.Minute):
		first.Process.Kill()
		t.Fatalf("the first resume did not end:\n%s", tail(out.String(), 40))
	}
	if l := readLedger(t, dir); l.State != "torn-down" {
		t.Errorf("state %q after the first resume", l.State)
	}
	assertNothingRemains(t, dir, subnet+".")
	assertNoProcessOf(t, dir)
}

// assertNoProcessOf checks that no process names the run directory on its
// command line (the hosts' sshd and the database servers do).
func assertNoProcessOf(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range m {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), dir) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if pid == os.Getpid() || !alive(pid) {
			continue
		}
		t.Errorf("process %d of the run is still running: %s", pid, strings.ReplaceAll(string(b), "\x00", " "))
	}
}
