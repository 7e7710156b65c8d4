package verdict

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/collect"
)

// Baseline gives the figure a gate's ratio is a ratio of, or why there is
// none (the gate then cannot be evaluated).
type Baseline interface {
	Value(workload, operation, metric string) (float64, error)
	// Info describes the baseline for verdict.json.
	Info() BaselineInfo
}

// BaselineInfo is the baseline as verdict.json states it.
type BaselineInfo struct {
	Source string `json:"source"`
	// Path is the previous run's directory or the results directory.
	Path string `json:"path,omitempty"`
	// Runs are the run ids the baseline was taken from (history: the
	// median's).
	Runs []string `json:"runs,omitempty"`
	// Problem is why no figure of it can be used, when none can.
	Problem string `json:"problem,omitempty"`
}

// Published is the profile's published table, as the result holds it.
type Published struct{ Result *collect.Result }

// Value is the published row's figure: its throughput (of the workload as
// a whole), or a latency column of the operation that is the statistic
// asked for (the columns are means or p95s, so a p99 gate has no row).
func (p Published) Value(workload, operation, metric string) (float64, error) {
	b := p.Result.Baseline
	if b == nil {
		return 0, errors.New("the profile has no published table")
	}
	if !b.Consistent {
		return 0, fmt.Errorf("the profile's published table is not self-consistent (%s)", strings.Join(b.Inconsistencies, "; "))
	}
	row := b.Row(workload)
	if row == nil {
		return 0, fmt.Errorf("the published table has no row for %s", workload)
	}
	switch {
	case metric == "throughput" && operation == "":
		return row.Throughput, nil
	case metric == "throughput":
		return 0, fmt.Errorf("the published table has no throughput of %s alone", operation)
	case metric == "error_rate":
		return 0, errors.New("the published table has no error rate")
	}
	var have []string
	for _, l := range row.Latencies {
		if l.Op == operation && l.Statistic == metric {
			return l.MS * 1000, nil
		}
		have = append(have, l.Statistic+" "+l.Op)
	}
	return 0, fmt.Errorf("the published row of %s has no %s %s (it has %s)", workload, metric, operation, strings.Join(have, ", "))
}

// Info describes the published table.
func (p Published) Info() BaselineInfo {
	i := BaselineInfo{Source: SourcePublished}
	if b := p.Result.Baseline; b == nil {
		i.Problem = "the profile has no published table"
	} else if !b.Consistent {
		i.Problem = "the profile's published table is not self-consistent"
	}
	return i
}

// Run is a previous run's result.json.
type Run struct {
	Dir    string
	Result *collect.Result
}

// Value is the previous run's figure, measured as the gated run's is.
func (r Run) Value(workload, operation, metric string) (float64, error) {
	if why := clientLimited(r.Result, workload); why != "" {
		return 0, errors.New(why)
	}
	v, _, err := measure(r.Result, workload, operation, metric)
	return v, err
}

// Info describes the previous run.
func (r Run) Info() BaselineInfo {
	return BaselineInfo{Source: SourceRun, Path: r.Dir, Runs: []string{r.Result.RunID}}
}

// ReadRun reads the result.json of a previous run's directory.
func ReadRun(dir string) (Run, error) {
	r, err := readResult(filepath.Join(dir, "result.json"))
	if err != nil {
		return Run{}, err
	}
	return Run{Dir: dir, Result: r}, nil
}

func readResult(path string) (*collect.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// History is the median of the last runs in a results directory that had
// the gated run's profile, parameters and flavor.
type History struct {
	Dir     string
	Results []*collect.Result
	// Skipped says why runs of the directory were left out.
	Skipped []string
}

// Value is the median of the figure over the history's runs; a run that
// lacks it is left out of the median.
func (h History) Value(workload, operation, metric string) (float64, error) {
	if len(h.Results) == 0 {
		return 0, fmt.Errorf("no run in %s has this run's profile, parameters and flavor", h.Dir)
	}
	var vals []float64
	var errs []error
	for _, r := range h.Results {
		if why := clientLimited(r, workload); why != "" {
			errs = append(errs, errors.New(why))
			continue
		}
		v, _, err := measure(r, workload, operation, metric)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return 0, errors.Join(errs...)
	}
	return median(vals), nil
}

// Info describes the history.
func (h History) Info() BaselineInfo {
	i := BaselineInfo{Source: SourceHistory, Path: h.Dir}
	for _, r := range h.Results {
		i.Runs = append(i.Runs, r.RunID)
	}
	if len(h.Results) == 0 {
		i.Problem = fmt.Sprintf("no run in %s has this run's profile, parameters and flavor", h.Dir)
	}
	return i
}

// ReadHistory reads the result.json of each run directory in dir (dir/*/
// result.json, or result files directly in it) and keeps the last of
// those comparable with r — same profile, parameters and flavor, not r
// itself — by creation time.
func ReadHistory(dir string, last int, r *collect.Result) (History, error) {
	h := History{Dir: dir}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "result.json"))
	if err != nil {
		return h, err
	}
	direct, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	paths = append(paths, direct...)
	var keep []*collect.Result
	for _, p := range paths {
		c, err := readResult(p)
		if err != nil {
			h.Skipped = append(h.Skipped, err.Error())
			continue
		}
		if why := incomparable(r, c); why != "" {
			h.Skipped = append(h.Skipped, fmt.Sprintf("%s: %s", p, why))
			continue
		}
		keep = append(keep, c)
	}
	sort.SliceStable(keep, func(i, j int) bool { return keep[i].Created.Before(keep[j].Created) })
	if len(keep) > last {
		keep = keep[len(keep)-last:]
	}
	h.Results = keep
	return h, nil
}

// clientLimited says why a run's workload is no baseline: its result was
// limited by its client, so it measured the client ("" when it was not).
func clientLimited(r *collect.Result, workload string) string {
	if s, ok := collect.ClientLimited(r)[workload]; ok {
		return fmt.Sprintf("run %s's %s is no baseline: %s (it measured its client, not the database)", r.RunID, workload, s)
	}
	return ""
}

// incomparable says why c is no baseline for r ("" when it is one).
func incomparable(r, c *collect.Result) string {
	switch {
	case c.RunID == r.RunID:
		return "the gated run itself"
	case c.Profile != r.Profile:
		return fmt.Sprintf("profile %s, not %s", c.Profile, r.Profile)
	case flavorOf(c) != flavorOf(r):
		return fmt.Sprintf("flavor %s, not %s", flavorOf(c), flavorOf(r))
	case !maps.Equal(c.Parameters, r.Parameters):
		return "other parameters"
	}
	return ""
}

func flavorOf(r *collect.Result) string {
	if r.Database != nil {
		return r.Database.Flavor
	}
	return r.Parameters["flavor"]
}

// median is the middle value, the mean of the two middle ones for an even count.
func median(v []float64) float64 { return collect.Median(v) }

// BaselineFor reads the baseline the gate file names, for result r (nil
// when no gate has a ratio and the file names none). storeURL is the
// history store a series baseline reads when the file names none (the
// run's history_url; "" the default store).
func BaselineFor(ctx context.Context, f *File, r *collect.Result, storeURL string) (Baseline, error) {
	if f.Baseline.FromStore() {
		h, err := ReadStoreHistory(ctx, f.Baseline, storeURL, r)
		if err != nil {
			return nil, &Error{File: f.Path, Line: f.Baseline.Line, Field: "baseline.history", Msg: err.Error()}
		}
		return h, nil
	}
	switch f.Baseline.Source {
	case SourcePublished:
		return Published{Result: r}, nil
	case SourceRun:
		b, err := ReadRun(f.Baseline.Dir)
		if err != nil {
			return nil, &Error{File: f.Path, Line: f.Baseline.Line, Field: "baseline.run", Msg: err.Error()}
		}
		return b, nil
	case SourceHistory:
		h, err := ReadHistory(f.Baseline.Dir, f.Baseline.Last, r)
		if err != nil {
			return nil, &Error{File: f.Path, Line: f.Baseline.Line, Field: "baseline.history", Msg: err.Error()}
		}
		return h, nil
	}
	return nil, nil
}
