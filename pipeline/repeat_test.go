package pipeline

import "testing"

// A phase of a run without repetitions keeps the step and file names runs
// always had (old runs stay resumable); a repetition's carry r<k>.
func TestPhaseNames(t *testing.T) {
	for _, c := range []struct {
		ph         Phase
		step, file string
		measured   string
	}{
		{Phase{Workload: "workloada", Phase: "load"}, "bench/workloada/load", "workloada-load", "bench/workloada/run"},
		{Phase{Workload: "workloada", Phase: "load", Rep: 2}, "bench/workloada/r2/load", "workloada-r2-load", "bench/workloada/r2/run"},
		{Phase{Workload: "oltp_read_only", Phase: "cleanup", Rep: 10}, "bench/oltp_read_only/r10/cleanup", "oltp_read_only-r10-cleanup", "bench/oltp_read_only/r10/run"},
	} {
		if got := c.ph.stepName(); got != c.step {
			t.Errorf("%+v: step %q, want %q", c.ph, got, c.step)
		}
		if got := c.ph.fileBase(); got != c.file {
			t.Errorf("%+v: files %q, want %q", c.ph, got, c.file)
		}
		if got := c.ph.measured().stepName(); got != c.measured {
			t.Errorf("%+v: measured step %q, want %q", c.ph, got, c.measured)
		}
	}
}
