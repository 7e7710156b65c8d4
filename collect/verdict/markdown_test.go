package verdict

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

// TestMarkdown renders a verdict with a gate of every outcome: one table
// row per gate, in the verdict's order, with the reason of the one that
// cannot be evaluated.
func TestMarkdown(t *testing.T) {
	v := junitVerdict()
	v.Gates[3].Reason = "no row | for p99.9"
	var b bytes.Buffer
	if err := Markdown(&b, v); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "verdict.md", b.Bytes())
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| outcome") {
			rows = append(rows, l)
		}
	}
	if len(rows) != len(v.Gates) {
		t.Fatalf("%d gate rows, want %d:\n%s", len(rows), len(v.Gates), b.String())
	}
	for i, g := range v.Gates {
		if !strings.HasPrefix(rows[i], "| "+g.Outcome+" | "+g.Workload+" |") {
			t.Errorf("row %d = %q, want gate %s of %s", i, rows[i], g.Outcome, g.Workload)
		}
	}
	if !strings.Contains(rows[3], `no row \| for p99.9`) {
		t.Errorf("a pipe in a reason must be escaped: %q", rows[3])
	}
	if !strings.HasPrefix(b.String(), "## Verdict: fail\n") {
		t.Errorf("the outcome comes first: %q", strings.SplitN(b.String(), "\n", 2)[0])
	}
}
