// Package compare puts the figures of several runs side by side: each
// figure of the measured phase (throughput, error rate, mean, p50, p95,
// p99, p99.9, max per workload and operation) with its ratio to the first
// run's, flagged when the difference is more than the runs' own spread.
// It reads results, never a live run, and renders Markdown, JSON or CSV.
package compare

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/verdict"
)

// Key names one figure: a workload's metric, of one operation or, with
// Operation "", of the workload as a whole (its throughput and error rate).
type Key struct {
	Workload  string
	Operation string
	Metric    string
}

// Run is one side of a comparison: what it ran and, per figure, the
// figure's values over its repetitions (one value per repetition).
type Run struct {
	ID         string
	Source     string // the result.json it was read from
	Profile    string
	Flavor     string
	Parameters map[string]string
	// Repetitions is how many times each workload ran.
	Repetitions int
	Figures     map[Key][]float64
	// Order is the run's figures in its result's order.
	Order []Key
	// Notes say which of its figures are left out, and why.
	Notes []string
}

// workloadMetrics are the figures of a workload as a whole, operationMetrics
// those of each operation (verdict.Metrics, every one a gate can take).
var (
	workloadMetrics  = collect.WorkloadMetrics
	operationMetrics = collect.Metrics
)

// FromResult is a result's figures: for a repeated workload (--repeat N)
// each figure's values over its repetitions, as its spread holds them;
// else one value each. A workload whose measured phase did not complete
// has none: its numbers are not the workload's, and a note says so.
func FromResult(source string, r *collect.Result) Run {
	run := Run{ID: r.RunID, Source: source, Profile: r.Profile, Flavor: verdict.Flavor(r), Parameters: r.Parameters,
		Repetitions: 1, Figures: map[Key][]float64{}}
	for _, w := range r.Workloads {
		run.Repetitions = max(run.Repetitions, len(w.Repetitions))
	}
	for _, w := range r.Workloads {
		if _, err := verdict.Figure(r, w.Name, "", "throughput"); err != nil {
			run.Notes = append(run.Notes, fmt.Sprintf("%s: left out: %v", w.Name, err))
			continue
		}
		add := func(k Key) {
			if sp := w.FindSpread(k.Operation, k.Metric); len(w.Repetitions) > 0 && sp != nil && len(sp.Values) > 0 {
				run.Figures[k] = slices.Clone(sp.Values)
				run.Order = append(run.Order, k)
				return
			}
			v, err := verdict.Figure(r, k.Workload, k.Operation, k.Metric)
			if err != nil {
				return // a figure the run lacks is shown as such
			}
			run.Figures[k] = []float64{v}
			run.Order = append(run.Order, k)
		}
		for _, m := range workloadMetrics {
			add(Key{Workload: w.Name, Metric: m})
		}
		for _, op := range verdict.Operations(r, w.Name) {
			for _, m := range operationMetrics {
				add(Key{Workload: w.Name, Operation: op, Metric: m})
			}
		}
	}
	return run
}

// ReadRun reads a result.json. Its errors name the file: one that is not
// there, or that is not a result of this version of ybbench.
func ReadRun(path string) (Run, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Run{}, fmt.Errorf("%s: no such file (a run without results: collect it first)", path)
	}
	if err != nil {
		return Run{}, err
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return FromResult(path, r), nil
}
