package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/verdict"
)

// ResultFile is the run directory's result, the page's first source.
const ResultFile = "result.json"

// Page is everything report.html shows, as data.
type Page struct {
	RunID   string
	Profile string
	Created time.Time
	// Caveats are result.json's caveats, shown above every figure: what
	// the reader must know first (the same list report.md opens with).
	Caveats []collect.Caveat
	// Reproduction is the verdict on each published row (nil without a
	// published table); Limits what limited each workload, and
	// LimitRules the rules that said so.
	Reproduction *collect.Reproduction
	Limits       []collect.LimitLine
	LimitRules   []string
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
	// Problems are the record or CPU files that could not be read (the
	// collector reported them too); the charts show what could be.
	Problems []string
}

// Table is a table of text cells, as shown and as written to CSV.
type Table struct {
	Name    string // CSV file name stem
	Caption string
	Head    []string
	Rows    [][]string
}

// Build reads a run directory into a Page: result.json (required),
// verdict.json (when present), series.json (what collect took from the
// agents' records for the charts; the records themselves for a run
// collected before it) and the CPU files. Only an unreadable result or
// verdict is an error: a record or CPU file that cannot be read is named
// in its workload's Problems and the rest of the page is drawn, as the
// collector merged the rest.
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
	p := &Page{RunID: res.RunID, Profile: res.Profile, Created: res.Created, Caveats: collect.CaveatsOf(res), Parameters: parametersTable(res),
		Reproduction: res.Reproduction}
	p.Limits, p.LimitRules = collect.LimitLines(res)
	if v != nil {
		p.Verdict = verdictOf(v)
	}
	// A series.json that cannot be drawn from (another schema, cut off)
	// is passed over: the records it was made from are drawn from
	// instead, as for a run collected before collect wrote it.
	series, _ := collect.ReadSeries(runDir)
	// The workloads are built side by side: a page drawn from the records
	// (a run collected before series.json) decodes every tick's
	// histogram, and that is its cost.
	p.Workloads = make([]Workload, len(res.Workloads))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range res.Workloads {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			p.Workloads[i] = workloadOf(runDir, &res.Workloads[i], series)
		})
	}
	wg.Wait()
	return p, nil
}

// readVerdict reads verdict.json, checked against its schema; nil when
// the run has none (no gates).
func readVerdict(path string) (*verdict.Verdict, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := verdict.Validate(b); err != nil {
		return nil, fmt.Errorf("report: %s does not match %s: %w", path, verdict.Schema, err)
	}
	var v verdict.Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	return &v, nil
}

// workloadOf builds a workload's section; a record or CPU file it cannot
// read is named in its problems and the rest is drawn.
func workloadOf(runDir string, w *collect.WorkloadResult, series *collect.Series) Workload {
	out := Workload{Name: w.Name, Repetitions: len(w.Repetitions),
		Spread: spreadTable(w), Published: publishedTable(w)}
	runs, err := timeSeriesOf(runDir, w, series)
	out.Charts = append(out.Charts, throughputChart(w.Name, runs), latencyChart(w.Name, runs))
	out.Charts = append(out.Charts, spectrumChart(w, runs))
	cpu, cerr := cpuChart(runDir, w)
	out.Charts = append(out.Charts, cpu)
	if c, ok := sweepChart(w); ok {
		out.Charts = append(out.Charts, c)
	}
	for _, e := range []error{err, cerr} {
		if e != nil {
			out.Problems = append(out.Problems, e.Error())
		}
	}
	return out
}
