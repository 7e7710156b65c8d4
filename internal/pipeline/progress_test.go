package pipeline

import "testing"

func TestSummarizeStatus(t *testing.T) {
	line := "2025-01-01 10:00:10:004 10 sec: 376385 operations; 37634.74 current ops/sec; est completion in 2 minutes [READ: Count=188431, Max=154495, Min=157, Avg=548.39, 90=739, 99=3513, 99.9=15359, 99.99=44991] [CLEANUP: Count=0, Max=0, Min=0, Avg=0, 90=0, 99=0, 99.9=0, 99.99=0] "
	if got, want := summarizeStatus(line), "10s: 376385 ops, 37634.74 ops/s, READ p99 3513 µs"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if summarizeStatus("Loading workload...") != "" {
		t.Error("non-status lines are not summarised")
	}
}
