package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/provision"
)

// agentLog is what every runner of a run shares: the agent invocations
// started (their log step, agent-<file base>), and the one to fail, once.
type agentLog struct {
	mu      sync.Mutex
	started []string
	fail    string
}

// take returns the invocations started since the last take.
func (l *agentLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.started
	l.started = nil
	return out
}

// agentRunner records each agent start, and fails the one agentLog names,
// once, as an agent that could not start.
type agentRunner struct {
	provision.Runner
	log *agentLog
}

func (r agentRunner) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (provision.Result, error) {
	step := provision.Apply(opts).Step
	if strings.HasPrefix(step, "agent-workload") {
		r.log.mu.Lock()
		r.log.started = append(r.log.started, step)
		fail := step == r.log.fail
		if fail {
			r.log.fail = ""
		}
		r.log.mu.Unlock()
		if fail {
			return provision.Result{Host: h.Name, ExitCode: 1}, errors.New("the agent could not start (the test's doing)")
		}
	}
	return r.Runner.Run(ctx, h, script, opts...)
}

func repeatSpec(n int) func(*pipeline.Spec) {
	return func(s *pipeline.Spec) { s.Workloads, s.Repeat = []string{"workloada"}, n }
}

// With --repeat 3 every phase of the workload runs 3 times, one
// repetition after the other, each in its own ledger step and its own
// files; the result keeps every repetition with what its agents counted,
// and the HDR logs do not collide.
func TestFakePartsRepeat(t *testing.T) {
	log := &agentLog{}
	fr := newFakeWith(t, nil, repeatSpec(3), func(r provision.Runner) provision.Runner { return agentRunner{r, log} })
	fr.err = fr.run.Execute(t.Context(), t.Context())
	if fr.err != nil {
		t.Fatalf("execute: %v (exit %d)", fr.err, exitcode.Of(fr.err))
	}
	checkTornDown(t, fr, pipeline.OutcomeSucceeded)
	var want, steps []string
	for _, k := range []string{"r1", "r2", "r3"} {
		for _, ph := range []string{"prepare", "load", "run"} {
			want = append(want, "agent-workloada-"+k+"-"+ph)
			steps = append(steps, "bench/workloada/"+k+"/"+ph)
		}
	}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("agents started %q, want %q", got, want)
	}
	var bench []string
	for _, s := range fr.run.Ledger().Record().Steps {
		if strings.HasPrefix(s.Name, "bench/") {
			bench = append(bench, s.Name)
			// What the progress view shows of the step says which repetition.
			if k, ph, _ := strings.Cut(strings.TrimPrefix(s.Name, "bench/workloada/"), "/"); !strings.HasPrefix(s.About, "workloada "+k+"/3 "+ph+" ") {
				t.Errorf("step %s is about %q", s.Name, s.About)
			}
			if s.Status != pipeline.StepDone {
				t.Errorf("step %s: %s", s.Name, s.Status)
			}
		}
	}
	if !slices.Equal(bench, steps) {
		t.Errorf("ledger steps %q, want %q", bench, steps)
	}
	// Each repetition's record files, apart from the others'.
	agents, err := filepath.Glob(filepath.Join(fr.run.Dir(), "agents", "*", "workloada-r*-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 6 {
		t.Errorf("record files %q, want a load and a run of each of 3 repetitions", agents)
	}
	hdr, _ := filepath.Glob(filepath.Join(fr.run.Dir(), collect.HDRDir, "*-workloada-r*-*.hlog"))
	if len(hdr) != 6 {
		t.Errorf("HDR logs %q, want 6", hdr)
	}
	res := readResult(t, fr.run.Dir())
	w := res.Workloads[0]
	if len(res.Workloads) != 1 || len(w.Repetitions) != 3 || w.MedianRepetition < 1 || w.MedianRepetition > 3 || len(w.Spread) == 0 {
		t.Fatalf("result: %d workloads, %d repetitions, median %d, %d spreads", len(res.Workloads), len(w.Repetitions), w.MedianRepetition, len(w.Spread))
	}
	for i, r := range w.Repetitions {
		want := map[string]int64{"load": fakeRecords, "run": fakeOperations}
		for _, ph := range r.Phases {
			if ph.Ops != want[ph.Phase] || !ph.Complete {
				t.Errorf("repetition %d %s: %d operations, complete %v; want %d", i+1, ph.Phase, ph.Ops, ph.Complete, want[ph.Phase])
			}
			delete(want, ph.Phase)
		}
		if r.Index != i+1 || len(want) > 0 {
			t.Errorf("repetition %d: index %d, phases missing %v", i+1, r.Index, want)
		}
	}
	if res.Parameters["repeat"] != "3" {
		t.Errorf("parameters %v lack repeat 3", res.Parameters)
	}
}

// A resume after a repetition's run phase failed redoes that repetition
// whole (its table made afresh and loaded again) and those after it, and
// keeps the repetitions that finished.
func TestFakePartsRepeatResume(t *testing.T) {
	log := &agentLog{fail: "agent-workloada-r2-run"}
	fr := newFakeWith(t, nil, repeatSpec(3), func(r provision.Runner) provision.Runner { return agentRunner{r, log} })
	ctx := t.Context()
	for _, st := range []func(context.Context) error{fr.run.Up, fr.run.Preflight, fr.run.Install} {
		if err := st(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := fr.run.TearDown(); err != nil {
			t.Errorf("teardown: %v", err)
		}
	})
	if err := fr.run.Bench(ctx, ctx); exitcode.Of(err) != exitcode.Workload {
		t.Fatalf("bench: %v (exit %d), want the failed phase's exit 5", err, exitcode.Of(err))
	}
	first := []string{"agent-workloada-r1-prepare", "agent-workloada-r1-load", "agent-workloada-r1-run",
		"agent-workloada-r2-prepare", "agent-workloada-r2-load", "agent-workloada-r2-run"}
	if got := log.take(); !slices.Equal(got, first) {
		t.Errorf("first attempt started %q, want %q", got, first)
	}
	// The bench stage again, as resume runs it: what it redoes is what the
	// ledger says is not done. (The run is not reopened from its
	// directory: the fake parts' null binding is no profile's, and a
	// reopened run resolves its profile by name.)
	dir := fr.run.Dir()
	if err := fr.run.Bench(ctx, ctx); err != nil {
		t.Fatalf("resumed bench: %v", err)
	}
	again := []string{"agent-workloada-r2-prepare", "agent-workloada-r2-load", "agent-workloada-r2-run",
		"agent-workloada-r3-prepare", "agent-workloada-r3-load", "agent-workloada-r3-run"}
	if got := log.take(); !slices.Equal(got, again) {
		t.Errorf("the resume started %q, want %q", got, again)
	}
	if err := fr.run.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	w := readResult(t, dir).Workloads[0]
	if len(w.Repetitions) != 3 {
		t.Fatalf("%d repetitions", len(w.Repetitions))
	}
	for _, r := range w.Repetitions {
		if p := collect.MeasuredPhaseOf(r.Phases); p == nil || !p.Complete || p.Ops != fakeOperations {
			t.Errorf("repetition %d's run phase: %+v", r.Index, p)
		}
	}
}

func readResult(t *testing.T, dir string) *collect.Result {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, pipeline.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.Validate(raw); err != nil {
		t.Errorf("result.json does not match its schema: %v", err)
	}
	res, err := collect.ReadResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
