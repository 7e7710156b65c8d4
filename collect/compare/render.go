package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Formats are the renderings a comparison has.
var Formats = []string{"markdown", "json", "csv"}

// Render writes the comparison in a format of Formats.
func Render(w io.Writer, c *Comparison, format string) error {
	switch format {
	case "markdown":
		return Markdown(w, c)
	case "json":
		return JSON(w, c)
	case "csv":
		return CSV(w, c)
	}
	return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// workloadOp is how a table names the figures of a workload as a whole.
const workloadOp = "(workload)"

// Markdown writes the runs, how they differ, the rule, and a table of every
// figure: each run's (median, with its range over several repetitions) and
// each later run's ratio to A's.
func Markdown(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Comparison of %d runs\n\n", len(c.Runs))
	b.WriteString("| run | id | profile | flavor | repetitions | result |\n|---|---|---|---|---|---|\n")
	for _, r := range c.Runs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s |\n", r.Label, r.ID, r.Profile, dash(r.Flavor), r.Repetitions, r.Source)
	}
	if len(c.Differences) > 0 {
		b.WriteString("\n**The runs differ** (compared anyway):\n\n")
		for _, d := range c.Differences {
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}
	for i, n := range c.Notes {
		if i == 0 {
			b.WriteString("\nNotes:\n\n")
		}
		fmt.Fprintf(&b, "- %s\n", n)
	}
	fmt.Fprintf(&b, "\n%s\n\n", c.Rule)
	b.WriteString("| workload | operation | metric | unit |")
	sep := "|---|---|---|---|"
	for i, r := range c.Runs {
		fmt.Fprintf(&b, " %s |", r.Label)
		sep += "---:|"
		if i > 0 {
			fmt.Fprintf(&b, " %s ÷ A |", r.Label)
			sep += "---:|"
		}
	}
	b.WriteString("\n" + sep + "\n")
	for _, row := range c.Figures {
		op := row.Operation
		if op == "" {
			op = workloadOp
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", row.Workload, op, row.Metric, row.Unit)
		for i, cell := range row.Runs {
			fmt.Fprintf(&b, " %s |", cellText(cell))
			if i > 0 {
				r := dash(ratioText(cell.Ratio))
				if cell.Flagged {
					r += " ⚑"
				}
				fmt.Fprintf(&b, " %s |", r)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%d of %d figures flagged.\n", c.Flagged, len(c.Figures))
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes the comparison as an indented document of Schema.
func JSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// CSV writes one line per figure and run: long, so that any number of
// runs fits one header and a spreadsheet can pivot it.
func CSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"workload", "operation", "metric", "unit", "run", "run_id", "repetitions", "median", "min", "max", "ratio_to_A", "flagged"})
	for _, row := range c.Figures {
		for i, cell := range row.Runs {
			_ = cw.Write([]string{row.Workload, row.Operation, row.Metric, row.Unit, c.Runs[i].Label, c.Runs[i].ID,
				strconv.Itoa(len(cell.Values)), plain(cell.Median), plain(cell.Min), plain(cell.Max), plain(cell.Ratio),
				strconv.FormatBool(cell.Flagged)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// cellText is a run's figure: its median, and its range when it has
// several repetitions; a dash when the run lacks it.
func cellText(c Cell) string {
	if c.Median == nil {
		return "-"
	}
	s := number(*c.Median)
	if len(c.Values) > 1 {
		s += fmt.Sprintf(" (%s–%s)", number(*c.Min), number(*c.Max))
	}
	return s
}

// number is a figure for a reader: four significant digits, whole numbers
// from 10 000 up (37443, not 3.744e+04).
func number(v float64) string {
	if v >= 1e4 || v <= -1e4 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func ratioText(r *float64) string {
	if r == nil {
		return ""
	}
	return strconv.FormatFloat(*r, 'f', 3, 64)
}

// plain is a figure for a program: every digit, empty when absent.
func plain(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
