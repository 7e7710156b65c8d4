package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// NeedResults is needResults for a command that looks before it takes
// the run's lock (report: a refusal leaves the run directory untouched).
func (r *Run) NeedResults() error { return r.needResults() }

// needResults refuses a report of a run without result.json (exit 2),
// saying which stage makes it: collect when the agents measured anything
// (their records stay in the run directory after a teardown), else the
// stages not yet done.
func (r *Run) needResults() error {
	_, err := os.Stat(filepath.Join(r.dir, ResultFile))
	if !errors.Is(err, os.ErrNotExist) {
		return nil // there, or unreadable: rendering says which
	}
	id := filepath.Base(r.dir)
	rec := r.ledger.Record()
	benched := false
	for _, st := range rec.Steps {
		benched = benched || strings.HasPrefix(st.Name, "bench/")
	}
	var next string
	switch {
	case benched:
		next = fmt.Sprintf("ybbench collect --run %s merges the agents' records into it", id)
	case rec.State == RunTornDown || !r.ledger.Done("up"):
		next = fmt.Sprintf("nothing was measured: ybbench resume --run %s runs it", id)
	case !r.ledger.Done("install"):
		next = fmt.Sprintf("nothing was measured: ybbench install --run %s, then bench and collect", id)
	default:
		next = fmt.Sprintf("nothing was measured: ybbench bench --run %s, then ybbench collect --run %s", id, id)
	}
	return exitcode.Errorf(exitcode.Config, "run %s has no results yet (no %s): %s", id, ResultFile, next)
}
