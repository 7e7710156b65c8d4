//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/ybbench/ybbench/internal/testenv"
)

// The end-to-end tests drive the real binaries, as a user would, on hosts
// in network namespaces reached over real SSH. They need root.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds ybbench and ybload side by side (ybbench ships the ybload
// beside it).
func binaries(t *testing.T) string {
	t.Helper()
	testenv.Need(t, os.Geteuid() == 0, "the end-to-end tests need root (network namespaces)")
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ybbench-e2e-bin-")
		if buildErr != nil {
			return
		}
		root := testenv.RepoRoot()
		for _, c := range []string{"ybbench", "ybload"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, c), "./cmd/"+c)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("build %s: %v\n%s", c, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// runsDir is a runs directory the database's service user can pass through
// (t.TempDir is 0700), with a short path: a PostgreSQL socket inside a
// local host's directory must stay within 107 bytes.
func runsDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "ybb-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	// The mark lets scripts/testenv/sweep.sh tear down what a killed test
	// process left here (its cleanups never ran), once that process is gone.
	if err := os.WriteFile(filepath.Join(d, ".ybbench-test-runs"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// ybbench runs the orchestrator and returns its exit code and output.
type result struct {
	code           int
	stdout, stderr string
}

func ybbenchEnv(t *testing.T) []string {
	e, err := testenv.Load()
	if err != nil || e.Terraform == "" {
		if testenv.Required() {
			t.Fatalf("no Terraform in the test environment: %v", err)
		}
		t.Skip("no Terraform in the test environment (make testenv)")
	}
	return append(os.Environ(), "YBBENCH_TERRAFORM="+e.Terraform, "CHECKPOINT_DISABLE=1")
}

func ybbench(t *testing.T, args ...string) result {
	t.Helper()
	return ybbenchWith(t, ybbenchEnv(t), args...)
}

// ybbenchWith runs the orchestrator with an environment of the test's.
func ybbenchWith(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "ybbench"), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("ybbench %s → exit %d\n%s", strings.Join(args, " "), code, tail(errb.String(), 40))
	return result{code, out.String(), errb.String()}
}

// start runs the orchestrator in the background.
func start(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "ybbench"), args...)
	cmd.Env = ybbenchEnv(t)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &errb
}

func tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// runDirIn returns the only run directory under runs (waiting for it).
func runDirIn(t *testing.T, runs string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(max(within, time.Second))
	for time.Now().Before(deadline) {
		m, _ := filepath.Glob(filepath.Join(runs, "*", "run.json"))
		if len(m) == 1 {
			return filepath.Dir(m[0])
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no run directory in %s", runs)
	return ""
}

// ledger is the part of run.json the tests read.
type ledger struct {
	State string `json:"state"`
	Steps []struct {
		Name, Status, Error string
		Details             map[string]string
	} `json:"steps"`
}

func readLedger(t *testing.T, dir string) ledger {
	t.Helper()
	var l ledger
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err == nil {
		json.Unmarshal(b, &l)
	}
	return l
}

// waitStep waits until a ledger step has started.
func waitStep(t *testing.T, dir, step string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		l := readLedger(t, dir)
		for _, s := range l.Steps {
			if s.Name == step {
				return
			}
		}
		if l.State == "torn-down" || l.State == "teardown-incomplete" {
			break // the run ended: the step will not start
		}
		time.Sleep(200 * time.Millisecond)
	}
	l := readLedger(t, dir)
	var b strings.Builder
	for _, s := range l.Steps {
		fmt.Fprintf(&b, "\n  %s %s %s", s.Status, s.Name, s.Error)
	}
	t.Fatalf("step %s never started in %s (state %s):%s", step, dir, l.State, b.String())
}

func readCluster(t *testing.T, dir string) *infra.Cluster {
	t.Helper()
	var c infra.Cluster
	b, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// assertNothingRemains checks what a teardown must leave of a run: its
// cluster.json must be there to say what was made (a run whose file is
// missing or unreadable checks nothing, so it fails); then no namespace,
// bridge or process of the run, no database data, and no socket listening
// on an address of the run's subnet in any network namespace (a host's
// namespace outlives its name while a process holds it, where the root
// namespace's ss cannot see).
func assertNothingRemains(t *testing.T, dir, subnetPrefix string) {
	t.Helper()
	var c infra.Cluster
	b, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || len(c.Hosts) == 0 {
		t.Errorf("%s: no cluster.json to check the teardown against (%v, %d hosts)", dir, err, len(c.Hosts))
	}
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, h := range c.Hosts {
		if h.ProviderID != "" && strings.Contains(string(out), h.ProviderID) {
			t.Errorf("namespace %s remains", h.ProviderID)
		}
	}
	if br := c.Meta["bridge"]; br != "" {
		if exec.Command("ip", "link", "show", br).Run() == nil {
			t.Errorf("bridge %s remains", br)
		}
	}
	// Processes the run started write pid files under the run directory.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".pid") {
			return nil
		}
		b, _ := os.ReadFile(p)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			if alive(pid) {
				t.Errorf("process %d (%s) is still alive", pid, p)
			}
		}
		return nil
	})
	assertNoDatabaseData(t, dir)
	addrs := map[string]bool{}
	for _, h := range c.Hosts {
		addrs[h.PrivateIP], addrs[h.PublicIP] = true, true
	}
	for _, l := range listenersEverywhere(t) {
		if strings.HasPrefix(l.addr, subnetPrefix) || addrs[l.addr] {
			t.Errorf("still listening on %s:%d (pid %d, in its own network namespace)", l.addr, l.port, l.pid)
		}
	}
}

// listener is a listening TCP socket of some process.
type listener struct {
	addr string
	port int
	pid  int
}

// listenersEverywhere lists the IPv4 listening sockets of every network
// namespace a process is in: /proc/<pid>/net/tcp shows the sockets of that
// process's namespace, whichever it is.
func listenersEverywhere(t *testing.T) []listener {
	t.Helper()
	pids, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(pids) == 0 {
		t.Fatalf("no processes under /proc: %v", err)
	}
	seen := map[string]bool{}
	var out []listener
	for _, p := range pids {
		ns, err := os.Readlink(filepath.Join(p, "ns", "net"))
		if err != nil || seen[ns] {
			continue
		}
		seen[ns] = true
		b, err := os.ReadFile(filepath.Join(p, "net", "tcp"))
		if err != nil {
			continue // the process ended
		}
		pid, _ := strconv.Atoi(filepath.Base(p))
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			hexAddr, hexPort, _ := strings.Cut(f[1], ":")
			a, err1 := strconv.ParseUint(hexAddr, 16, 32)
			port, err2 := strconv.ParseUint(hexPort, 16, 16)
			if err1 != nil || err2 != nil {
				continue
			}
			// /proc writes the address in the host's byte order (little-endian here).
			ip := fmt.Sprintf("%d.%d.%d.%d", a&0xff, a>>8&0xff, a>>16&0xff, a>>24)
			out = append(out, listener{addr: ip, port: int(port), pid: pid})
		}
	}
	if len(seen) == 0 {
		t.Fatal("no network namespace read from /proc")
	}
	return out
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// cleanupRuns tears down, when the test ends however it ends, every run
// under runs: a failed test must not leave hosts behind (registered after
// the runs directory, so it runs before the directory is removed).
func cleanupRuns(t *testing.T, runs string) {
	t.Cleanup(func() {
		m, _ := filepath.Glob(filepath.Join(runs, "*", "run.json"))
		for _, f := range m {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, filepath.Join(binDir, "ybbench"), "down", "--run", filepath.Dir(f))
			cmd.Env = ybbenchEnv(t)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("cleanup down %s: %v\n%s", f, err, out)
			}
			cancel()
		}
	})
}

// assertNoDatabaseData checks that a torn-down run keeps no database data
// under its hosts' directories, and that nothing of it is left in /tmp.
func assertNoDatabaseData(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(filepath.Join(dir, "hosts"), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		switch {
		case fi.Name() == "PG_VERSION",
			fi.IsDir() && fi.Name() == "yb-data",
			fi.IsDir() && fi.Name() == "data" && strings.Contains(p, "/cassandra/"),
			fi.Name() == ".ybbench-owner":
			t.Errorf("database data remains after down: %s", p)
		}
		return nil
	})
	// Socket directories of the flavors' earlier versions, made since the run
	// began, and anything named after the run.
	id := filepath.Base(dir)
	began := time.Now().Add(-time.Hour)
	if fi, err := os.Stat(filepath.Join(dir, "run.json")); err == nil {
		began = fi.ModTime()
	}
	if b, err := os.ReadFile(filepath.Join(dir, "run.json")); err == nil {
		var rec struct{ Created time.Time }
		if json.Unmarshal(b, &rec) == nil && !rec.Created.IsZero() {
			began = rec.Created
		}
	}
	m, _ := filepath.Glob("/tmp/ybbpg-*")
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(began) {
			t.Errorf("%s remains in /tmp after down", p)
		}
	}
	m, _ = filepath.Glob("/tmp/*" + id + "*")
	for _, p := range m {
		t.Errorf("%s remains in /tmp after down", p)
	}
}

// checkSchema checks a result.json a run wrote against result.schema.json
// (collect.ResultSchema): every result a test produces is validated.
func checkSchema(t *testing.T, b []byte) {
	t.Helper()
	if err := collect.Validate(b); err != nil {
		t.Errorf("result.json does not match its schema: %v", err)
		return
	}
	coverResult(b)
}

// readRunResult reads a run's result.json, checked against its schema.
func readRunResult(t *testing.T, dir string) *collect.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, b)
	var res collect.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}
