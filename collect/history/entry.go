package history

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect"
)

// Schema versions an entry document (an object store's file, an SQL
// store's entry column).
const Schema = "ybbench-history/1"

// Figures a series keeps: of the workload as a whole, and of each
// operation it measured.
var (
	WorkloadFigures  = []string{"throughput", "error_rate"}
	OperationFigures = []string{"throughput", "p50", "p99", "error_rate"}
)

// Build is the build under test a run measured.
type Build struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time,omitzero"`
}

// Entry is what one run adds to a history: the build it measured and,
// per series, each figure's values.
type Entry struct {
	Schema string `json:"schema"`
	RunID  string `json:"run_id"`
	Build  Build  `json:"build"`
	// Recorded is when the run was created.
	Recorded time.Time `json:"recorded"`
	Profile  string    `json:"profile"`
	// Report is the run's report.html as it was when the entry was made:
	// the trend page links to it where it can still be reached.
	Report string  `json:"report,omitempty"`
	Points []Point `json:"points"`
	// Skipped says what of the run was left out, and why.
	Skipped []string `json:"skipped,omitempty"`
}

// Point is one series' figures in one run: each figure's value in each
// repetition, in the order run (one value for a run not repeated).
type Point struct {
	Key     Key                  `json:"key"`
	Figures map[string][]float64 `json:"figures"`
}

// At is where a run stands in a series' order: its build's time when
// given, else when the run was made.
func (e *Entry) At() time.Time {
	if !e.Build.Time.IsZero() {
		return e.Build.Time
	}
	return e.Recorded
}

// BuildOf is the build a result measured: given names it (import's
// --build-id), else the result's own (run --build-id), else the database's
// flavor and version, which is what changes from one candidate to the next
// when nothing else says.
func BuildOf(r *collect.Result, given Build) Build {
	b := given
	if b.ID == "" && r.Build != nil {
		b.ID = r.Build.ID
	}
	if b.Time.IsZero() && r.Build != nil && r.Build.Time != nil {
		b.Time = *r.Build.Time
	}
	if b.ID == "" {
		if d := r.Database; d != nil && d.Version != "" {
			b.ID = d.Flavor + " " + d.Version
		} else if v := r.Versions["database"]; v != "" {
			b.ID = v
		}
	}
	return b
}

// FromResult is what a run adds to a history: each workload's figures,
// as a gate takes them (collect.PhaseFigure and the repetitions' spread),
// but for a workload whose measured phase did not complete or that was
// limited by its client (it measured the client, not the database: no
// baseline of anything), which are left out, saying why. A result with no
// build (no id given, no database version) is refused.
func FromResult(r *collect.Result, given Build) (*Entry, error) {
	e := &Entry{Schema: Schema, RunID: r.RunID, Build: BuildOf(r, given), Recorded: r.Created, Profile: r.Profile, Points: []Point{}}
	if e.RunID == "" {
		return nil, errors.New("the result has no run id")
	}
	if e.Build.ID == "" {
		return nil, fmt.Errorf("run %s: no build: the result names none and no database version; give --build-id", r.RunID)
	}
	base := keyBase(r)
	limited := collect.ClientLimited(r)
	for i := range r.Workloads {
		w := &r.Workloads[i]
		if why, ok := limited[w.Name]; ok {
			e.Skipped = append(e.Skipped, fmt.Sprintf("%s: limited by its client, so no baseline of the database: %s", w.Name, why))
			continue
		}
		p, why := completePhase(w)
		if why != "" {
			e.Skipped = append(e.Skipped, w.Name+": "+why)
			continue
		}
		for _, op := range append([]string{""}, collect.MeasuredOperations(p)...) {
			figs := OperationFigures
			if op == "" {
				figs = WorkloadFigures
			}
			pt := Point{Key: base, Figures: map[string][]float64{}}
			pt.Key.Workload, pt.Key.Operation = w.Name, op
			for _, f := range figs {
				if vs := figureValues(w, p, op, f); len(vs) > 0 {
					pt.Figures[f] = vs
				}
			}
			if len(pt.Figures) > 0 {
				e.Points = append(e.Points, pt)
			}
		}
	}
	return e, nil
}

// completePhase is a workload's measured phase when it, and every
// repetition's, completed; else why not.
func completePhase(w *collect.WorkloadResult) (*collect.PhaseResult, string) {
	for _, rep := range w.Repetitions {
		if p := collect.MeasuredPhaseOf(rep.Phases); p == nil || !p.Complete {
			return nil, fmt.Sprintf("repetition r%d's %s phase did not complete", rep.Index, collect.MeasuredPhase)
		}
	}
	p := collect.MeasuredPhaseOf(w.Phases)
	if p == nil || !p.Complete {
		return nil, fmt.Sprintf("its %s phase did not complete", collect.MeasuredPhase)
	}
	return p, ""
}

// figureValues are a figure's values: one per repetition, in the order
// run, or the phase's own; a figure some repetition lacks is left out
// (the median of fewer is not what was asked).
func figureValues(w *collect.WorkloadResult, p *collect.PhaseResult, op, figure string) []float64 {
	if len(w.Repetitions) == 0 {
		v, err := collect.PhaseFigure(w.Throughput, p, op, figure)
		if err != nil {
			return nil
		}
		return []float64{v}
	}
	var vs []float64
	for _, rep := range w.Repetitions {
		v, err := collect.PhaseFigure(rep.Throughput, collect.MeasuredPhaseOf(rep.Phases), op, figure)
		if err != nil {
			return nil
		}
		vs = append(vs, v)
	}
	return vs
}

// Worse reports whether a change from before to after worsens a figure:
// less throughput, more latency or errors.
func Worse(figure string, before, after float64) bool {
	if figure == "throughput" || strings.HasPrefix(figure, "max_sustainable") {
		return after < before
	}
	return after > before
}
