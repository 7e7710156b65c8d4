package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// Gate is a gate file a run's results are judged by once collected
// (run --gate): verdict.json is written beside result.json.
type Gate struct {
	File *verdict.File
	// WarnMissing: a gate that cannot be evaluated is warned of, not a
	// failure (--gate-missing=warn).
	WarnMissing bool
	// JUnit is where a copy of junit.xml goes (--junit), if anywhere.
	JUnit string
}

// CheckGate checks a gate file against the run's profile before the run
// is created, and opens the history store a series baseline reads: every
// problem is bad configuration, naming its line.
func CheckGate(ctx context.Context, s *Resolved, f *verdict.File) error {
	if s == nil || s.P == nil {
		return nil // the settings' own refusal says why
	}
	err := f.Check(verdict.ScopeOf(s.P))
	if f.Baseline.FromStore() {
		url := f.Baseline.URL
		if url == "" {
			url = s.HistoryURL
		}
		if st, serr := history.Open(ctx, url); serr != nil {
			err = errors.Join(err, &verdict.Error{File: f.Path, Line: f.Baseline.Line, Field: "baseline.history", Msg: serr.Error()})
		} else {
			st.Close()
		}
	}
	return exitcode.Wrap(exitcode.Config, err)
}

// SetGate makes Execute judge the results by g once they are collected.
func (r *Run) SetGate(g *Gate) { r.gate = g }

// judge writes verdict.json from result.json, and junit.xml with the
// stages that failed so far. Only when every stage
// succeeded (stagesOK) is the verdict the run's exit: a failed gate is
// exit 99 then, and a measured phase that did not finish exit 5; after a
// stage's failure the verdict is written for the record and the stage's
// exit stands.
func (r *Run) judge(ctx context.Context, stagesOK bool) error {
	b, err := os.ReadFile(filepath.Join(r.dir, ResultFile))
	if errors.Is(err, os.ErrNotExist) && !stagesOK {
		return nil // nothing was collected to judge
	}
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("gate: %w", err))
	}
	res, err := collect.ReadResult(b)
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("gate: %w", err))
	}
	base, err := verdict.BaselineFor(ctx, r.gate.File, res, r.spec.HistoryURL)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, fmt.Errorf("gate: %w", err))
	}
	v := verdict.Evaluate(r.gate.File, res, base, time.Now())
	if err := verdict.Write(filepath.Join(r.dir, verdict.VerdictFile), v); err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("gate: %w", err))
	}
	if err := WriteJUnit(r.dir, v, StageFailures(r.ledger.Record()), r.gate.WarnMissing, r.gate.JUnit); err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("gate: %w", err))
	}
	r.progress().Note(fmt.Sprintf("verdict: %s (%d passed, %d failed, %d could not be evaluated): %s",
		v.Outcome, v.Passed, v.Failed, v.CannotEvaluate, filepath.Join(r.dir, verdict.VerdictFile)))
	if !stagesOK {
		return nil
	}
	return VerdictError(v, r.gate.WarnMissing)
}

// VerdictError is a verdict's exit: Workload when the results are not
// complete (their numbers are no verdict), Gate when a gate failed or
// could not be evaluated (unless warnMissing), nil otherwise.
func VerdictError(v *verdict.Verdict, warnMissing bool) error {
	switch {
	case !v.Complete:
		return exitcode.Errorf(exitcode.Workload, "the results are incomplete, so the gates are no verdict: %s", strings.Join(v.Incomplete, "; "))
	case v.Gated(warnMissing):
		return exitcode.Errorf(exitcode.Gate, "gates: %d failed, %d could not be evaluated, %d passed", v.Failed, v.CannotEvaluate, v.Passed)
	}
	return nil
}

// rewriteJUnit writes junit.xml again from verdict.json and every stage
// the ledger records as failed by now (the teardown among them); nothing
// when no verdict was written.
func (r *Run) rewriteJUnit() error {
	v, err := readVerdict(r.dir)
	if err != nil || v == nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	return exitcode.Wrap(exitcode.Tool, WriteJUnit(r.dir, v, StageFailures(r.ledger.Record()), r.gate.WarnMissing, r.gate.JUnit))
}
