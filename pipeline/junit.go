package pipeline

import (
	"fmt"
	"os"
	"path/filepath"

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
	if err := atomicfile.Write(filepath.Join(dir, verdict.JUnitFile), b, 0o644); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if copyTo != "" {
		// CI jobs name a reports directory that may not exist yet.
		if err := os.MkdirAll(filepath.Dir(copyTo), 0o755); err != nil {
			return fmt.Errorf("junit: --junit %s: %w", copyTo, err)
		}
		if err := atomicfile.Write(copyTo, b, 0o644); err != nil {
			return fmt.Errorf("junit: --junit %s: %w", copyTo, err)
		}
	}
	return nil
}
