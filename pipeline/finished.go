package pipeline

import (
	"fmt"
	"path/filepath"
)

// FinishedError says that a run's work is over: it ended and was torn
// down. Nothing is left to resume, and the stages that work on hosts have
// none to work on; collect, report and status still read it.
type FinishedError struct {
	Dir string
	ID  string
}

func (e *FinishedError) Error() string {
	return fmt.Sprintf("run %s finished and torn down; nothing to resume (its report: %s; ybbench run starts a new run)",
		e.ID, filepath.Join(e.Dir, ReportFile))
}

// Finished returns a *FinishedError when the run's work is over: torn down
// after it succeeded (run or resume said so), or after every step of its
// work was done (a run driven stage by stage, which records no outcome).
// A run torn down after a failure is not finished: a resume reopens it and
// runs it whole, as the ledger's epochs allow.
func (r *Run) Finished() error {
	rec := r.ledger.Record()
	if rec.State != RunTornDown {
		return nil
	}
	if rec.Outcome == OutcomeSucceeded || (rec.Outcome == "" && r.workDoneIn(rec.Epoch-1)) {
		return &FinishedError{Dir: r.dir, ID: rec.ID}
	}
	return nil
}

// workSteps are the ledger steps of a run's whole work, in order.
func (r *Run) workSteps() []string {
	steps := []string{"up", "preflight", "install"}
	for _, ph := range r.Phases() {
		steps = append(steps, ph.stepName())
	}
	return append(steps, "collect", "report")
}

// workDoneIn reports whether every step of the run's work was done in the
// given epoch (the one a teardown closed: its steps were undone by it, but
// their results are kept in the run directory). Collect and report change
// nothing outside the run directory and may be redone after the teardown,
// in a later epoch.
func (r *Run) workDoneIn(epoch int) bool {
	if epoch < 0 {
		return false
	}
	done := map[string]bool{}
	for _, st := range r.ledger.Record().Steps {
		done[st.Name] = st.Status == StepDone && (st.Epoch == epoch || localSteps[st.Name] && st.Epoch > epoch)
	}
	for _, name := range r.workSteps() {
		if !done[name] {
			return false
		}
	}
	return true
}
