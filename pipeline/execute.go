package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// TeardownTimeout bounds teardown where the provider sets no limit of its
// own (infra.Traits.TeardownLimit); it runs on its own context, so a
// cancelled run still tears down.
const TeardownTimeout = 10 * time.Minute

// TearDown runs Down on a context of its own, bounded by the provider's
// teardown limit (else TeardownTimeout), so that a cancelled run still
// tears down.
func (r *Run) TearDown() error {
	limit := TeardownTimeout
	if p, ok := r.deps.registry().Provider(r.spec.Provider); ok && p.Traits.TeardownLimit > 0 {
		limit = p.Traits.TeardownLimit
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	return r.Down(ctx)
}

// Execute runs every stage not yet done, in order, and always tears down
// (on success, on any stage's failure, on cancellation). stop is the soft
// stop (first Ctrl-C: stages end, agents write what they measured, results
// are collected); hard cancels everything but teardown (second Ctrl-C).
//
// A finished run (Finished) is refused before anything is written: its
// results stay as they are, and no host of it is reached.
func (r *Run) Execute(hard, stop context.Context) (err error) {
	if err := r.Finished(); err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	defer func() {
		outcome := OutcomeSucceeded
		if err != nil {
			outcome = OutcomeFailed
		}
		if lerr := r.ledger.SetOutcome(outcome); lerr != nil {
			err = errors.Join(err, exitcode.Wrap(exitcode.Tool, lerr))
		}
		derr := r.TearDown()
		if derr != nil && r.gate != nil {
			// The verdict came before the teardown: its JUnit report is
			// written again so that a CI system sees the failed teardown
			// as an errored test case too.
			err = errors.Join(err, r.rewriteJUnit())
		}
		err = withTeardown(err, derr)
		if err != nil && r.gate != nil {
			// A run that ended before its verdict (up, install or bench
			// failed, or it was stopped) still leaves junit.xml, naming
			// the failed stage and the exit, for the CI job that reads it.
			if jerr := r.writeJUnitNotJudged(exitcode.Of(err)); jerr != nil {
				err = errors.Join(err, exitcode.Wrap(exitcode.Tool, jerr))
			}
		}
		r.progress().Close()
	}()
	// Infrastructure stages end at once on either stop.
	ctx, cancel := context.WithCancel(hard)
	defer cancel()
	go func() {
		select {
		case <-stop.Done():
			if !r.ledger.Done("install") {
				cancel()
			}
		case <-ctx.Done():
		}
	}()
	for _, st := range []struct {
		name string
		fn   func(context.Context) error
	}{{"up", r.Up}, {"preflight", r.Preflight}, {"install", r.Install}} {
		if r.ledger.Done(st.name) {
			continue
		}
		if err := st.fn(ctx); err != nil {
			return interrupted(stop, err)
		}
	}
	benchErr := r.Bench(hard, stop)
	if hard.Err() != nil {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("aborted: %w", errors.Join(benchErr, hard.Err())))
	}
	// Collect and report what was measured even after a failed or
	// interrupted bench stage.
	if err := r.Collect(hard); err != nil && benchErr == nil {
		benchErr = err
	}
	// Complete results join the history, before a gate on it reads it.
	if benchErr == nil {
		benchErr = r.addToHistory(hard)
	}
	// The gates judge complete results only: a stage's failure keeps its
	// own exit (the verdict is still written), and teardown, after this,
	// wins over a failed gate when it is incomplete. The verdict comes
	// before the report, which shows it first.
	var verdictErr error
	if r.gate != nil {
		verdictErr = r.judge(hard, benchErr == nil)
	}
	if err := r.Report(hard); err != nil && benchErr == nil {
		benchErr = err
	}
	if verdictErr != nil && benchErr == nil {
		benchErr = verdictErr
	}
	return benchErr
}

func interrupted(stop context.Context, err error) error {
	if stop.Err() != nil {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("interrupted: %w", err))
	}
	return err
}

// withTeardown joins a teardown error to the run's. What is left running
// costs money, so an incomplete teardown's exit code (6) wins over the
// stage's.
func withTeardown(err, derr error) error {
	if derr == nil {
		return err
	}
	if exitcode.Of(derr) == exitcode.Teardown {
		return errors.Join(derr, err)
	}
	return errors.Join(err, derr)
}
