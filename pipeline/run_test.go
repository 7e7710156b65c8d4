package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// A run whose up never recorded a cluster: the stages that need hosts
// refuse with a config error naming the way on, and never reach the runner.
func TestStagesWithoutClusterRefuse(t *testing.T) {
	s := Defaults()
	s.RunsDir = t.TempDir()
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(res, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, stage := range map[string]func() error{
		"preflight": func() error { return r.Preflight(ctx) },
		"install":   func() error { return r.Install(ctx) },
		"bench":     func() error { return r.Bench(ctx, ctx) },
	} {
		err := stage()
		if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "has no hosts") {
			t.Errorf("%s: %v (exit %d), want a config error saying the run has no hosts", name, err, exitcode.Of(err))
		}
	}
}

// A stage's failure and an incomplete teardown: the exit code is the
// teardown's, and both messages are kept.
func TestIncompleteTeardownDecidesTheExitCode(t *testing.T) {
	stage := exitcode.Errorf(exitcode.Workload, "workload failed")
	down := exitcode.Errorf(exitcode.Teardown, "teardown incomplete")
	for _, c := range []struct {
		err, derr error
		want      int
	}{
		{stage, down, exitcode.Teardown},
		{nil, down, exitcode.Teardown},
		{stage, nil, exitcode.Workload},
		{stage, exitcode.Errorf(exitcode.Tool, "ledger"), exitcode.Workload},
	} {
		got := withTeardown(c.err, c.derr)
		if exitcode.Of(got) != c.want {
			t.Errorf("withTeardown(%v, %v): exit %d, want %d", c.err, c.derr, exitcode.Of(got), c.want)
		}
		if c.err != nil && !strings.Contains(got.Error(), c.err.Error()) {
			t.Errorf("the stage's error was lost: %v", got)
		}
	}
}

// Collect with no agent records at all is an error, and each workload
// says what it lacks, rather than a result.json of empty phases.
func TestCollectWithoutRecords(t *testing.T) {
	s := Defaults()
	s.RunsDir = t.TempDir()
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(res, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.collect(nil)
	if err == nil || exitcode.Of(err) != exitcode.Workload || !strings.Contains(err.Error(), "nothing was measured") {
		t.Fatalf("collect: %v (exit %d), want a workload error saying nothing was measured", err, exitcode.Of(err))
	}
	if len(out.Workloads) == 0 {
		t.Fatal("no workloads in the result")
	}
	if err := collect.ValidateResult(out); err != nil {
		t.Error(err)
	}
	for _, w := range out.Workloads {
		if len(w.Problems) == 0 || !strings.Contains(w.Problems[0], "no agent records for "+w.Name) {
			t.Errorf("%s: problems %q", w.Name, w.Problems)
		}
	}
}

func TestInstallDetailsRecordHostChanges(t *testing.T) {
	dep := &provision.Deployment{Version: "15.1", Settings: map[string]string{"auth": "off"},
		HostChanges: map[string][]string{"db-1": {"apt-get install postgresql", "useradd ybbench"}, "db-2": nil}}
	got := installDetails(dep)
	want := map[string]string{"version": "15.1", "auth": "off", "host_changes.db-1": "apt-get install postgresql; useradd ybbench"}
	if len(got) != len(want) {
		t.Errorf("details %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
