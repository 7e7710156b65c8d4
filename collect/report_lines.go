package collect

import (
	"fmt"
	"sort"
	"strings"
)

// parametersLine lists the run's parameters, marking as overridden only
// what the user overrode and saying who chose a value a default chose.
// The ddl parameter is left to tablesLine, beside the DDL that ran.
func parametersLine(r *Result) string {
	if len(r.Parameters) == 0 {
		return ""
	}
	keys := make([]string, 0, len(r.Parameters))
	for k := range r.Parameters {
		if k != "ddl" || commonDDL(r) == "" && !anyDDL(r) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	over := map[string]bool{}
	for _, o := range r.Overridden {
		over[o] = true
	}
	chosen := map[string]bool{}
	for _, c := range r.Chosen {
		chosen[c.Setting] = true
	}
	var b strings.Builder
	b.WriteString("Parameters: ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", mdText(k), mdText(r.Parameters[k]))
		switch {
		case over[k] && r.OverriddenBy[k] != "":
			fmt.Fprintf(&b, " (**overridden**: %s)", mdText(r.OverriddenBy[k]))
		case over[k]:
			b.WriteString(" (**overridden**)")
		case chosen[k]:
			b.WriteString(" (a default here, not the profile's)")
		}
	}
	b.WriteString(".\n\n")
	return b.String()
}

// tablesLine shows the DDL the agents actually ran beside the profile's
// ddl setting (which a database may not honour: PostgreSQL has no range
// split), once when every workload ran the same, else under each
// workload.
func tablesLine(r *Result) string {
	asked := ""
	if d := r.Parameters["ddl"]; d != "" {
		asked = fmt.Sprintf(" (the profile's ddl setting: %s)", mdText(d))
	}
	if ddl := commonDDL(r); ddl != "" {
		return fmt.Sprintf("Table as created%s, every workload: %s\n\n", asked, mdCode(oneLine(ddl)))
	}
	if anyDDL(r) {
		return fmt.Sprintf("Tables as created%s: under each workload.\n\n", asked)
	}
	return ""
}

// commonDDL is the DDL every workload ran, when they all ran the same
// ("" when any ran none or they differ).
func commonDDL(r *Result) string {
	ddl := ""
	for _, w := range r.Workloads {
		if w.DDL == "" || ddl != "" && w.DDL != ddl {
			return ""
		}
		ddl = w.DDL
	}
	return ddl
}

// anyDDL reports whether a workload recorded the DDL it ran.
func anyDDL(r *Result) bool {
	for _, w := range r.Workloads {
		if w.DDL != "" {
			return true
		}
	}
	return false
}

// oneLine folds a multi-line statement into one line for inline code.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sanityLine is a workload's Little's-law line: the figure, the tolerance
// it is judged with and whether it is inside it.
func sanityLine(w *WorkloadResult) string {
	if w.SanityWithin == nil {
		return fmt.Sprintf("Sanity (Little's law, ≈ 1 for a closed loop): %s.\n", mdText(w.SanityText))
	}
	return fmt.Sprintf("Sanity (Little's law, ≈ 1 for a closed loop): %s, %s.\n", mdText(w.SanityText), verdict(w.Sanity, w.SanityTolerance, *w.SanityWithin))
}

// verdict says whether a Little's-law figure v is within its tolerance of
// 1, and outside it, what that means.
func verdict(v, tolerance float64, in bool) string {
	t := fmt.Sprintf("the tolerance of ±%.2f (%.2f to %.2f)", tolerance, 1-tolerance, 1+tolerance)
	switch {
	case in:
		return "within " + t
	case v > 1:
		return "**outside** " + t + ": fewer operations were in flight than threads ran, so the threads spent time outside the measured operations (client-side work, a rate limit, stalls)"
	default:
		return "**outside** " + t + ": more operations were in flight than threads ran, so the throughput or the mean latency counts something the threads did not wait for"
	}
}
