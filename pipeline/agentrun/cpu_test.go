package agentrun_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/provision/localexec"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// The node sampler, run on this machine, reads its counters: as many
// cores as Go sees, and a busy share that only grows.
func TestSampleCPUOnThisMachine(t *testing.T) {
	h := infra.Host{Name: "db-1"}
	r := localexec.New()
	a := agentrun.SampleCPU(context.Background(), r, []infra.Host{h}, agentrun.OwnDatabase)
	b := agentrun.SampleCPU(context.Background(), r, []infra.Host{h}, agentrun.OwnDatabase)
	s, ok := a["db-1"]
	if !ok || b["db-1"].Mode != hostcpu.ModeNode {
		t.Fatalf("no node reading: %+v %+v", a, b)
	}
	if s.Cores != int64(runtime.NumCPU()) {
		t.Errorf("%d cores, Go sees %d", s.Cores, runtime.NumCPU())
	}
	if b["db-1"].Busy < s.Busy || b["db-1"].Total < s.Total || s.Busy > s.Total {
		t.Errorf("counters went back: %+v then %+v", s, b["db-1"])
	}
	if _, err := agentrun.ParseCPU([]byte(`{"mode":"node","busy_ticks":1,"hz":100,"cores":2,"at":1,"extra":1}`)); err == nil {
		t.Error("a reading with an unknown field was accepted")
	}
}

// procStat reads this machine's aggregate cpu line: busy (user + nice +
// system) and total (those with idle, iowait, irq, softirq, steal) ticks.
func procStat(t *testing.T) (busy, total int64) {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		t.Fatalf("/proc/stat starts with %q", line)
	}
	var v [8]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
			t.Fatalf("/proc/stat field %d: %v", i+1, err)
		}
	}
	busy = v[0] + v[1] + v[2]
	return busy, busy + v[3] + v[4] + v[5] + v[6] + v[7]
}

// The node reading is this machine's /proc/stat: read here just before and
// just after, its counters lie between the two readings.
func TestNodeCPUIsProcStat(t *testing.T) {
	h := infra.Host{Name: "db-1"}
	b0, t0 := procStat(t)
	s, ok := agentrun.SampleCPU(context.Background(), localexec.New(), []infra.Host{h}, agentrun.OwnDatabase)["db-1"]
	b1, t1 := procStat(t)
	if !ok || s.Mode != hostcpu.ModeNode {
		t.Fatalf("no node reading: %+v", s)
	}
	if s.Busy < b0 || s.Busy > b1 || s.Total < t0 || s.Total > t1 {
		t.Errorf("the sampler read busy %d total %d; /proc/stat said busy %d..%d, total %d..%d", s.Busy, s.Total, b0, b1, t0, t1)
	}
}

// The agent's reading, run on this machine beside a process named ybload
// held to a tenth of a core by a cgroup of the test's own, counts that
// process as its own and reads its quota; the kernel's, the disks' and
// the interfaces' counters come with it.
func TestAgentReadingFindsTheAgentAndItsQuota(t *testing.T) {
	quota, stop := heldAgent(t, "agentrun", "sleep", "60")
	h := infra.Host{Name: "client-1", Shared: true}
	s, ok := agentrun.SampleCPU(context.Background(), localexec.New(), []infra.Host{h}, agentrun.OwnAgent)["client-1"]
	if !ok {
		t.Fatal("no reading")
	}
	if s.Mode != hostcpu.ModeProcess || s.Own == nil || s.Own.Procs < 1 || s.Own.CPUQuota != quota || s.Own.CPUsAllowed == "" {
		t.Fatalf("own processes %+v (want the ybload process, quota %q)", s.Own, quota)
	}
	if s.Node == nil || s.Node.Idle == 0 || s.Cores != int64(runtime.NumCPU()) || len(s.Disks) == 0 {
		t.Errorf("kernel %+v, cores %d, disks %v", s.Node, s.Cores, s.Disks)
	}
	// Without the process, the reading finds none of its own (the
	// positive control's opposite).
	stop()
	s, _ = agentrun.SampleCPU(context.Background(), localexec.New(), []infra.Host{h}, agentrun.OwnAgent)["client-1"]
	if s.Own == nil || s.Own.Procs != 0 {
		t.Errorf("with no agent running, own processes %+v", s.Own)
	}
}

// A busy agent held to a tenth of a core runs out of its quota in nearly
// every period: the reading carries its group's counters, between the
// group's own read just before and just after it. An idle agent in a group
// of the same quota is not throttled (the control).
func TestAgentReadingCarriesItsQuotasThrottling(t *testing.T) {
	read := func() *hostcpu.Own {
		t.Helper()
		s, ok := agentrun.SampleCPU(context.Background(), localexec.New(), []infra.Host{{Name: "client-1", Shared: true}}, agentrun.OwnAgent)["client-1"]
		if !ok || s.Own == nil || s.Own.Procs != 1 {
			t.Fatalf("reading: %+v, want the one ybload", s.Own)
		}
		return s.Own
	}
	_, stop := heldAgent(t, "agentrun-busy", "yes")
	// The quota's own counter says when it has been enforced in a few
	// periods (100 ms each).
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for p, _ := testenv.CPUThrottling(t, "agentrun-busy"); p < 5; p, _ = testenv.CPUThrottling(t, "agentrun-busy") {
		<-tick.C
	}
	p0, t0 := testenv.CPUThrottling(t, "agentrun-busy")
	own := read()
	p1, t1 := testenv.CPUThrottling(t, "agentrun-busy")
	if own.Periods < p0 || own.Periods > p1 || own.Throttled < t0 || own.Throttled > t1 {
		t.Fatalf("reading: %d periods, %d throttled; the group's own: %d..%d and %d..%d", own.Periods, own.Throttled, p0, p1, t0, t1)
	}
	if own.Throttled*2 < own.Periods {
		t.Errorf("a busy agent held to a tenth of a core ran out of its quota in %d of %d periods", own.Throttled, own.Periods)
	}
	t.Logf("busy, held: %d of %d periods throttled", own.Throttled, own.Periods)
	stop()

	quota, _ := heldAgent(t, "agentrun-idle", "sleep", "60")
	if own := read(); own.Throttled != 0 || own.CPUQuota != quota {
		t.Errorf("an idle agent under the same quota: %d of %d periods throttled, quota %q", own.Throttled, own.Periods, own.CPUQuota)
	}
}

// heldAgent starts the program named prog, under the name ybload, held to
// a tenth of a core by the cgroup group; it returns the quota as the
// readings carry it, and a function that stops the program.
func heldAgent(t *testing.T, group, prog string, args ...string) (quota string, stop func()) {
	t.Helper()
	path, err := exec.LookPath(prog)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ybload")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	t.Cleanup(stop)
	return testenv.CPUQuota(t, group, 0.1, cmd.Process.Pid), stop
}

// The readings count what they cost: the shell that reads, given known
// work of its own first (a loop in it, the same loop in a subshell it
// reaps), says at its last reading about the CPU time the kernel reports
// for the whole process once it has exited (its rusage, its reaped
// children's included), less at most the four counters' rounding to a
// tick; and every reading names the one session it came from.
func TestReadingsCountTheirOwnCost(t *testing.T) {
	script, err := agentrun.CPUScript(infra.Host{Name: "client-1", Shared: true}, agentrun.OwnAgent, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	burn := `burn() { local i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done; }; burn; ( burn )` + "\n"
	cmd := exec.Command("bash", "--norc", "-c", burn+script)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d readings, want 2:\n%s", len(lines), out)
	}
	var last hostcpu.Sample
	for i, l := range lines {
		s, err := agentrun.ParseCPU([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if s.Sampler == nil || s.Sampler.PID != int64(cmd.Process.Pid) || s.Sampler.Start <= 0 {
			t.Fatalf("reading %d: sampler %+v, want the shell's pid %d", i, s.Sampler, cmd.Process.Pid)
		}
		if i > 0 && (s.Sampler.Start != last.Sampler.Start || s.Sampler.Ticks < last.Sampler.Ticks || s.At-last.At < 0.9) {
			t.Errorf("reading %d: %+v at %.3f after %+v at %.3f", i, *s.Sampler, s.At, *last.Sampler, last.At)
		}
		last = s
	}
	used := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	said := float64(last.Sampler.Ticks) / float64(last.Hz)
	tick := 1 / float64(last.Hz)
	if said > used+tick || said < used-4*tick-0.005 {
		t.Errorf("the readings said the shell had used %.3f s of CPU; the kernel says it used %.3f s", said, used)
	}
	t.Logf("the shell's own and its subshell's work: %.3f s said, %.3f s used", said, used)
}

// A db host's reading counts the service user's processes of its network
// namespace, field by field as the kernel gives them: two busy processes
// of their own namespace, one named with a blank (whose stat line moves
// its fields), stopped so that their counters hold, read by the script as
// by this test from /proc; the namespace's process of another user (its
// holder) is not counted.
func TestDatabaseReadingCountsTheServiceUsersProcesses(t *testing.T) {
	testenv.Need(t, os.Geteuid() == 0, "needs root: a network namespace, and processes of another user")
	holder := exec.Command("unshare", "--net", "sleep", "120")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	ns := fmt.Sprintf("/proc/%d/ns/net", holder.Process.Pid)
	waitNetns(t, ns)
	yes, err := exec.LookPath("yes")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(yes)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_ = os.Chmod(dir, 0o755)
	var pids []int
	for _, name := range []string{"yb busy", "ybbusy"} {
		bin := filepath.Join(dir, name)
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("nsenter", "--net="+ns, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		pids = append(pids, cmd.Process.Pid)
	}
	// Each works until it has a few ticks, and is then stopped.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for _, p := range pids {
		for busy, _ := testenv.ProcStat(t, p); busy < 5; busy, _ = testenv.ProcStat(t, p) {
			<-tick.C
		}
		if err := syscall.Kill(p, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	var want, threads int64
	for _, p := range pids {
		busy, th := testenv.ProcStat(t, p)
		want, threads = want+busy, threads+th
	}
	script, err := agentrun.CPUScript(infra.Host{Name: "db-1", Shared: true, ServiceUser: "nobody"}, agentrun.OwnDatabase, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("nsenter", "--net="+ns, "bash", "--norc", "-c", script).Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	s, err := agentrun.ParseCPU(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Own == nil || s.Own.Procs != 2 || s.Own.Busy != want || s.Own.Threads != threads {
		t.Errorf("own %+v; this test read %d ticks and %d threads of the 2 processes", s.Own, want, threads)
	}
}

// waitNetns waits for the namespace link of a process just started with
// unshare to name a namespace other than this process's.
func waitNetns(t *testing.T, link string) {
	t.Helper()
	mine, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-tick.C {
		if l, err := os.Readlink(link); err == nil && l != mine {
			return
		}
	}
	t.Fatalf("%s never left this namespace", link)
}
