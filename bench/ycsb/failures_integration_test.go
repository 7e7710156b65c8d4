//go:build integration

package ycsb

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
)

// failingBinding is ours as testdata/oracle/FailingDB.java is YCSB's: the
// insertfail-th insert of each DB fails (ERROR), the DB of the initfail-th
// worker (both counted from 1; 0 never) cannot be made, every insert
// sleeps sleepms.
type failingBinding struct{ insertFail, initFail, sleepMS int64 }

func newFailingBinding(p *Props, _ *slog.Logger) (Binding, error) {
	var b failingBinding
	var err error
	if b.insertFail, err = p.Int("failingdb.insertfail", 0); err != nil {
		return nil, err
	}
	if b.initFail, err = p.Int("failingdb.initfail", 0); err != nil {
		return nil, err
	}
	if b.sleepMS, err = p.Int("failingdb.sleepms", 0); err != nil {
		return nil, err
	}
	return b, nil
}

func (b failingBinding) NewDB(_ context.Context, worker, _ int) (DB, error) {
	if int64(worker+1) == b.initFail {
		return nil, fmt.Errorf("init of worker %d fails on purpose", worker+1)
	}
	return &failingDB{b: b}, nil
}

type failingDB struct {
	nullDB
	b failingBinding
	n int64
}

func (d *failingDB) Insert(context.Context, string, string, []Field) Status {
	time.Sleep(time.Duration(d.b.sleepMS) * time.Millisecond)
	d.n++
	if d.n == d.b.insertFail {
		return Error
	}
	return OK
}

// failureLines are the lines of a report that count: every Operations and
// Return= line but the cleanup's, and the operations done, which YCSB
// prints only as Throughput(ops/sec) over RunTime(ms).
func failureLines(t *testing.T, out string) []string {
	t.Helper()
	var keep []string
	var runtime, tput float64
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, ", ")
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "[OVERALL]" && f[1] == "RunTime(ms)":
			runtime, _ = strconv.ParseFloat(f[2], 64)
		case f[0] == "[OVERALL]" && f[1] == "Throughput(ops/sec)":
			tput, _ = strconv.ParseFloat(f[2], 64)
		case f[0] != "[CLEANUP]" && (f[1] == "Operations" || strings.HasPrefix(f[1], "Return=")):
			keep = append(keep, l)
		}
	}
	if runtime == 0 {
		t.Fatalf("no RunTime(ms), or 0 ms: the operations done cannot be read\n%s", out)
	}
	keep = append(keep, fmt.Sprintf("operations done: %d", int64(math.Round(tput*runtime/1000))))
	slices.Sort(keep)
	return keep
}

// compileFailingDB builds testdata/oracle/FailingDB.java against YCSB core
// 0.17.0 with the JDK's javac, and returns the class path to run it with.
func compileFailingDB(t *testing.T, refs *testenv.Refs) string {
	t.Helper()
	javac := filepath.Join(filepath.Dir(refs.Java), "javac")
	if _, err := os.Stat(javac); err != nil {
		t.Fatalf("no javac beside %s (the JDK 17 of scripts/testenv/refs.sh has one): %v", refs.Java, err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-cp", refs.YCSBClassPath, "-d", dir, "testdata/oracle/FailingDB.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return dir + string(os.PathListSeparator) + refs.YCSBClassPath
}

func runFailing(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Bindings: map[string]BindingFactory{"failing": newFailingBinding}, Version: "test"}
	code := Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// TestIntegrationFailedLoadInsertAgainstYCSBCore loads with YCSB core
// 0.17.0's Client and a DB whose fourth insert fails, and with ours: the
// failed insert stops the thread, is measured as INSERT-FAILED with its
// ERROR status, and is not among the operations done (Throughput) — the
// same lines in both, with one thread and with two.
func TestIntegrationFailedLoadInsertAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	cp := compileFailingDB(t, refs)
	wl := filepath.Join(t.TempDir(), "workload")
	if err := os.WriteFile(wl, []byte("workload=site.ycsb.workloads.CoreWorkload\nrecordcount=12\noperationcount=10\nreadproportion=1\nupdateproportion=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, threads := range []string{"1", "2"} {
		t.Run("threads "+threads, func(t *testing.T) {
			props := []string{"-P", wl, "-p", "failingdb.insertfail=4", "-p", "failingdb.sleepms=20", "-threads", threads}
			out, err := exec.Command(refs.Java, append([]string{"-cp", cp, "site.ycsb.Client", "-load", "-db", "FailingDB"}, props...)...).Output()
			if err != nil {
				t.Fatalf("YCSB core: %v\n%s", err, out)
			}
			java := failureLines(t, string(out))
			if !slices.Contains(java, "[INSERT-FAILED], Operations, "+threads) {
				t.Fatalf("YCSB core did not fail %s inserts: the oracle changed?\n%s", threads, out)
			}
			code, ours, stderr := runFailing(t, append([]string{"load", "failing"}, props...)...)
			if code != 0 {
				t.Fatalf("ours: exit %d\n%s", code, stderr)
			}
			if got := failureLines(t, ours); !slices.Equal(got, java) {
				t.Errorf("YCSB core:\n%s\nours:\n%s", strings.Join(java, "\n"), strings.Join(got, "\n"))
			}
		})
	}
}

// TestIntegrationInitFailureAgainstYCSBCore: when one thread's DB cannot
// be made, YCSB core 0.17.0 prints the exception, runs the other threads
// and exits 0 with a report of their operations alone. Ours stops the run
// with exit 5 (workload) and says which worker failed: a run with fewer
// threads than asked is not the run asked for (README, deviations).
func TestIntegrationInitFailureAgainstYCSBCore(t *testing.T) {
	refs := testenv.RefsFor(t)
	cp := compileFailingDB(t, refs)
	wl := filepath.Join(t.TempDir(), "workload")
	if err := os.WriteFile(wl, []byte("workload=site.ycsb.workloads.CoreWorkload\nrecordcount=10\noperationcount=10\nreadproportion=1\nupdateproportion=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	props := []string{"-P", wl, "-p", "failingdb.initfail=1", "-p", "failingdb.sleepms=20", "-threads", "2"}
	cmd := exec.Command(refs.Java, append([]string{"-cp", cp, "site.ycsb.Client", "-load", "-db", "FailingDB"}, props...)...)
	var jout, jerr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &jout, &jerr
	if err := cmd.Run(); err != nil {
		t.Fatalf("YCSB core exited with %v (it exits 0 when a thread's init fails)\n%s", err, jerr.String())
	}
	java := failureLines(t, jout.String())
	if !strings.Contains(jerr.String(), "init of instance 1 fails on purpose") || !slices.Equal(java, []string{"[INSERT], Operations, 5", "[INSERT], Return=OK, 5", "operations done: 5"}) {
		t.Fatalf("YCSB core did not run the other thread alone: the oracle changed?\n%s\n%s", java, jerr.String())
	}
	code, ours, stderr := runFailing(t, append([]string{"load", "failing"}, props...)...)
	if code != exitcode.Workload || !strings.Contains(stderr, "init of worker 1 fails on purpose") {
		t.Errorf("ours: exit %d, want %d naming the worker\nstdout:\n%s\nstderr:\n%s", code, exitcode.Workload, ours, stderr)
	}
}
