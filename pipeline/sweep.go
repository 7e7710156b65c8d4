package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/sweep"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/record/repetition"
)

// sweepWorkload runs a throughput–latency sweep after the run phase run
// (of a workload, or of one repetition of it), on the same cluster and
// table: open-model steps whose targets the plan (collect/sweep) gives
// from the steps done so far, each a run phase of its own (ledger step
// bench/<w>[/r<k>]/sweep/<j>, files <w>[-r<k>]-s<j>-run). The saturation
// throughput is that run phase's, so each repetition's sweep is a sweep
// of its own, and the repetitions' knees say how well two sweeps of one
// cluster agree. Each step is written to runs/<id>/sweep/<w>[-r<k>].json
// before it runs, so that a resumed sweep redoes an unfinished step with
// the same target and goes on from there.
func (r *Run) sweepWorkload(ctx, stop context.Context, run Phase, clients []infra.Host) error {
	w, stem := run.Workload, repetition.Stem(run.Workload, run.Rep)
	f, err := sweep.Read(r.dir, stem)
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	if f == nil {
		plan, err := r.spec.sweepPlan()
		if err != nil {
			return exitcode.Wrap(exitcode.Config, err)
		}
		files, err := collect.AgentFiles(r.dir, stem, agentrun.Run)
		if err != nil || len(files) == 0 {
			return exitcode.Errorf(exitcode.Workload, "sweep of %s: the run phase's records cannot be read: %v", w, err)
		}
		merged, err := collect.Merge(files)
		if err != nil {
			return exitcode.Wrap(exitcode.Workload, fmt.Errorf("sweep of %s: %w", w, err))
		}
		f = &sweep.File{Workload: w, Repetition: run.Rep, Saturation: merged.Throughput, Fractions: plan.Fractions, SLOP99: plan.SLOP99, Resolution: plan.Resolution}
	}
	if f.Saturation <= 0 {
		return exitcode.Errorf(exitcode.Workload, "sweep of %s: the run phase measured no throughput to take fractions of", w)
	}
	plan := f.Plan()
	for {
		_, steps, err := collect.SweepSteps(r.dir, stem)
		if err != nil {
			return exitcode.Wrap(exitcode.Workload, fmt.Errorf("sweep of %s: %w", w, err))
		}
		// The steps that stand are those the ledger says finished: a step
		// cut off is planned again (the same target, from the same steps).
		done := 0
		for done < len(steps) && done < len(f.Steps) && r.ledger.Done(Phase{Workload: w, Phase: agentrun.Run, Rep: run.Rep, Sweep: f.Steps[done].Index}.stepName()) {
			done++
		}
		steps, f.Steps = steps[:done], f.Steps[:done]
		if len(steps) > 0 && plan.SLOP99 > 0 && steps[0].P50 > plan.SLOP99 {
			return exitcode.Errorf(exitcode.Config, "slo_p99 %v is below the p50 of the sweep's lowest step (%v): no step could meet it",
				time.Duration(plan.SLOP99)*time.Microsecond, time.Duration(steps[0].P50)*time.Microsecond)
		}
		target, kind, extend, more := plan.Next(steps)
		if !more {
			return nil
		}
		if len(f.Steps) >= plan.MaxSteps() {
			return exitcode.Errorf(exitcode.Workload, "sweep of %s: no knee after %d steps", w, len(f.Steps))
		}
		if stop.Err() != nil || ctx.Err() != nil {
			return exitcode.Errorf(exitcode.Workload, "interrupted before step %d of the sweep of %s", len(f.Steps)+1, w)
		}
		step := sweep.Planned{Index: len(f.Steps) + 1, Kind: kind, Target: target, Extended: extend}
		f.Steps = append(f.Steps, step)
		if err := sweep.Write(r.dir, f); err != nil {
			return exitcode.Wrap(exitcode.Tool, err)
		}
		if err := r.runPhase(ctx, Phase{Workload: w, Phase: agentrun.Run, Rep: run.Rep, Sweep: step.Index}, clients); err != nil {
			return err
		}
	}
}

// sweepStepOf is a sweep step's plan, as agentInput gives it to the
// agents (false for a phase that is no sweep step, or one not planned).
func (r *Run) sweepStepOf(ph Phase) (sweep.Planned, bool) {
	if ph.Sweep == 0 {
		return sweep.Planned{}, false
	}
	f, err := sweep.Read(r.dir, repetition.Stem(ph.Workload, ph.Rep))
	if err != nil || f == nil {
		return sweep.Planned{}, false
	}
	for _, s := range f.Steps {
		if s.Index == ph.Sweep {
			return s, true
		}
	}
	return sweep.Planned{}, false
}
