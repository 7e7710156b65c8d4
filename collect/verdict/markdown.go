package verdict

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the verdict as report.md's first section: the outcome,
// the baseline it was judged against, and a table of every gate. It reads
// nothing but v.
func Markdown(w io.Writer, v *Verdict) error {
	var s strings.Builder
	fmt.Fprintf(&s, "## Verdict: %s\n\n", v.Outcome)
	fmt.Fprintf(&s, "%d passed, %d failed, %d could not be evaluated; gate file %s", v.Passed, v.Failed, v.CannotEvaluate, v.GateFile)
	if b := v.Baseline; b.Source != "" {
		fmt.Fprintf(&s, "; baseline %s", b.Source)
		if b.Path != "" {
			fmt.Fprintf(&s, " (%s)", b.Path)
		}
		if b.Source == SourceHistory && len(b.Runs) > 0 {
			fmt.Fprintf(&s, ", the median of runs %s", strings.Join(b.Runs, ", "))
		}
		if b.Problem != "" {
			fmt.Fprintf(&s, ": %s", b.Problem)
		}
	}
	s.WriteString(".\n")
	if !v.Complete {
		fmt.Fprintf(&s, "\nThe results are incomplete, so the gates are no verdict on the numbers: %s.\n", strings.Join(v.Incomplete, "; "))
	}
	if len(v.Gates) > 0 {
		s.WriteString("\n| outcome | workload | operation | metric | measured | baseline | ratio | held to | reason |\n")
		s.WriteString("|---|---|---|---|---:|---:|---:|---|---|\n")
		for _, g := range v.Gates {
			op := g.Operation
			if op == "" {
				op = "-"
			}
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", g.Outcome, g.Workload, op, g.Metric,
				MeasuredFigure(g), FormatFigure(g.Baseline, g.Unit), FormatFigure(g.Ratio, ""),
				cell(g.Tolerance), cell(g.Reason))
		}
	}
	s.WriteString("\n")
	_, err := io.WriteString(w, s.String())
	return err
}

// cell keeps a table cell on its row: a pipe or a line break in a reason
// would end it.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
