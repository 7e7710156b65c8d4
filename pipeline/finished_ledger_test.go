package pipeline

import (
	"errors"
	"testing"
)

// A run driven stage by stage records no outcome: it is finished when
// every step of its work was done before its teardown, and stays finished
// when its report is rendered again; a run torn down earlier is not.
func TestFinishedFromTheLedger(t *testing.T) {
	for _, c := range []struct {
		name     string
		steps    []string // done before the teardown
		after    []string // done after it
		finished bool
	}{
		{"every step", nil, nil, true},
		{"report rendered again", nil, []string{"report"}, true},
		{"up only", []string{"up", "preflight"}, nil, false},
		{"no report", []string{"up", "preflight", "install", "bench/workloada/load", "collect"}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRun(t, func(s *Spec) { s.Workloads = []string{"workloada"} }, Deps{})
			steps := c.steps
			if steps == nil {
				steps = r.workSteps()
			}
			for _, s := range steps {
				r.ledger.Begin(s, "", nil)
				r.ledger.End(s, nil, nil)
			}
			if err := r.ledger.SetState(RunTornDown, nil); err != nil {
				t.Fatal(err)
			}
			for _, s := range c.after {
				r.ledger.Begin(s, "", nil)
				r.ledger.End(s, nil, nil)
			}
			var fe *FinishedError
			if got := errors.As(r.Finished(), &fe); got != c.finished {
				t.Errorf("finished %v, want %v (steps %v)", got, c.finished, r.ledger.Record().Steps)
			}
		})
	}
}
