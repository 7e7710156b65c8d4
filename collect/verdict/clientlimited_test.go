package verdict

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/bottleneck"
)

// A previous run, or a history run, whose workload was limited by its
// client measured the client: it is refused as a baseline, saying so; the
// same run limited by the database is taken (the positive control).
func TestClientLimitedRunIsNoBaseline(t *testing.T) {
	result := func(limit string) *collect.Result {
		return &collect.Result{RunID: "r-" + limit, Workloads: []collect.WorkloadResult{{
			Name: "workloada", Throughput: 1000,
			Phases: []collect.PhaseResult{{Phase: collect.MeasuredPhase, Throughput: 1000, Complete: true}},
			Limit:  &bottleneck.Verdict{LimitedBy: limit, Summary: "Limited by the client: ybload used 1.96 of 2 cores on client-1"}}}}
	}
	if _, err := (Run{Result: result(bottleneck.Client)}).Value("workloada", "", "throughput"); err == nil ||
		!strings.Contains(err.Error(), "is no baseline: Limited by the client: ybload used 1.96 of 2 cores on client-1") {
		t.Errorf("a client-limited run was taken as a baseline: %v", err)
	}
	if v, err := (Run{Result: result(bottleneck.DatabaseCPU)}).Value("workloada", "", "throughput"); err != nil || v != 1000 {
		t.Errorf("positive control: %v %v", v, err)
	}
	h := History{Dir: "results", Results: []*collect.Result{result(bottleneck.Client), result(bottleneck.DatabaseCPU)}}
	h.Results[1].Workloads[0].Throughput = 800
	h.Results[1].Workloads[0].Phases[0].Throughput = 800
	if v, err := h.Value("workloada", "", "throughput"); err != nil || v != 800 {
		t.Errorf("history took the client-limited run into its median: %v %v", v, err)
	}
	h.Results = h.Results[:1]
	if _, err := h.Value("workloada", "", "throughput"); err == nil || !strings.Contains(err.Error(), "no baseline") {
		t.Errorf("a history of client-limited runs only gave a baseline: %v", err)
	}
}
