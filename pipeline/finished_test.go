package pipeline_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
)

// fileState is what a run directory holds: every file's bytes and mtime.
type fileState struct {
	data  string
	mtime time.Time
}

func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fileState{string(b), info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, before, after map[string]fileState) {
	t.Helper()
	for path, b := range before {
		a, ok := after[path]
		switch {
		case !ok:
			t.Errorf("%s was removed", path)
		case a.data != b.data:
			t.Errorf("%s was rewritten", path)
		case !a.mtime.Equal(b.mtime):
			t.Errorf("%s was touched: mtime %v, was %v", path, a.mtime, b.mtime)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s was added", path)
		}
	}
}

// A run that succeeded and was torn down is finished: a resume (Execute)
// and the stages that work on hosts refuse it before writing anything or
// making a host, saying why (exit 2; the CLI's resume exits 0).
func TestAFinishedRunIsNotResumed(t *testing.T) {
	fr := executeFake(t, nil)
	if fr.err != nil {
		t.Fatalf("execute: %v", fr.err)
	}
	before := snapshot(t, fr.run.Dir())
	ctx := t.Context()
	for name, stage := range map[string]func() error{
		"resume":  func() error { return fr.run.Execute(ctx, ctx) },
		"install": func() error { return fr.run.Install(ctx) },
		"bench":   func() error { return fr.run.Bench(ctx, ctx) },
	} {
		err := stage()
		var fe *pipeline.FinishedError
		if !errors.As(err, &fe) || exitcode.Of(err) != exitcode.Config {
			t.Errorf("%s of a finished run: %v (exit %d); want a FinishedError, exit 2", name, err, exitcode.Of(err))
		}
	}
	if fr.provider.creates != 1 || fr.flavor.installs != 1 {
		t.Errorf("%d creates and %d installs after the refusals, want 1 and 1", fr.provider.creates, fr.flavor.installs)
	}
	sameFiles(t, before, snapshot(t, fr.run.Dir()))
}

// A run torn down after a failure is not finished: a resume reopens it,
// makes its hosts again and runs it whole; once it has succeeded and been
// torn down, it is finished.
func TestARunTornDownAfterAFailureIsResumed(t *testing.T) {
	fr := executeFake(t, errors.New("the server did not start"))
	if fr.err == nil {
		t.Fatal("the install did not fail")
	}
	if err := fr.run.Finished(); err != nil {
		t.Fatalf("a failed run is finished: %v", err)
	}
	fr.flavor.fail = nil
	if err := fr.run.Execute(t.Context(), t.Context()); err != nil {
		t.Fatalf("resume of a failed, torn-down run: %v", err)
	}
	rec := fr.run.Ledger().Record()
	if fr.provider.creates != 2 || rec.State != pipeline.RunTornDown || rec.Outcome != pipeline.OutcomeSucceeded || len(rec.Reopened) != 1 {
		t.Errorf("after the resume: %d creates, state %s, outcome %s, reopened %d times; want 2, torn-down, succeeded, once",
			fr.provider.creates, rec.State, rec.Outcome, len(rec.Reopened))
	}
	var fe *pipeline.FinishedError
	if err := fr.run.Execute(t.Context(), t.Context()); !errors.As(err, &fe) {
		t.Errorf("a second resume: %v; want a FinishedError", err)
	}
}
