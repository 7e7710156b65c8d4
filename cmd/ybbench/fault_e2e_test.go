//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/record"
)

// Fault tests: each makes hosts of its own (its own subnet), never touching
// the shared test environment.

// The orchestrator SIGKILLed in the middle of a run: `ybbench down --run`
// cleans up from the ledger alone.
func TestFaultKilledOrchestratorThenDown(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	cmd, out := start(t, quickArgs("run", "--local", "--client-hosts=1", "--workloads=workloada", "--runs-dir="+runs, "--subnet=10.213.120.0/24", "--duration=120s", "--operations=100000000")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloada/run", 5*time.Minute)
	waitRunning(t, dir, "workloada-run", "READ", cmd.Process.Pid, out)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	t.Logf("orchestrator output:\n%s", tail(out.String(), 20))
	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Fatalf("down after a SIGKILL: exit %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, "10.213.120.")
}

// SIGINT during install: the run stops and tears down, and exits 130 (not
// the install stage's 4).
func TestFaultInterruptDuringInstall(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	cmd, out := start(t, quickArgs("run", "--local", "--workloads=workloada", "--runs-dir="+runs, "--subnet=10.213.121.0/24")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "install", 5*time.Minute)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if code := exitCode(err); code != 130 {
		t.Errorf("an interrupted run exited %d (%v), want 130\n%s", code, err, out)
	}
	l := readLedger(t, dir)
	if l.State != "torn-down" {
		t.Errorf("ledger state %q, want torn-down\n%s", l.State, tail(out.String(), 30))
	}
	assertNothingRemains(t, dir, "10.213.121.")
}

// SIGINT during bench: the agents stop and write what they measured, it is
// fetched and collected, and the run is torn down (exit 130).
func TestFaultInterruptDuringBench(t *testing.T) {
	stoppedDuringBench(t, syscall.SIGINT, exitcode.Interrupted, "10.213.122.")
}

// SIGTERM during bench, as a CI runner's cancel sends it: the same stop,
// collect and teardown, with nothing of the run left, and exit 143.
func TestFaultTerminatedDuringBench(t *testing.T) {
	stoppedDuringBench(t, syscall.SIGTERM, exitcode.Terminated, "10.213.132.")
}

// stoppedDuringBench runs a bench on hosts of subnet (a prefix such as
// 10.213.122.), sends sig once the agents measure, and checks the exit
// code, that what was measured is in result.json and that nothing remains.
func stoppedDuringBench(t *testing.T, sig syscall.Signal, want int, subnet string) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	cmd, out := start(t, quickArgs("run", "--local", "--db-hosts=1", "--workloads=workloada", "--runs-dir="+runs, "--subnet="+subnet+"0/24", "--duration=120s", "--operations=100000000")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloada/run", 5*time.Minute)
	before := waitRunning(t, dir, "workloada-run", "READ", cmd.Process.Pid, out)
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != want {
			t.Errorf("a run stopped by %v exited %d (%v), want %d", sig, code, err, want)
		}
	case <-time.After(5 * time.Minute): // a bound on a hang, not a measurement
		cmd.Process.Kill()
		t.Fatalf("the run did not end after %v:\n%s", sig, tail(out.String(), 30))
	}
	var res collect.Result
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatalf("no result.json after a bench stopped by %v: %v\n%s", sig, err, tail(out.String(), 30))
	}
	checkSchema(t, b)
	json.Unmarshal(b, &res)
	m := findMeasurement(t, &res, "workloada", "run", "READ")
	if m.Count < before {
		t.Errorf("the result counts %d READs, the agent's records held %d before the signal: what was measured was lost", m.Count, before)
	}
	if l := readLedger(t, dir); l.State != "torn-down" {
		t.Errorf("ledger state %q", l.State)
	}
	assertNothingRemains(t, dir, subnet)
}

// An agent killed in the middle of its run (SIGKILL: it writes nothing
// more): the bench stage fails with exit 5, what it measured up to the
// kill is collected with the workload's run phase marked incomplete, and
// the run is torn down with nothing left.
func TestFaultAgentKilledMidRun(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	subnet := "10.213.133."
	cmd, out := start(t, quickArgs("run", "--local", "--db-hosts=1", "--workloads=workloada", "--runs-dir="+runs, "--subnet="+subnet+"0/24", "--duration=120s", "--operations=100000000")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloada/run", 5*time.Minute)
	before := waitRunning(t, dir, "workloada-run", "READ", cmd.Process.Pid, out)
	client := readCluster(t, dir).ByRole(infra.RoleClient)[0]
	b, err := os.ReadFile(filepath.Join(agentrun.Dir(client), "workloada-run.pid"))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil || !alive(pid) {
		t.Fatalf("the agent's pid file: %v %v (%q)", err, perr, b)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != exitcode.Workload {
			t.Errorf("a run whose agent was killed exited %d (%v), want %d\n%s", code, err, exitcode.Workload, tail(out.String(), 30))
		}
	case <-time.After(5 * time.Minute): // a bound on a hang, not a measurement
		cmd.Process.Kill()
		t.Fatalf("the run did not end after its agent was killed:\n%s", tail(out.String(), 30))
	}
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatalf("no result.json after the agent was killed: %v\n%s", err, tail(out.String(), 30))
	}
	checkSchema(t, raw)
	var res collect.Result
	json.Unmarshal(raw, &res)
	for _, w := range res.Workloads {
		for _, ph := range w.Phases {
			if ph.Phase == "run" && ph.Complete {
				t.Errorf("%s run: marked complete though its agent was killed", w.Name)
			}
		}
	}
	if m := findMeasurement(t, &res, "workloada", "run", "READ"); m.Count < before {
		t.Errorf("the result counts %d READs, the agent's records held %d before the kill", m.Count, before)
	}
	if l := readLedger(t, dir); l.State != "torn-down" {
		t.Errorf("ledger state %q", l.State)
	}
	assertNothingRemains(t, dir, subnet)
}

// A host that refuses SSH fails the run's first contact with a message
// naming it, and the others are still torn down.
func TestFaultHostRefusesSSH(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	if r := ybbench(t, "up", "--local", "--db-hosts=2", "--client-hosts=1", "--runs-dir="+runs, "--subnet=10.213.123.0/24"); r.code != 0 {
		t.Fatalf("up: %d\n%s", r.code, r.stderr)
	}
	hosts := runDirIn(t, runs, 0)
	c := readCluster(t, hosts)
	client := c.ByRole(infra.RoleClient)[0]
	stopSSHD(t, hosts, client.Name)
	inv := writeInventory(t, c, nil)
	invRuns := runsDir(t)
	cleanupRuns(t, invRuns)
	r := ybbench(t, "run", "--inventory="+inv, "--workloads=workloada", "--runs-dir="+invRuns, "--records=100")
	if r.code != 4 || !strings.Contains(r.stderr, client.Name) || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("exit %d; want 4 (provisioning) naming %s and the refused connection:\n%s", r.code, client.Name, tail(r.stderr, 20))
	}
	if l := readLedger(t, runDirIn(t, invRuns, 0)); l.State != "torn-down" {
		t.Errorf("the others were not torn down: %q", l.State)
	}
}

// A host whose key changes in the middle of a run is refused.
func TestFaultHostKeyChangeIsRefused(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	if r := ybbench(t, quickArgs("up", "--local", "--db-hosts=1", "--client-hosts=1", "--workloads=workloada", "--runs-dir="+runs, "--subnet=10.213.124.0/24")...); r.code != 0 {
		t.Fatalf("up: %d\n%s", r.code, r.stderr)
	}
	dir := runDirIn(t, runs, 0)
	if r := ybbench(t, "install", "--run", dir); r.code != 0 {
		t.Fatalf("install: %d\n%s", r.code, r.stderr)
	}
	c := readCluster(t, dir)
	client := c.ByRole(infra.RoleClient)[0]
	// A new host key, and the host's sshd restarted with it.
	keyDir := filepath.Join(client.Base, "ssh")
	stopSSHD(t, dir, client.Name)
	os.Remove(filepath.Join(keyDir, "ssh_host_ed25519_key"))
	os.Remove(filepath.Join(keyDir, "ssh_host_ed25519_key.pub"))
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(keyDir, "ssh_host_ed25519_key")).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	startSSHD(t, client, keyDir)
	r := ybbench(t, "bench", "--run", dir)
	if r.code != 4 || !strings.Contains(strings.ToLower(r.stderr), "host key") {
		t.Errorf("exit %d; want 4 (provisioning) and the changed host key refused:\n%s", r.code, tail(r.stderr, 20))
	}
	if r := ybbench(t, "down", "--run", dir); r.code != 0 {
		t.Errorf("down: %d\n%s", r.code, r.stderr)
	}
	assertNothingRemains(t, dir, "10.213.124.")
}

// An inventory host whose clock is 2 s ahead (a date shim first on the
// PATH its sshd gives sessions) fails the preflight.
func TestFaultClockSkewFailsPreflight(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	if r := ybbench(t, "up", "--local", "--db-hosts=1", "--client-hosts=1", "--runs-dir="+runs, "--subnet=10.213.125.0/24"); r.code != 0 {
		t.Fatalf("up: %d\n%s", r.code, r.stderr)
	}
	hosts := runDirIn(t, runs, 0)
	c := readCluster(t, hosts)
	db := c.ByRole(infra.RoleDB)[0]
	shim := filepath.Join(db.Base, "shim")
	os.MkdirAll(shim, 0o755)
	os.WriteFile(filepath.Join(shim, "date"), []byte("#!/bin/sh\nexec /bin/date -d \"@$(( $(/bin/date +%s) + 2 ))\" \"$@\"\n"), 0o755)
	cfg := filepath.Join(db.Base, "ssh", "sshd_config")
	b, _ := os.ReadFile(cfg)
	// sshd takes the first SetEnv line only (hosts.sh writes one): the
	// shim's PATH joins it.
	path := fmt.Sprintf("PATH=%s:/usr/sbin:/usr/bin:/sbin:/bin", shim)
	conf := string(b)
	if strings.Contains(conf, "\nSetEnv ") {
		conf = strings.Replace(conf, "\nSetEnv ", "\nSetEnv "+path+" ", 1)
	} else {
		conf += "\nSetEnv " + path + "\n"
	}
	os.WriteFile(cfg, []byte(conf), 0o644)
	stopSSHD(t, hosts, db.Name)
	startSSHD(t, db, filepath.Join(db.Base, "ssh"))
	inv := writeInventory(t, c, nil)
	invRuns := runsDir(t)
	cleanupRuns(t, invRuns)
	r := ybbench(t, "run", "--inventory="+inv, "--workloads=workloada", "--runs-dir="+invRuns, "--records=100")
	if r.code != 4 || !strings.Contains(r.stderr, "clock skew") || !strings.Contains(r.stderr, db.Name) {
		t.Errorf("exit %d; want 4 and a clock-skew failure naming %s:\n%s", r.code, db.Name, tail(r.stderr, 20))
	}
}

// stopSSHD stops a local host's sshd by its pid file.
func stopSSHD(t *testing.T, runDir, host string) {
	t.Helper()
	pidFile := filepath.Join(runDir, "hosts", host, "ssh", "sshd.pid")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatalf("sshd %d of %s did not stop on SIGTERM", pid, host)
	}
}

// waitPort waits until a local host's sshd accepts connections again.
func waitPort(t *testing.T, h infra.Host) {
	t.Helper()
	port := h.SSH.Port
	if port == 0 {
		port = 22
	}
	addr := net.JoinHostPort(h.PublicIP, strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd of %s does not listen on %s: %v", h.Name, addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitRunning polls the tick records the client hosts' agents are writing
// for a phase (file: its stem, such as workloada-run) until they hold at
// least one successful op, and returns how many. It fails the test when the
// orchestrator (pid) or an agent ends first: whatever the test does next
// lands while the agents are working.
func waitRunning(t *testing.T, dir, file, op string, pid int, out fmt.Stringer) int64 {
	t.Helper()
	c := readCluster(t, dir)
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			t.Fatalf("the orchestrator ended before %s measured any %s:\n%s", file, op, tail(out.String(), 30))
		}
		var n int64
		for _, h := range c.ByRole(infra.RoleClient) {
			f := readRecords(filepath.Join(agentrun.Dir(h), file+".jsonl"))
			if f == nil {
				continue
			}
			if f.End != nil {
				t.Fatalf("the agent on %s finished %s before the test could act (%d %s measured)", h.Name, file, count(f, op), op)
			}
			n += count(f, op)
		}
		if n > 0 {
			t.Logf("%s: %d %s measured, the agents still running", file, n, op)
			return n
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no %s measured in %s within 3 minutes:\n%s", op, file, tail(out.String(), 30))
	return 0
}

// readRecords reads an agent's record file, nil while it has none or no
// meta record yet.
func readRecords(path string) *record.File {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	rf, err := record.Read(path, f)
	if err != nil {
		return nil
	}
	return rf
}

// count adds up the successful measurements of op in the measured ticks.
func count(f *record.File, op string) (n int64) {
	for _, tk := range f.Ticks {
		if tk.Op == op && !tk.Warmup {
			n += tk.Count
		}
	}
	return n
}

// startSSHD starts a local host's sshd again in its namespace.
func startSSHD(t *testing.T, h infra.Host, sshDir string) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", h.ProviderID, "/usr/sbin/sshd", "-f", filepath.Join(sshDir, "sshd_config")).CombinedOutput()
	if err != nil {
		t.Fatalf("start sshd on %s: %v %s", h.Name, err, out)
	}
	waitPort(t, h)
}

// The orchestrator SIGKILLed in the middle of a run: `ybbench resume`
// skips the steps done, redoes the interrupted workload from a fresh
// table, finishes and tears down.
func TestFaultKilledOrchestratorThenResume(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	// target=1000 ops/s: the 3000 records take about 3 s to load, so the
	// test sees the table partly loaded before it kills the orchestrator.
	cmd, out := start(t, quickArgs("run", "--local", "--db-hosts=1", "--client-hosts=1", "--workloads=workloada,workloadc", "--runs-dir="+runs, "--subnet=10.213.126.0/24", "--agent-properties=target=1000")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloadc/load", 5*time.Minute)
	// The agent's records say the table is partly loaded: 0 < rows < 3000.
	if n := waitRunning(t, dir, "workloadc-load", "INSERT", cmd.Process.Pid, out); n >= 3000 {
		t.Fatalf("%d of 3000 records loaded: the load is not partial", n)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	r := ybbench(t, "resume", "--run", dir)
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, tail(r.stderr, 30))
	}
	l := readLedger(t, dir)
	done := map[string]int{}
	for _, s := range l.Steps {
		if s.Status == "done" {
			done[s.Name]++
		}
	}
	for _, st := range []string{"up", "install", "bench/workloada/run", "bench/workloadc/load", "bench/workloadc/run", "collect", "down"} {
		if done[st] != 1 {
			t.Errorf("step %s done %d times after resume", st, done[st])
		}
	}
	var res collect.Result
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	checkSchema(t, b)
	json.Unmarshal(b, &res)
	if m := findMeasurement(t, &res, "workloadc", "load", "INSERT"); m.Count != 3000 || m.Errors != 0 {
		t.Errorf("the redone load inserted %d records with %d errors, want 3000 and 0", m.Count, m.Errors)
	}
	if l.State != "torn-down" || !strings.Contains(r.stdout, "## workloadc") {
		t.Errorf("state %q; report printed: %v", l.State, strings.Contains(r.stdout, "## workloadc"))
	}
	if strings.Contains(r.stderr, "== up:") || strings.Contains(r.stderr, "== bench/workloada/run") {
		t.Errorf("resume redid steps that were done:\n%s", tail(r.stderr, 30))
	}
	assertNothingRemains(t, dir, "10.213.126.")
}

// exitCode is a finished process's exit status (-1 when it did not exit).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// A second SIGINT, or SIGTERM, during bench skips straight to teardown:
// the run still tears down completely and exits 130 (143), saying it
// skipped.
func TestFaultSecondSignalSkipsToTeardown(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		code   int
		subnet string
	}{
		{syscall.SIGINT, 130, "10.213.128."},
		{syscall.SIGTERM, 143, "10.213.127."},
	} {
		t.Run(c.sig.String(), func(t *testing.T) { secondSignal(t, c.sig, c.code, c.subnet) })
	}
}

// secondSignal runs a bench on hosts of subnet (a prefix such as
// 10.213.127.), sends sig once the agents measure and again once the first
// is taken, and checks the teardown and the exit code.
func secondSignal(t *testing.T, sig syscall.Signal, want int, subnet string) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	cmd := exec.Command(filepath.Join(binaries(t), "ybbench"), quickArgs("run", "--local", "--db-hosts=1", "--client-hosts=1",
		"--workloads=workloada", "--runs-dir="+runs, "--subnet="+subnet+"0/24", "--duration=120s", "--operations=100000000")...)
	cmd.Env = ybbenchEnv(t)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloada/run", 5*time.Minute)
	waitRunning(t, dir, "workloada-run", "READ", cmd.Process.Pid, out)
	cmd.Process.Signal(sig)
	// The first is taken (its message printed) before the second is sent.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "ybbench: stopping") {
		if time.Now().After(deadline) {
			t.Fatalf("no word of the first %v:\n%s", sig, tail(out.String(), 30))
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	select {
	case err := <-done:
		if code := exitCode(err); code != want {
			t.Errorf("exit %d after two %vs, want %d\n%s", code, sig, want, tail(out.String(), 30))
		}
	case <-time.After(5 * time.Minute): // a bound on a hang, not a measurement
		cmd.Process.Kill()
		t.Fatalf("the run did not end after a second %v:\n%s", sig, tail(out.String(), 30))
	}
	if !strings.Contains(out.String(), "ybbench: skipping to teardown") {
		t.Errorf("the second %v was not taken:\n%s", sig, tail(out.String(), 30))
	}
	if l := readLedger(t, dir); l.State != "torn-down" {
		t.Errorf("ledger state %q, want torn-down", l.State)
	}
	assertNothingRemains(t, dir, subnet)
}

// lockedBuffer is an output buffer a test reads while the process writes.
type lockedBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.String()
}
