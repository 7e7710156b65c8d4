package kv

import (
	"testing"
	"time"
)

// The line is the reference's, with its arithmetic: ops/sec over the
// window, and ms/op from the latency sum truncated to whole milliseconds
// before the division.
func TestMetricsLine(t *testing.T) {
	read := Window{Ops: 3, LatencyNanos: 7_999_999, Total: 10, Elapsed: 5 * time.Second}
	write := Window{Ops: 250, LatencyNanos: 250 * 2_500_000 * 25, Total: 1000, Elapsed: 5 * time.Second}
	got := MetricsLine(5123*time.Millisecond, read, write, 5002*time.Millisecond, 999, 1010)
	want := "5123 [Thread-1] INFO com.yugabyte.sample.common.metrics.MetricsTracker  - " +
		"Read: 0.60 ops/sec (2.33 ms/op), 10 total ops  |  " +
		"Write: 50.00 ops/sec (62.50 ms/op), 1000 total ops  |  " +
		"Uptime: 5002 ms | maxWrittenKey: 999 | maxGeneratedKey: 1010 | "
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	idle := MetricsLine(0, Window{}, Window{Elapsed: time.Second}, 0, -1, -1)
	if want := "0 [Thread-1] INFO com.yugabyte.sample.common.metrics.MetricsTracker  - Read: 0.00 ops/sec (0.00 ms/op), 0 total ops  |  Write: 0.00 ops/sec (0.00 ms/op), 0 total ops  |  Uptime: 0 ms | maxWrittenKey: -1 | maxGeneratedKey: -1 | "; idle != want {
		t.Errorf("idle line\n%s", idle)
	}
}
