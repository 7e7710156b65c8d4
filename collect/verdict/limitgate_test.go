package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/bottleneck"
)

// A limited_by gate passes a workload limited as it asks (a family with
// "*"), fails one limited otherwise with the verdict's summary as the
// reason, and cannot evaluate one with no verdict; its shape is checked
// like every gate's.
func TestLimitedByGate(t *testing.T) {
	f, err := Parse("gates.yaml", []byte("gates:\n  - {workload: \"*\", metric: limited_by, is: database-*}\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := &collect.Result{RunID: "r", Workloads: []collect.WorkloadResult{
		{Name: "a", Phases: []collect.PhaseResult{{Phase: collect.MeasuredPhase, Complete: true}}, Limit: &bottleneck.Verdict{LimitedBy: bottleneck.DatabaseCPU}},
		{Name: "b", Phases: []collect.PhaseResult{{Phase: collect.MeasuredPhase, Complete: true}}, Limit: &bottleneck.Verdict{LimitedBy: bottleneck.Client, Summary: "Limited by the client: ybload used 1.96 of 2 cores on client-1"}},
		{Name: "c", Phases: []collect.PhaseResult{{Phase: collect.MeasuredPhase, Complete: true}}},
	}}
	v := Evaluate(f, res, nil, time.Unix(0, 0))
	want := map[string]string{"a": Pass, "b": Fail, "c": CannotEvaluate}
	for _, g := range v.Gates {
		if g.Outcome != want[g.Workload] {
			t.Errorf("%s: %s (%s), want %s", g.Workload, g.Outcome, g.Reason, want[g.Workload])
		}
		if g.Workload == "b" && !strings.Contains(g.Reason, "ybload used 1.96 of 2 cores") {
			t.Errorf("the failed gate does not say why: %q", g.Reason)
		}
	}
	if len(v.Gates) != 3 || v.LimitedBy["b"] != bottleneck.Client {
		t.Errorf("gates %d, limited_by %v", len(v.Gates), v.LimitedBy)
	}
	for src, msg := range map[string]string{
		"gates:\n  - {workload: a, metric: limited_by}\n":                                   "gates[0].is: missing",
		"gates:\n  - {workload: a, metric: limited_by, is: disk}\n":                         `"disk": want a verdict`,
		"gates:\n  - {workload: a, metric: limited_by, is: client, op: \">=\"}\n":           "a limited_by gate takes only workload and is",
		"gates:\n  - {workload: a, metric: throughput, op: \">=\", value: 1, is: client}\n": "only a limited_by gate takes is",
	} {
		if _, err := Parse("gates.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: got %v, want %q", src, err, msg)
		}
	}
}
