package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

// StageFailures are the ledger's failed steps, in the order they were
// first begun: the JUnit report's errored test cases.
func StageFailures(rec RunRecord) []verdict.StageFailure {
	var out []verdict.StageFailure
	for _, st := range rec.Steps {
		if st.Status == StepFailed {
			out = append(out, verdict.StageFailure{Step: st.Name, Error: st.Error})
		}
	}
	return out
}

// WriteJUnit writes junit.xml into the run directory beside verdict.json,
// and a copy to copyTo when it is not empty (--junit): the file a CI
// system reads where its job expects it.
func WriteJUnit(dir string, v *verdict.Verdict, stages []verdict.StageFailure, warnMissing bool, copyTo string) error {
	b, err := verdict.JUnit(v, stages, warnMissing)
	if err != nil {
		return err
	}
	return writeJUnitFile(dir, b, copyTo)
}

// writeJUnitNotJudged writes junit.xml for a gated run that ended before
// a verdict: its failed stages as errors, the gates as skipped, the exit
// it ends with (JUnitNotJudged). Nothing when a verdict was written.
func (r *Run) writeJUnitNotJudged(exit int) error {
	if v, err := readVerdict(r.dir); err != nil || v != nil {
		return err
	}
	rec := r.ledger.Record()
	b, err := verdict.JUnitNotJudged(r.gate.File, r.spec.Profile, rec.ID, time.Now(), StageFailures(rec), exit)
	if err != nil {
		return err
	}
	return writeJUnitFile(r.dir, b, r.gate.JUnit)
}

// writeJUnitFile writes junit.xml into the run directory, and its copy.
func writeJUnitFile(dir string, b []byte, copyTo string) error {
	if err := atomicfile.Write(filepath.Join(dir, verdict.JUnitFile), b, 0o644); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if copyTo != "" {
		return WriteJUnitCopy(copyTo, b)
	}
	return nil
}

// WriteJUnitCopy writes a JUnit report to --junit's path (CI jobs name a
// reports directory that may not exist yet): the run's copy, or the only
// file of a run refused before its directory existed.
func WriteJUnitCopy(copyTo string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(copyTo), 0o755); err != nil {
		return fmt.Errorf("junit: --junit %s: %w", copyTo, err)
	}
	if err := atomicfile.Write(copyTo, b, 0o644); err != nil {
		return fmt.Errorf("junit: --junit %s: %w", copyTo, err)
	}
	return nil
}
