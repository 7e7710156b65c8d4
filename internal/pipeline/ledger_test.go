package pipeline

import (
	"errors"
	"os"
	"path/filepath"
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

func TestLedgerRejectsOtherSchemas(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"schema":"ybbench-run/9"}`), 0o644)
	if _, err := OpenLedger(dir); err == nil {
		t.Fatal("want a schema error")
	}
}
