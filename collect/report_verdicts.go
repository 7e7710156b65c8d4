package collect

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/collect/bottleneck"
)

// LimitLine is one workload's limit as the reports open with it, with
// the figures behind it.
type LimitLine struct {
	Workload  string
	LimitedBy string
	Summary   string
	Evidence  []string
}

// LimitLines are the workloads' limits, in the order they ran, with the
// rules used (those of the first workload that has a verdict).
func LimitLines(r *Result) (lines []LimitLine, rules []string) {
	for _, w := range r.Workloads {
		if w.Limit == nil {
			continue
		}
		if rules == nil {
			rules = w.Limit.Rules.Text()
		}
		// Evidence the summary already says (an unknown limit's reason)
		// is not said twice.
		var evidence []string
		for _, e := range w.Limit.Evidence {
			if !strings.Contains(w.Limit.Summary, e) {
				evidence = append(evidence, e)
			}
		}
		lines = append(lines, LimitLine{Workload: w.Name, LimitedBy: w.Limit.LimitedBy, Summary: w.Limit.Summary, Evidence: evidence})
	}
	return lines, rules
}

// verdictsMarkdown is the part of report.md that follows its caveats: the
// reproduction summary and each published row's verdict, then what
// limited each workload and the rules that said so.
func verdictsMarkdown(r *Result) string {
	var b strings.Builder
	if rep := r.Reproduction; rep != nil {
		fmt.Fprintf(&b, "## Reproduced?\n\n**%s.**\n\n", mdText(rep.Summary))
		shared := rep.SharedReasons()
		if len(shared) > 0 {
			fmt.Fprintf(&b, "Not comparable, every row: %s.\n\n", mdText(ReasonTexts(shared)))
		}
		b.WriteString("| Workload | Verdict | Why |\n|---|---|---|\n")
		for _, row := range rep.Rows {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdText(row.Workload), mdText(row.Status), mdText(row.Why(shared)))
		}
		fmt.Fprintf(&b, "\nRule: %s.\n\n", mdText(rep.Rule))
	}
	lines, rules := LimitLines(r)
	if len(lines) == 0 {
		return b.String()
	}
	b.WriteString("## What limited the numbers\n\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "- **%s:** %s.\n", mdText(l.Workload), mdText(l.Summary))
		// The figures behind it, so that a reader can check the verdict
		// against the rules printed below without opening result.json.
		for _, e := range l.Evidence {
			fmt.Fprintf(&b, "  - %s\n", mdText(e))
		}
	}
	b.WriteString("\nRules, tried in this order (the first that fires is the verdict; `limit_rules` changes their thresholds):\n\n")
	for _, t := range rules {
		fmt.Fprintf(&b, "- %s\n", mdText(t))
	}
	b.WriteString("\n")
	return b.String()
}

// ClientLimited names the workloads whose result was limited by their
// client, with the verdict's summary: no gate or history may take them as
// a baseline.
func ClientLimited(r *Result) map[string]string {
	out := map[string]string{}
	for _, w := range r.Workloads {
		if w.Limit != nil && w.Limit.LimitedBy == bottleneck.Client {
			out[w.Name] = w.Limit.Summary
		}
	}
	return out
}
