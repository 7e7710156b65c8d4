//go:build e2e

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
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
	time.Sleep(3 * time.Second) // the agents are running
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
// fetched and collected, and the run is torn down.
func TestFaultInterruptDuringBench(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	cmd, out := start(t, quickArgs("run", "--local", "--workloads=workloada", "--runs-dir="+runs, "--subnet=10.213.122.0/24", "--duration=120s", "--operations=100000000")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloada/run", 5*time.Minute)
	time.Sleep(4 * time.Second) // a few intervals measured
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != 130 {
			t.Errorf("an interrupted run exited %d (%v), want 130", code, err)
		}
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the run did not end after SIGINT:\n%s", tail(out.String(), 30))
	}
	var res collect.Result
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatalf("no result.json after an interrupted bench: %v\n%s", err, tail(out.String(), 30))
	}
	checkSchema(t, b)
	json.Unmarshal(b, &res)
	m := findMeasurement(t, &res, "workloada", "run", "READ")
	if m.Count == 0 {
		t.Errorf("what was measured before the interrupt was lost")
	}
	if l := readLedger(t, dir); l.State != "torn-down" {
		t.Errorf("ledger state %q", l.State)
	}
	assertNothingRemains(t, dir, "10.213.122.")
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
	if r.code == 0 || !strings.Contains(r.stderr, client.Name) || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("exit %d; want a failure naming %s and the refused connection:\n%s", r.code, client.Name, tail(r.stderr, 20))
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
	if r.code == 0 || !strings.Contains(strings.ToLower(r.stderr), "host key") {
		t.Errorf("exit %d; want the changed host key refused:\n%s", r.code, tail(r.stderr, 20))
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
	os.WriteFile(cfg, append(b, []byte(fmt.Sprintf("\nSetEnv PATH=%s:/usr/sbin:/usr/bin:/sbin:/bin\n", shim))...), 0o644)
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
}

// startSSHD starts a local host's sshd again in its namespace.
func startSSHD(t *testing.T, h infra.Host, sshDir string) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", h.ProviderID, "/usr/sbin/sshd", "-f", filepath.Join(sshDir, "sshd_config")).CombinedOutput()
	if err != nil {
		t.Fatalf("start sshd on %s: %v %s", h.Name, err, out)
	}
	time.Sleep(500 * time.Millisecond)
}

// The orchestrator SIGKILLed in the middle of a run: `ybbench resume`
// skips the steps done, redoes the interrupted workload from a fresh
// table, finishes and tears down.
func TestFaultKilledOrchestratorThenResume(t *testing.T) {
	runs := runsDir(t)
	cleanupRuns(t, runs)
	cmd, _ := start(t, quickArgs("run", "--local", "--db-hosts=1", "--client-hosts=1", "--workloads=workloada,workloadc", "--runs-dir="+runs, "--subnet=10.213.126.0/24")...)
	dir := runDirIn(t, runs, time.Minute)
	waitStep(t, dir, "bench/workloadc/load", 5*time.Minute)
	time.Sleep(2 * time.Second) // the agent is loading: the table is half full
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
