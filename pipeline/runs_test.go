package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/golden"
)

// The runs table and the status page, rendered from fixed summaries: the
// holder's pid only while held, no outcome before one is known, a dash for
// what a ledger does not say yet, a broken ledger's reason on its line.
func TestRunsAndStatusText(t *testing.T) {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	l := RunList{Schema: RunsSchema, RunsDir: "/srv/runs", Runs: []RunSummary{
		{ID: "ycsb-ysql-261201-1200-00000001", Dir: "/srv/runs/ycsb-ysql-261201-1200-00000001", Profile: "ycsb-ysql", State: RunTornDown,
			Outcome: OutcomeSucceeded, Owner: "alice", Started: at("2026-12-01T12:00:05Z"), DurationSeconds: 754.4},
		{ID: "kv-ycql-261201-1300-00000002", Dir: "/srv/runs/kv-ycql-261201-1300-00000002", Profile: "kv-ycql", State: RunActive,
			Owner: "bob", Started: at("2026-12-01T13:00:00Z"), DurationSeconds: 61, Held: true, HeldByPID: 4242},
		{ID: "sysbench-ysql-261201-1400-00000003", Dir: "/srv/runs/sysbench-ysql-261201-1400-00000003", Profile: "sysbench-ysql", State: RunActive,
			Owner: "carol", Started: at("2026-12-01T14:00:00Z")},
		{ID: "broken", Dir: "/srv/runs/broken", Error: "/srv/runs/broken/run.json: unexpected end of JSON input"},
	}}
	var b strings.Builder
	if err := WriteRuns(&b, l); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	WriteRuns(&b, RunList{RunsDir: "/srv/empty"})
	golden.Check(t, "runs.txt", []byte(b.String()))

	b.Reset()
	ended := l.Runs[1].Started.Add(1500 * time.Millisecond)
	for _, s := range []Status{
		{Schema: StatusSchema, RunSummary: l.Runs[1], Host: "orchestrator-1", Steps: []StatusStep{
			{Name: "up", Status: StepDone, About: "create 3 db and 1 client hosts with provider local", Started: *l.Runs[1].Started, Ended: &ended, DurationSeconds: 1.5},
			{Name: "preflight", Status: StepStarted, About: "check every host", Started: ended}}},
		{Schema: StatusSchema, RunSummary: l.Runs[0], Reopened: []time.Time{*at("2026-12-01T12:05:00Z")},
			Steps:   []StatusStep{{Name: "install", Status: StepFailed, Started: *l.Runs[0].Started, Ended: &ended, Error: "the server did not start"}},
			Remains: []string{"network namespace ybb-x"}},
		{Schema: StatusSchema, RunSummary: l.Runs[2], Steps: []StatusStep{}},
	} {
		if err := WriteStatus(&b, s); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
	golden.Check(t, "status.txt", []byte(b.String()))
}

// Holder asks the kernel: a run is held while a process has its lock,
// whatever the lock file or the ledger say, and asking takes nothing from
// the holder or from the next process to take the run.
func TestHolder(t *testing.T) {
	dir := t.TempDir()
	if pid, held, err := Holder(dir); held || pid != 0 || err != nil {
		t.Fatalf("a run without a lock file: held %v by %d (%v)", held, pid, err)
	}
	lock, err := lockRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pid, held, err := Holder(dir); !held || pid != os.Getpid() || err != nil {
		t.Errorf("a held run: held %v by %d (%v); want this process, %d", held, pid, err, os.Getpid())
	}
	lock.release()
	if pid, held, err := Holder(dir); held || pid != 0 || err != nil {
		t.Errorf("a released run: held %v by %d (%v); want not held (the file still names %d)", held, pid, err, os.Getpid())
	}
	// The holder is found through the kernel's lock, not the file: a lock
	// taken directly, with no pid written, is a held run.
	f, err := os.Open(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.WriteFile(filepath.Join(dir, LockFile), nil, 0o644)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if pid, held, _ := Holder(dir); !held || pid != 0 {
		t.Errorf("a run locked with no pid written: held %v by %d; want held, pid unknown", held, pid)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if l, err := lockRun(dir); err != nil {
		t.Errorf("the run cannot be taken after the probes: %v", err)
	} else {
		l.release()
	}
}
