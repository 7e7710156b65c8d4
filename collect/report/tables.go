package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/verdict"
)

// verdictOf is the verdict's outcome line and a row per gate.
func verdictOf(v *verdict.Verdict) *Verdict {
	t := Table{Name: "gates", Caption: "Gates", Head: []string{"workload", "operation", "metric", "measured", "baseline", "bound", "outcome"}}
	for _, g := range v.Gates {
		op := g.Operation
		if op == "" {
			op = "-"
		}
		outcome := g.Outcome
		if g.Reason != "" {
			outcome += ": " + g.Reason
		}
		bound := verdict.FormatFigure(g.Bound, g.Unit)
		if g.Tolerance != "" {
			bound += " (" + g.Tolerance + ")"
		}
		t.Rows = append(t.Rows, []string{g.Workload, op, g.Metric, verdict.MeasuredFigure(g),
			verdict.FormatFigure(g.Baseline, g.Unit), bound, outcome})
	}
	sum := fmt.Sprintf("%d passed, %d failed, %d could not be evaluated", v.Passed, v.Failed, v.CannotEvaluate)
	if !v.Complete {
		sum += "; the results are incomplete"
	}
	return &Verdict{Outcome: v.Outcome, Summary: sum, Gates: t}
}

// parametersTable lists the run's parameters, saying which were
// overridden and by what.
func parametersTable(r *collect.Result) Table {
	t := Table{Name: "parameters", Caption: "Parameters", Head: []string{"parameter", "value", "overridden"}}
	names := make([]string, 0, len(r.Parameters))
	for k := range r.Parameters {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		over := ""
		if slices.Contains(r.Overridden, k) {
			over = "yes"
			if by := r.OverriddenBy[k]; by != "" {
				over = "by " + by
			}
		}
		t.Rows = append(t.Rows, []string{k, r.Parameters[k], over})
	}
	return t
}

// publishedTable puts each published column beside the measured figure it
// is compared with, naming that statistic.
func publishedTable(w *collect.WorkloadResult) Table {
	t := Table{Name: w.Name + "-published", Caption: "Measured beside published",
		Head: []string{"column", "compared with", "unit", "published", "measured", "measured ÷ published"}}
	for _, c := range w.Comparisons {
		ratio := "-"
		if c.Published > 0 {
			ratio = fmt.Sprintf("%.2f", c.Ratio)
		}
		t.Rows = append(t.Rows, []string{c.Column, c.Statistic, c.Unit, figure(c.Published), figure(c.Measured), ratio})
	}
	return t
}

// spreadTable is each figure over the repetitions: its values, median,
// range and coefficient of variation.
func spreadTable(w *collect.WorkloadResult) Table {
	t := Table{Name: w.Name + "-spread", Caption: "Spread over the repetitions",
		Head: []string{"operation", "metric", "unit", "values", "median", "min–max", "CV"}}
	for _, s := range w.Spread {
		op := s.Operation
		if op == "" {
			op = "-"
		}
		vals := ""
		for i, v := range s.Values {
			if i > 0 {
				vals += " / "
			}
			vals += figure(v)
		}
		t.Rows = append(t.Rows, []string{op, s.Metric, s.Unit, vals, figure(s.Median),
			figure(s.Min) + "–" + figure(s.Max), strconv.FormatFloat(100*s.CV, 'f', 1, 64) + "%"})
	}
	return t
}

// figure formats a number for a table: four significant digits, whole
// numbers from 10⁴ on, as the verdict's figures are.
func figure(x float64) string { return verdict.FormatFigure(&x, "") }
