package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/ybbench/ybbench/collect/verdict"
)

// Schema versions the JSON form of a comparison.
const Schema = "ybbench-compare/1"

// Tolerance is how far a figure's ratio may be from 1 where a run has one
// repetition (no spread of its own to judge the difference by).
const Tolerance = 0.10

// Rule is the flagging rule, as the table states it.
var Rule = fmt.Sprintf("A figure is flagged (⚑) when, the run and A having several repetitions each, "+
	"their min–max ranges do not overlap; or, where either has one repetition, when its ratio to A is off by more than %.0f%% "+
	"(below %.2f or above %.2f). Each run's figure is its median over its repetitions; the ratio is that median ÷ A's.",
	Tolerance*100, 1-Tolerance, 1+Tolerance)

// Comparison is several runs' figures side by side, each with its ratio
// to the first run's.
type Comparison struct {
	Schema string    `json:"schema"`
	Runs   []RunInfo `json:"runs"`
	Rule   string    `json:"rule"`
	// Differences say how the runs differ in what they ran (profile,
	// flavor, parameters): they are compared anyway.
	Differences []string `json:"differences,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	Figures     []Row    `json:"figures"`
	// Flagged counts the rows with a flagged figure.
	Flagged int `json:"flagged"`
}

// RunInfo is a run as the comparison names it.
type RunInfo struct {
	Label       string `json:"label"` // A, B, …
	ID          string `json:"run_id"`
	Source      string `json:"source"`
	Profile     string `json:"profile"`
	Flavor      string `json:"flavor,omitempty"`
	Repetitions int    `json:"repetitions"`
}

// Row is one figure in every run.
type Row struct {
	Workload  string `json:"workload"`
	Operation string `json:"operation,omitempty"`
	Metric    string `json:"metric"`
	Unit      string `json:"unit"`
	Runs      []Cell `json:"runs"` // in the runs' order
	Flagged   bool   `json:"flagged,omitempty"`
}

// Cell is a figure of one run: absent (Values empty) when the run lacks it.
type Cell struct {
	Values []float64 `json:"values"` // over its repetitions
	Median *float64  `json:"median,omitempty"`
	Min    *float64  `json:"min,omitempty"`
	Max    *float64  `json:"max,omitempty"`
	// Ratio is Median ÷ the first run's median (absent for the first run,
	// and where either lacks the figure or the first run's is 0).
	Ratio   *float64 `json:"ratio,omitempty"`
	Flagged bool     `json:"flagged,omitempty"`
}

// Compare puts the runs' figures side by side, in the first run's order
// (then those only later runs have). It reads nothing but its arguments.
func Compare(runs []Run) *Comparison {
	c := &Comparison{Schema: Schema, Rule: Rule, Figures: []Row{}}
	var order []Key
	seen := map[Key]bool{}
	for i, r := range runs {
		c.Runs = append(c.Runs, RunInfo{Label: Label(i), ID: r.ID, Source: r.Source, Profile: r.Profile, Flavor: r.Flavor, Repetitions: r.Repetitions})
		for _, n := range r.Notes {
			c.Notes = append(c.Notes, Label(i)+": "+n)
		}
		for _, k := range r.Order {
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	c.Differences = differences(runs)
	for _, k := range order {
		row := Row{Workload: k.Workload, Operation: k.Operation, Metric: k.Metric, Unit: verdict.Unit(k.Metric)}
		for i, r := range runs {
			cell := cellOf(r.Figures[k])
			if i > 0 {
				cell.Ratio, cell.Flagged = against(row.Runs[0], cell)
			}
			row.Flagged = row.Flagged || cell.Flagged
			row.Runs = append(row.Runs, cell)
		}
		if row.Flagged {
			c.Flagged++
		}
		c.Figures = append(c.Figures, row)
	}
	return c
}

// Label is the i-th run's letter (A, B, …; then A1, B1, … past Z).
func Label(i int) string {
	l := string(rune('A' + i%26))
	if i >= 26 {
		l += fmt.Sprint(i / 26)
	}
	return l
}

func cellOf(values []float64) Cell {
	c := Cell{Values: slices.Clone(values)}
	if len(values) == 0 {
		c.Values = []float64{}
		return c
	}
	med, lo, hi := median(values), slices.Min(values), slices.Max(values)
	c.Median, c.Min, c.Max = &med, &lo, &hi
	return c
}

// against is a cell's ratio to the first run's, and whether the
// difference is flagged (Rule).
func against(a, b Cell) (*float64, bool) {
	if a.Median == nil || b.Median == nil {
		return nil, false
	}
	var ratio *float64
	if *a.Median != 0 {
		r := *b.Median / *a.Median
		ratio = &r
	}
	if len(a.Values) > 1 && len(b.Values) > 1 {
		return ratio, *a.Max < *b.Min || *b.Max < *a.Min
	}
	if ratio == nil {
		return nil, *b.Median != 0 // from nothing to something is off by more than any share
	}
	// The slack keeps a ratio of exactly 1 ± Tolerance, which floating
	// point may put a hair outside, unflagged.
	return ratio, math.Abs(*ratio-1) > Tolerance+1e-9
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
