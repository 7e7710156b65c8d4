package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/pipeline"
)

// These tests drive the built binary on runs directories of their own,
// whose ledgers the pipeline's own functions write, and check what a user
// and a script see: exit codes, stdout apart from stderr, JSON parsed.

var (
	builtOnce sync.Once
	builtDir  string
	builtErr  error
)

func TestMain(m *testing.M) {
	// A run adds its results to the history store under the user's data
	// directory: the tests' runs go to one of their own, never the user's.
	data, err := os.MkdirTemp("", "ybbench-test-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// builtYbbench builds this command once per test binary.
func builtYbbench(t *testing.T) string {
	t.Helper()
	builtOnce.Do(func() {
		if builtDir, builtErr = os.MkdirTemp("", "ybbench-cli-"); builtErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(builtDir, "ybbench"), ".").CombinedOutput()
		if err != nil {
			builtErr = fmt.Errorf("build ybbench: %v\n%s", err, out)
		}
	})
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	return filepath.Join(builtDir, "ybbench")
}

// cliResult is what one command printed, and its exit code.
type cliResult struct {
	code           int
	stdout, stderr string
}

// cli runs the built ybbench with env added to a clean environment (no
// YBBENCH_* of the caller's). No Terraform can be found in it: a command
// that wrongly went on to make hosts fails there instead of making a
// cluster on this machine.
func cli(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(builtYbbench(t), args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "YBBENCH_") && !strings.HasPrefix(e, "PATH=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "PATH=/usr/bin:/bin", "YBBENCH_TERRAFORM="+filepath.Join(t.TempDir(), "no-terraform"))
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{code, out.String(), errb.String()}
}

// makeRun writes a run directory in runs through the pipeline's ledger:
// the steps, each begun and done, then the outcome and the state.
func makeRun(t *testing.T, runs, id, owner string, steps []string, outcome, state string) string {
	t.Helper()
	dir := filepath.Join(runs, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := pipeline.Defaults()
	s.RunsDir, s.Owner, s.Workloads = runs, owner, []string{"workloada"}
	l, err := pipeline.NewLedger(dir, id, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if err := l.Begin(st, "", nil); err != nil {
			t.Fatal(err)
		}
		if err := l.End(st, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if outcome != "" {
		if err := l.SetOutcome(outcome); err != nil {
			t.Fatal(err)
		}
	}
	if state != pipeline.RunActive {
		if err := l.SetState(state, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The lock file a run's first process leaves behind.
	if err := os.WriteFile(filepath.Join(dir, pipeline.LockFile), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wholeRun is every step of a run of ycsb-ysql's workload A.
var wholeRun = []string{"up", "preflight", "install", "agents", "bench/workloada/prepare", "bench/workloada/load",
	"bench/workloada/run", "collect", "report", "down"}

// finishedRun is a run that succeeded and was torn down, with its results.
func finishedRun(t *testing.T, runs, id string) string {
	t.Helper()
	dir := makeRun(t, runs, id, "alice", wholeRun, pipeline.OutcomeSucceeded, pipeline.RunTornDown)
	for name, body := range map[string]string{pipeline.ResultFile: `{"schema":"kept"}`, pipeline.ReportFile: "# kept\n",
		pipeline.ClusterFile: `{"name":"` + id + `","hosts":[]}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Old enough that a rewrite shows in the mtime whatever the
	// filesystem's clock granularity.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chtimes(path, old, old)
		}
		return err
	})
	return dir
}

// dirState is every file's bytes and mtime (directories' too: a file
// added or removed changes its directory's).
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var b []byte
		if !d.IsDir() {
			if b, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		out[path] = info.ModTime().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertUnchanged(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			t.Errorf("%s changed %s", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s added %s", what, p)
		}
	}
}

// A finished run is left as it is: resume says so and exits 0, install and
// bench refuse it with the same reason (exit 2); no file of the run is
// written or touched, and status still says it succeeded.
func TestCLIAFinishedRunIsNotResumed(t *testing.T) {
	runs := t.TempDir()
	id := "ycsb-ysql-261201-1200-0000f1f1"
	dir := finishedRun(t, runs, id)
	before := dirState(t, dir)
	env := []string{"YBBENCH_RUNS_DIR=" + runs}
	r := cli(t, env, "resume", "--run", id)
	if r.code != 0 || !strings.Contains(r.stderr, "run "+id+" finished and torn down; nothing to resume") || r.stdout != "" {
		t.Errorf("resume of a finished run: exit %d, stdout %q, stderr %q; want 0 and the reason on stderr", r.code, r.stdout, r.stderr)
	}
	for _, stage := range []string{"install", "bench"} {
		r := cli(t, nil, stage, "--run", dir)
		if r.code != 2 || !strings.Contains(r.stderr, "finished and torn down") {
			t.Errorf("%s of a finished run: exit %d, stderr %q; want 2 and the reason", stage, r.code, r.stderr)
		}
	}
	assertUnchanged(t, "resume, install or bench of a finished run", before, dirState(t, dir))
	s := cli(t, env, "status", "--run", id, "-o", "json")
	var st pipeline.Status
	if err := json.Unmarshal([]byte(s.stdout), &st); err != nil || st.State != pipeline.RunTornDown || st.Outcome != pipeline.OutcomeSucceeded {
		t.Errorf("status after the refusals: %v, state %q, outcome %q; want torn-down, succeeded", err, st.State, st.Outcome)
	}
}

// holdRun takes a run's lock as a ybbench process does (flock, its pid in
// the file) until the returned function releases it.
func holdRun(t *testing.T, dir string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, pipeline.LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }
}

// runs (and status without --run) lists the runs of the runs directory,
// from --runs-dir, else YBBENCH_RUNS_DIR: each with its profile, state,
// outcome, start and duration, the process holding it only while one does,
// and a run whose ledger cannot be read with the reason; other directories
// are not runs.
func TestCLIRunsLists(t *testing.T) {
	runs := t.TempDir()
	finishedRun(t, runs, "ycsb-ysql-261201-1200-00000001")
	held := makeRun(t, runs, "ycsb-ysql-261201-1300-00000002", "bob", []string{"up", "preflight"}, "", pipeline.RunActive)
	makeRun(t, runs, "ycsb-ysql-261201-1400-00000003", "carol", []string{"up", "preflight", "install", "down"}, pipeline.OutcomeFailed, pipeline.RunTornDown)
	os.MkdirAll(filepath.Join(runs, "not-a-run"), 0o755)
	broken := filepath.Join(runs, "broken")
	os.MkdirAll(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "run.json"), []byte("{"), 0o644)
	release := holdRun(t, held)
	defer release()

	r := cli(t, nil, "runs", "--runs-dir", runs, "-o", "json")
	var l pipeline.RunList
	if err := json.Unmarshal([]byte(r.stdout), &l); r.code != 0 || err != nil {
		t.Fatalf("runs -o json: exit %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	got := map[string]pipeline.RunSummary{}
	for _, s := range l.Runs {
		got[s.ID] = s
	}
	if l.Schema != pipeline.RunsSchema || l.RunsDir != runs || len(l.Runs) != 4 {
		t.Fatalf("runs: schema %q, dir %q, %d runs; want %s, %s, 4: %+v", l.Schema, l.RunsDir, len(l.Runs), pipeline.RunsSchema, runs, l.Runs)
	}
	for id, want := range map[string][3]string{
		"ycsb-ysql-261201-1200-00000001": {"torn-down", "succeeded", "alice"},
		"ycsb-ysql-261201-1300-00000002": {"active", "", "bob"},
		"ycsb-ysql-261201-1400-00000003": {"torn-down", "failed", "carol"},
	} {
		s := got[id]
		if s.State != want[0] || s.Outcome != want[1] || s.Owner != want[2] || s.Profile != "ycsb-ysql" || s.Started == nil {
			t.Errorf("%s: %+v; want state %s, outcome %q, owner %s", id, s, want[0], want[1], want[2])
		}
		if heldNow := id == filepath.Base(held); s.Held != heldNow || (heldNow && s.HeldByPID != os.Getpid()) || (!heldNow && s.HeldByPID != 0) {
			t.Errorf("%s: held %v by pid %d; want held %v (by this test, pid %d)", id, s.Held, s.HeldByPID, heldNow, os.Getpid())
		}
	}
	if b := got["broken"]; b.Error == "" || b.State != "" {
		t.Errorf("a run with a broken ledger: %+v; want its error", b)
	}

	// Text: one line per run, oldest first, and status without --run says
	// the same; YBBENCH_RUNS_DIR is read, and --runs-dir wins over it.
	text := cli(t, []string{"YBBENCH_RUNS_DIR=" + runs}, "runs")
	lines := strings.Split(strings.TrimSpace(text.stdout), "\n")
	if text.code != 0 || len(lines) != 6 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], "ycsb-ysql-261201-1200-00000001 ") ||
		!strings.HasPrefix(lines[4], "broken ") || !strings.HasPrefix(lines[5], "broken: ") || !strings.Contains(text.stdout, "active, held by pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("runs: exit %d:\n%s", text.code, text.stdout)
	}
	if st := cli(t, []string{"YBBENCH_RUNS_DIR=" + runs}, "status"); st.code != 0 || st.stdout != text.stdout {
		t.Errorf("status without --run: exit %d:\n%s\nwant the runs:\n%s", st.code, st.stdout, text.stdout)
	}
	empty := t.TempDir()
	if e := cli(t, []string{"YBBENCH_RUNS_DIR=" + runs}, "runs", "--runs-dir", empty); e.code != 0 || e.stdout != "no runs in "+empty+"\n" {
		t.Errorf("runs --runs-dir over YBBENCH_RUNS_DIR: exit %d, %q", e.code, e.stdout)
	}
	release()
	if j := cli(t, nil, "runs", "--runs-dir", runs, "-o", "json"); strings.Contains(j.stdout, `"held": true`) {
		t.Errorf("a run is held after its holder let go:\n%s", j.stdout)
	}
}

// -o takes text or json; anything else is bad input (exit 2).
func TestCLIOutputFormats(t *testing.T) {
	runs := t.TempDir()
	for _, args := range [][]string{{"runs", "--runs-dir", runs}, {"status", "--runs-dir", runs}, {"profiles"}, {"plan", "--local"}} {
		r := cli(t, nil, append(args, "-o", "yaml")...)
		if r.code != 2 || !strings.Contains(r.stderr, `"yaml": want text or json`) || r.stdout != "" {
			t.Errorf("%s -o yaml: exit %d, stdout %q, stderr %q; want 2", args[0], r.code, r.stdout, r.stderr)
		}
	}
}

// status names the run's owner (the user who owns run.json when the ledger
// names none), leaves out an outcome not yet known, and shows the pid only
// while a process holds the run; --run takes an id or a path, and a run
// that is neither is bad input.
func TestCLIStatus(t *testing.T) {
	runs := t.TempDir()
	id := "ycsb-ysql-261201-1500-0000abcd"
	dir := makeRun(t, runs, id, "", []string{"up", "preflight"}, "", pipeline.RunActive)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	r := cli(t, nil, "status", "--run", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "  owner      "+me.Username+"\n") || strings.Contains(r.stdout, "outcome") ||
		strings.Contains(r.stdout, "held by") || strings.Contains(r.stdout, "unknown") {
		t.Errorf("status --run <path>: exit %d; want owner %s, no outcome, not held:\n%s%s", r.code, me.Username, r.stdout, r.stderr)
	}
	release := holdRun(t, dir)
	byID := cli(t, []string{"YBBENCH_RUNS_DIR=" + runs}, "status", "--run", id)
	release()
	if byID.code != 0 || !strings.Contains(byID.stdout, fmt.Sprintf("  held by    process %d\n", os.Getpid())) {
		t.Errorf("status --run <id> of a held run: exit %d; want held by process %d:\n%s%s", byID.code, os.Getpid(), byID.stdout, byID.stderr)
	}
	j := cli(t, nil, "status", "--run", id, "--runs-dir", runs, "-o", "json")
	var st pipeline.Status
	if err := json.Unmarshal([]byte(j.stdout), &st); err != nil || st.Schema != pipeline.StatusSchema || st.ID != id || st.Held ||
		len(st.Steps) != 2 || st.Steps[0].Name != "up" || st.Steps[1].Status != pipeline.StepDone || st.Owner != me.Username {
		t.Errorf("status -o json: %v\n%s", err, j.stdout)
	}
	for _, args := range [][]string{{"status", "--run", "no-such-run", "--runs-dir", runs}, {"down", "--run", filepath.Join(runs, "nope")}} {
		if n := cli(t, nil, args...); n.code != 2 || !strings.Contains(n.stderr, "no such run") || !strings.Contains(n.stderr, runs) {
			t.Errorf("%s: exit %d, %q; want 2, no such run, naming the runs directory", strings.Join(args, " "), n.code, n.stderr)
		}
	}
}

// report on a run without results says which stage makes them (exit 2)
// and records nothing in the ledger.
func TestCLIReportWithoutResults(t *testing.T) {
	runs := t.TempDir()
	for _, c := range []struct {
		steps []string
		state string
		want  string
	}{
		{[]string{"up", "preflight", "install"}, pipeline.RunActive, "ybbench bench --run "},
		{[]string{"up", "preflight"}, pipeline.RunActive, "ybbench install --run "},
		{[]string{"up", "preflight", "install", "agents", "bench/workloada/prepare"}, pipeline.RunActive, "ybbench collect --run "},
		{[]string{"up", "preflight", "down"}, pipeline.RunTornDown, "ybbench resume --run "},
	} {
		id := fmt.Sprintf("ycsb-ysql-261201-1600-%08d", len(c.steps))
		dir := makeRun(t, runs, id, "dave", c.steps, "", c.state)
		before := tree(t, dir)
		r := cli(t, nil, "report", "--run", dir)
		if r.code != 2 || !strings.Contains(r.stderr, "has no results yet") || !strings.Contains(r.stderr, c.want+id) || r.stdout != "" {
			t.Errorf("report after %v: exit %d, %q; want 2 and %q", c.steps, r.code, r.stderr, c.want+id)
		}
		if after := tree(t, dir); after != before {
			t.Errorf("report after %v changed the run directory:\nbefore:\n%s\nafter:\n%s", c.steps, before, after)
		}
	}
}

// up prints the run's id, and only that, on stdout, as soon as the run
// exists: here its hosts cannot be made (a stand-in Terraform that only
// tells its version, so the checks before the run pass and `init` fails),
// and the id still names the run directory made.
func TestCLIUpPrintsTheRunID(t *testing.T) {
	runs := t.TempDir()
	r := cli(t, []string{"YBBENCH_TERRAFORM=" + versionOnly(t, "1.5.7")}, "up", "--local", "--runs-dir", runs, "--subnet", "10.213.251.0/24")
	entries, _ := os.ReadDir(runs)
	if len(entries) != 1 {
		t.Fatalf("up made %d run directories, want 1 (exit %d):\n%s", len(entries), r.code, r.stderr)
	}
	id := entries[0].Name()
	if r.stdout != id+"\n" || r.code == 0 || !strings.Contains(r.stderr, "terraform") {
		t.Errorf("up: exit %d, stdout %q; want the id %s alone and the failure on stderr:\n%s", r.code, r.stdout, id, r.stderr)
	}
	if s := pipeline.Summarize(filepath.Join(runs, id)); s.ID != id {
		t.Errorf("the ledger of %s names run %q", id, s.ID)
	}
}

// profiles reads as a table with a dash where a profile does not use a
// setting, and -o json gives a profile only the parameters it uses.
func TestCLIProfiles(t *testing.T) {
	r := cli(t, nil, "profiles")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "profile ") || strings.Contains(r.stdout, "records 0") || strings.Contains(r.stdout, "ddl \n") {
		t.Errorf("profiles: exit %d:\n%s", r.code, r.stdout)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "operations" && (len(f) != 5 || f[1] != "-" || f[2] != "-") {
			t.Errorf("operations row %q: want a dash for kv-ycql and sysbench-ysql, which run no operation count", line)
		}
	}
	j := cli(t, nil, "profiles", "kv-ycql", "sysbench-ysql", "-o", "json")
	var l pipeline.ProfileList
	if err := json.Unmarshal([]byte(j.stdout), &l); err != nil || j.code != 0 || l.Schema != pipeline.ProfilesSchema || len(l.Profiles) != 2 {
		t.Fatalf("profiles -o json: exit %d, %v:\n%s", j.code, err, j.stdout)
	}
	var raw struct {
		Profiles []struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"profiles"`
	}
	json.Unmarshal([]byte(j.stdout), &raw)
	for _, p := range raw.Profiles {
		for _, unused := range map[string][]string{"kv-ycql": {"records", "operations", "load_threads", "threads", "warmup"},
			"sysbench-ysql": {"operations", "load_threads"}}[p.Name] {
			if v, ok := p.Parameters[unused]; ok {
				t.Errorf("%s: parameter %s = %v, which it does not use", p.Name, unused, v)
			}
		}
	}
}

// plan -o json is the plan for scripts: the hosts, every stage in order
// with each bench phase's agent command line, the expected duration.
func TestCLIPlanJSON(t *testing.T) {
	r := cli(t, []string{"YBBENCH_TERRAFORM=" + versionOnly(t, "1.5.7")}, "plan", "sysbench-ysql", "--local", "--quick", "--workloads", "oltp_insert", "-o", "json")
	var pl pipeline.Plan
	if err := json.Unmarshal([]byte(r.stdout), &pl); err != nil || r.code != 0 {
		t.Fatalf("plan -o json: exit %d, %v:\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	var stages []string
	for _, st := range pl.Stages {
		stages = append(stages, st.Stage+"/"+st.Phase)
	}
	if pl.Schema != pipeline.PlanSchema || pl.Profile != "sysbench-ysql" || len(pl.Hosts) != 4 || pl.ExpectedSeconds <= 0 ||
		strings.Join(stages, " ") != "up/ preflight/ install/ bench/prepare bench/run bench/cleanup collect/ report/ down/" {
		t.Errorf("plan: schema %q, profile %q, %d hosts, %v s, stages %v", pl.Schema, pl.Profile, len(pl.Hosts), pl.ExpectedSeconds, stages)
	}
	run := pl.Stages[4]
	if run.Command[0] != "ybload" || run.Command[1] != "sysbench" || !strings.Contains(strings.Join(run.Command, " "), "--threads=64 --time=60") {
		t.Errorf("the run phase's command: %q", run.Command)
	}
	text := cli(t, []string{"YBBENCH_TERRAFORM=" + versionOnly(t, "1.5.7")}, "plan", "sysbench-ysql", "--local", "--quick", "--workloads", "oltp_insert")
	if !strings.Contains(text.stdout, "  bench      on 1 client(s): "+strings.Join(run.Command, " ")+"\n") {
		t.Errorf("the text plan does not show the JSON's command %q:\n%s", run.Command, text.stdout)
	}
}
