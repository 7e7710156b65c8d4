package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/verdict"
)

// ResultFile is the run directory's result, the page's first source.
const ResultFile = "result.json"

// Page is everything report.html shows, as data.
type Page struct {
	RunID   string
	Profile string
	Created time.Time
	// Verdict is the gates' table, nil when the run has no verdict.json.
	Verdict *Verdict
	// Parameters is the run's parameters and which were overridden.
	Parameters Table
	Workloads  []Workload
}

// Verdict is verdict.json's outcome and its gates as a table.
type Verdict struct {
	Outcome string
	Summary string
	Gates   Table
}

// Workload is one workload's section: its charts and tables.
type Workload struct {
	Name string
	// Repetitions is how many times it ran (0 when not repeated).
	Repetitions int
	// Spread is the repetitions' table: median, min–max and CV of each
	// figure; empty without repetitions.
	Spread Table
	// Published is the measured figures beside the published ones.
	Published Table
	Charts    []Chart
}

// Table is a table of text cells, as shown and as written to CSV.
type Table struct {
	Name    string // CSV file name stem
	Caption string
	Head    []string
	Rows    [][]string
}

// Build reads a run directory into a Page: result.json (required),
// verdict.json (when present), the agents' record files and the CPU files.
func Build(runDir string) (*Page, error) {
	raw, err := os.ReadFile(filepath.Join(runDir, ResultFile))
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	res, err := collect.ReadResult(raw)
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", filepath.Join(runDir, ResultFile), err)
	}
	v, err := readVerdict(filepath.Join(runDir, verdict.VerdictFile))
	if err != nil {
		return nil, err
	}
	p := &Page{RunID: res.RunID, Profile: res.Profile, Created: res.Created, Parameters: parametersTable(res)}
	if v != nil {
		p.Verdict = verdictOf(v)
	}
	var errs []error
	for i := range res.Workloads {
		w, err := workloadOf(runDir, &res.Workloads[i])
		if err != nil {
			errs = append(errs, err)
		}
		p.Workloads = append(p.Workloads, w)
	}
	return p, errors.Join(errs...)
}

// readVerdict reads verdict.json; nil when the run has none (no gates).
func readVerdict(path string) (*verdict.Verdict, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var v verdict.Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	return &v, nil
}

// workloadOf builds a workload's section; a record or CPU file it cannot
// read is reported and the rest is drawn.
func workloadOf(runDir string, w *collect.WorkloadResult) (Workload, error) {
	out := Workload{Name: w.Name, Repetitions: len(w.Repetitions),
		Spread: spreadTable(w), Published: publishedTable(w)}
	runs, err := timeSeriesOf(runDir, w)
	out.Charts = append(out.Charts, throughputChart(w.Name, runs), latencyChart(w.Name, runs))
	spec, serr := spectrumChart(runDir, w)
	out.Charts = append(out.Charts, spec)
	cpu, cerr := cpuChart(runDir, w.Name)
	out.Charts = append(out.Charts, cpu)
	return out, errors.Join(err, serr, cerr)
}
