package collect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/bottleneck"
)

// report.md shows each limit's figures under its summary, so that the
// verdict can be checked against the rules printed with it; a reason the
// summary already says (an unknown limit's) is not said twice.
func TestReportShowsTheLimitsEvidence(t *testing.T) {
	figures := "the machine the local hosts share was 98.0% busy; the database's processes used 1.49 cores, the agents 0.33 (rule: ≥ 90%)"
	r := &Result{Workloads: []WorkloadResult{
		{Name: "workloada", Limit: &bottleneck.Verdict{LimitedBy: bottleneck.DatabaseCPU, Rules: bottleneck.Default(),
			Summary:  "Limited by the database's CPU: the machine the local hosts share was 98.0% busy, the database's processes using 1.49 cores, the agents 0.33",
			Evidence: []string{figures}}},
		{Name: "workloadb", Limit: &bottleneck.Verdict{LimitedBy: bottleneck.Unknown, Rules: bottleneck.Default(),
			Summary: "Limit unknown: client-1 was not read", Evidence: []string{"client-1 was not read"}}},
	}}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "- **workloada:** Limited by the database's CPU: the machine the local hosts share was 98.0% busy") {
		t.Errorf("report.md lacks workloada's limit:\n%s", md)
	}
	if !strings.Contains(md, "\n  - the machine the local hosts share was 98.0% busy; the database's processes used 1.49 cores, the agents 0.33 (rule: ≥ 90%)\n") {
		t.Errorf("report.md lacks workloada's evidence under its limit:\n%s", md)
	}
	if n := strings.Count(md, "client-1 was not read"); n != 1 {
		t.Errorf("workloadb's reason said %d times, want once (in its summary):\n%s", n, md)
	}
	lines, _ := LimitLines(r)
	if len(lines) != 2 || len(lines[0].Evidence) != 1 || len(lines[1].Evidence) != 0 {
		t.Errorf("limit lines %+v: want workloada's one figure and nothing under workloadb's summary", lines)
	}
}
