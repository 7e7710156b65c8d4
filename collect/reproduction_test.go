package collect

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/profiles"
)

// awsRun is a run on the published machines, repeated five times, limited
// by the database: its rows can be reproduced, and are judged on their
// figures alone.
func awsRun(throughputs []float64, readMS float64) *Result {
	r := &Result{Environment: Environment{Provider: "aws", DBHosts: 3, ClientHosts: 1, PublishedProduct: "YugabyteDB"},
		Database: &Database{Product: "YugabyteDB"},
		Baseline: &BaselineResult{Baseline: profiles.Baseline{Rows: []profiles.BaselineRow{{Workload: "workloada", Throughput: 1000}}}, Consistent: true}}
	for _, n := range []string{"db-1", "db-2", "db-3"} {
		r.Hosts = append(r.Hosts, Host{Name: n, Roles: []string{"db"}, InstanceType: "c5.4xlarge"})
	}
	r.Hosts = append(r.Hosts, Host{Name: "client-1", Roles: []string{"client"}, InstanceType: "c5.4xlarge"})
	w := WorkloadResult{Name: "workloada", Published: &r.Baseline.Rows[0], Limit: &bottleneck.Verdict{LimitedBy: bottleneck.DatabaseCPU}}
	for i, x := range throughputs {
		cs := []Comparison{{Column: "throughput", Unit: "ops/s", Published: 1000, Measured: x}, {Column: "Read Latency", Unit: "ms", Published: 2, Measured: readMS}}
		w.Repetitions = append(w.Repetitions, Repetition{Index: i + 1, Comparisons: cs})
		w.Comparisons = cs
	}
	r.Workloads = []WorkloadResult{w}
	return r
}

var c5 = &PublishedHardware{DBHosts: 3, ClientHosts: 1, Types: map[string]string{"aws": "c5.4xlarge"}, ClientTypes: map[string]string{"aws": "c5.4xlarge"}}

func TestReproductionVerdicts(t *testing.T) {
	ok := reproductionOf(awsRun([]float64{990, 1000, 1010, 1005, 995}, 2.02), c5)
	if ok.Rows[0].Status != Reproduced || ok.Summary != "1 of 1 reproduced" {
		t.Errorf("within 5%%, five repetitions: %+v", ok)
	}
	slow := reproductionOf(awsRun([]float64{990, 1000, 1010, 1005, 995}, 3.6), c5)
	if slow.Rows[0].Status != NotReproduced || slow.Summary != "0 of 1 reproduced, 1 not reproduced (workloada Read Latency 1.8× the published)" {
		t.Errorf("read latency 1.8× the published: %+v", slow)
	}
	// The median is within 5%, but one repetition 20% below puts the
	// lower bound of its confidence interval past the tolerance.
	wide := reproductionOf(awsRun([]float64{800, 1000, 1010, 1005, 995}, 2), c5)
	if wide.Rows[0].Status != NotReproduced {
		t.Errorf("a confidence interval reaching 20%% below: %+v", wide.Rows[0])
	}
	few := reproductionOf(awsRun([]float64{1000, 1000}, 2), c5)
	if few.Rows[0].Status != NotComparable || !strings.Contains(few.Summary, "not comparable (too few repetitions)") {
		t.Errorf("two repetitions: %+v", few)
	}
	local := awsRun([]float64{990, 1000, 1010, 1005, 995}, 2)
	local.Environment.Provider, local.Environment.SharedMachine = "local", &SharedMachine{Hosts: 4, CPUs: 2}
	local.Database.Product = "PostgreSQL"
	local.Workloads[0].Limit = &bottleneck.Verdict{LimitedBy: bottleneck.Client, Summary: "Limited by the client: ybload used 1.96 of 2 cores on client-1"}
	got := reproductionOf(local, c5)
	var tags []string
	for _, re := range got.Rows[0].Reasons {
		tags = append(tags, re.Tag)
	}
	if got.Rows[0].Status != NotComparable || strings.Join(tags, ",") != "stand-in database,other hardware,client-limited" {
		t.Errorf("a local stand-in run: %s %v", got.Rows[0].Status, tags)
	}
}

// The median's interval is the order statistics a binomial table gives:
// min–max for five values (93.75%), the second and ninth of ten (97.9%).
func TestMedianCI(t *testing.T) {
	m, lo, hi, c := medianCI([]float64{5, 1, 4, 2, 3})
	if m != 3 || lo != 1 || hi != 5 || c != 0.9375 {
		t.Errorf("five: %g [%g, %g] %g", m, lo, hi, c)
	}
	m, lo, hi, c = medianCI([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if m != 5.5 || lo != 2 || hi != 9 || c != 0.9785 {
		t.Errorf("ten: %g [%g, %g] %g", m, lo, hi, c)
	}
}
