package pipeline

import (
	"math"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect/sweep"
	"github.com/ybbench/ybbench/pipeline/agentrun"
)

// A sweep step's agents are given the step's rate, its warm-up and its
// time (twice as long when extended), with the run's operation count raised
// so that the time ends the step; the run phase itself keeps the run's
// duration and count and has no warm-up.
func TestSweepStepInput(t *testing.T) {
	s := sweepSpec("ycsb-ysql", "workloadc")
	d, ops := 30*time.Second, int64(1000)
	s.Duration, s.Operations = &d, &ops
	s.SweepStep, s.SweepWarmup = 12*time.Second, 3*time.Second
	r := &Run{dir: t.TempDir(), spec: mustResolve(t, s)}
	f := &sweep.File{Workload: "workloadc", Saturation: 5000, Steps: []sweep.Planned{
		{Index: 1, Kind: sweep.KindFraction, Target: 2500},
		{Index: 2, Kind: sweep.KindFraction, Target: 2500, Extended: true},
	}}
	if err := sweep.Write(r.dir, f); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ph               Phase
		target           float64
		duration, warmup time.Duration
		operations       int64
	}{
		{Phase{Workload: "workloadc", Phase: agentrun.Run}, 0, 30 * time.Second, 0, 1000},
		{Phase{Workload: "workloadc", Phase: agentrun.Run, Sweep: 1}, 2500, 12 * time.Second, 3 * time.Second, int64(math.Ceil(2500 * 12 * 2))},
		{Phase{Workload: "workloadc", Phase: agentrun.Run, Sweep: 2}, 2500, 24 * time.Second, 3 * time.Second, int64(math.Ceil(2500 * 24 * 2))},
	} {
		in := r.agentInput(tc.ph, 1, "", time.Time{})
		if in.TargetOpsPerSec != tc.target || in.Params.Duration != tc.duration || in.StepWarmup != tc.warmup || in.Params.Operations != tc.operations {
			t.Errorf("%+v: target %v, duration %v, warm-up %v, operations %d; want %v, %v, %v, %d", tc.ph,
				in.TargetOpsPerSec, in.Params.Duration, in.StepWarmup, in.Params.Operations, tc.target, tc.duration, tc.warmup, tc.operations)
		}
	}
	// Without sweep_step, a step is the run's duration, at most 45 s.
	for _, tc := range []struct{ run, step time.Duration }{{30 * time.Second, 30 * time.Second}, {3 * time.Minute, 45 * time.Second}} {
		s := sweepSpec("ycsb-ysql", "workloadc")
		s.Duration = &tc.run
		if got := mustResolve(t, s).sweepStepTime(); got != tc.step {
			t.Errorf("a run of %v: steps of %v, want %v", tc.run, got, tc.step)
		}
	}
}

// With repetitions, each repetition's sweep has its own plan, ledger
// steps and files: step 1 of repetition 2's sweep is paced at its own
// plan's target, not repetition 1's.
func TestRepetitionSweepNames(t *testing.T) {
	s := sweepSpec("ycsb-ysql", "workloadc")
	s.Repeat = 2
	r := &Run{dir: t.TempDir(), spec: mustResolve(t, s)}
	for k, target := range map[int]float64{1: 1000, 2: 3000} {
		f := &sweep.File{Workload: "workloadc", Repetition: k, Saturation: target, Steps: []sweep.Planned{{Index: 1, Kind: sweep.KindFraction, Target: target}}}
		if err := sweep.Write(r.dir, f); err != nil {
			t.Fatal(err)
		}
	}
	ph := Phase{Workload: "workloadc", Phase: agentrun.Run, Rep: 2, Sweep: 1}
	if got := r.agentInput(ph, 1, "", time.Time{}).TargetOpsPerSec; got != 3000 {
		t.Errorf("repetition 2's step 1 paced at %v ops/s, want its own plan's 3000", got)
	}
	if ph.stepName() != "bench/workloadc/r2/sweep/1" || ph.fileBase() != "workloadc-r2-s1-run" || r.phaseName(ph) != "workloadc r2/2 sweep step 1" {
		t.Errorf("step %q, files %q, named %q", ph.stepName(), ph.fileBase(), r.phaseName(ph))
	}
	if ph := (Phase{Workload: "workloadc", Phase: agentrun.Run, Sweep: 4}); ph.stepName() != "bench/workloadc/sweep/4" || ph.fileBase() != "workloadc-s4-run" {
		t.Errorf("without repetitions: step %q, files %q", ph.stepName(), ph.fileBase())
	}
}
