package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLedgerTransitionsAndResume(t *testing.T) {
	dir := t.TempDir()
	l, err := NewLedger(dir, "r1", Defaults())
	if err != nil {
		t.Fatal(err)
	}
	steps := []string{"up", "preflight", "install", "bench/workloada/load", "collect", "down"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.Begin("up", "create 3 db and 1 client hosts", []string{"db1", "db2", "db3", "client1"}))
	// Written before the step: a reader sees it started even if we die now.
	re, err := OpenLedger(dir)
	must(err)
	if !re.Started("up") || re.Done("up") {
		t.Fatal("a begun step must be on disk as started")
	}
	must(l.End("up", nil, map[string]string{"hosts": "4"}))
	must(l.Begin("preflight", "check hosts", nil))
	must(l.End("preflight", nil, nil))
	must(l.Begin("install", "install postgres", nil))
	must(l.End("install", errors.New("boom"), nil))

	re, _ = OpenLedger(dir)
	// Resume skips what is done, and redoes a failed step and what follows.
	for _, s := range steps {
		want := s == "up" || s == "preflight"
		if re.Done(s) != want {
			t.Errorf("%s: done %v, want %v", s, re.Done(s), want)
		}
	}
	rec := re.Record()
	if rec.Steps[2].Status != StepFailed || rec.Steps[2].Error != "boom" {
		t.Errorf("install step %+v", rec.Steps[2])
	}
	// A rerun replaces the step rather than appending a twin.
	must(re.Begin("install", "install postgres again", nil))
	must(re.End("install", nil, nil))
	if n := len(re.Record().Steps); n != 3 || !re.Done("install") {
		t.Errorf("%d steps after rerun", n)
	}
	if err := l.End("never", nil, nil); err == nil {
		t.Error("ending a step never begun must fail")
	}
}

// A run.json of another schema is refused with an error naming the file,
// the schema found and the one this ybbench reads — not any error (a
// missing file would give one too).
func TestLedgerRejectsOtherSchemas(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, []byte(`{"schema":"ybbench-run/9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenLedger(dir)
	if err == nil {
		t.Fatal("a run.json of schema ybbench-run/9 was opened")
	}
	for _, want := range []string{path, `"ybbench-run/9"`, LedgerSchema} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the schema error %q does not name %s", err, want)
		}
	}
}

// A teardown undoes every step before it: a torn-down run has nothing
// started or done; a step that changes the world reopens it (state active,
// when recorded, on disk), while a local step (collect, report) does not.
func TestLedgerReopensATornDownRun(t *testing.T) {
	dir := t.TempDir()
	l, err := NewLedger(dir, "r1", Defaults())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"up", "preflight", "install", "bench/workloada/load", "down"} {
		must(l.Begin(s, "", nil))
		must(l.End(s, nil, nil))
	}
	if !l.Open() || !l.Started("install") {
		t.Fatal("before the teardown the steps are in effect")
	}
	must(l.SetState(RunTornDown, nil))
	for _, s := range []string{"up", "install", "bench/workloada/load"} {
		if l.Started(s) || l.Done(s) {
			t.Errorf("%s: started %v, done %v after the teardown; want neither", s, l.Started(s), l.Done(s))
		}
	}
	if l.Open() || l.StartedAny("bench/") {
		t.Error("a torn-down run has nothing to tear down")
	}

	must(l.Begin("report", "render the report again", nil))
	if st := l.Record().State; st != RunTornDown {
		t.Errorf("a report reopened the run: state %s", st)
	}

	must(l.Begin("install", "install again", nil))
	re, err := OpenLedger(dir)
	must(err)
	rec := re.Record()
	if rec.State != RunActive || len(rec.Reopened) != 1 || rec.Reopened[0].IsZero() {
		t.Fatalf("after a step began on a torn-down run: state %s, reopened %v; want active, once", rec.State, rec.Reopened)
	}
	if !re.Started("install") || re.Started("up") || !re.Open() {
		t.Errorf("started since the teardown: install %v (want true), up %v (want false); open %v", re.Started("install"), re.Started("up"), re.Open())
	}
}
