package collect

import (
	"strings"
	"testing"
)

// The report's check of a published row uses the row's own thread count
// (the KV batch table was measured at 64 writers, the others at 256), and
// overridden parameters are marked.
func TestWriteMarkdownPublishedRow(t *testing.T) {
	batch := &BaselineRow{Workload: "batch-write", Throughput: 140000, Threads: 64, UnitsPerOp: 25,
		Mix:       map[string]float64{"Write": 1},
		Latencies: []Published{{Label: "Write Latency", Op: "Write", MS: 9, Statistic: "mean"}}}
	b := &Baseline{Source: "seed 004", Setup: "3× i3.4xlarge", Threads: 256, Rows: []BaselineRow{*batch}}
	r := &Result{Parameters: map[string]string{"threads": "64", "duration": "60s"}, Overridden: []string{"duration"},
		Workloads: []WorkloadResult{{Name: "batch-write", Published: batch}}}
	var s strings.Builder
	if err := WriteMarkdown(&s, r, b); err != nil {
		t.Fatal(err)
	}
	out := s.String()
	// 64 ÷ (140000/25 batches/s × 0.009 s) = 1.27
	for _, want := range []string{"The published row itself: 64 threads ÷ (throughput × mean latency) = 1.27.",
		"duration 60s (**overridden**), threads 64."} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
