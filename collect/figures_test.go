package collect

import (
	"math"
	"testing"

	"github.com/ybbench/ybbench/profiles"
)

// near reports whether got is within 0.0005 of a hand-computed want.
func near(got, want float64) bool { return math.Abs(got-want) < 0.0005 }

// Little's law of published rows, each computed by hand from the seed's
// own row (the comment gives the arithmetic).
func TestLittlesLawOfSeedRows(t *testing.T) {
	for _, c := range []struct {
		name    string
		row     profiles.BaselineRow
		threads int
		want    float64
	}{
		// seed 000 workload A: 256 ÷ (37443 × (0.5 × 1.5 + 0.5 × 12) ms) = 256 ÷ 252.740 = 1.0129
		{"seed 000 workloada", profiles.BaselineRow{Workload: "workloada", Throughput: 37443,
			Latencies: []profiles.Published{{Op: "READ", MS: 1.5}, {Op: "UPDATE", MS: 12}}, Mix: map[string]float64{"READ": 0.5, "UPDATE": 0.5}}, 256, 1.0129},
		// seed 004 write-heavy: 256 ÷ (90000 × 2.75 ms) = 256 ÷ 247.5 = 1.0343
		{"seed 004 write-heavy", profiles.BaselineRow{Workload: "write-heavy", Throughput: 90000,
			Latencies: []profiles.Published{{Op: "Write", MS: 2.75}}, Mix: map[string]float64{"Write": 1}}, 256, 1.0343},
		// seed 004 batch-write, 64 threads, 25 keys a batch: 64 ÷ (140000/25 × 9 ms) = 64 ÷ 50.4 = 1.2698
		{"seed 004 batch-write", profiles.BaselineRow{Workload: "batch-write", Throughput: 140000, Threads: 64, UnitsPerOp: 25,
			Latencies: []profiles.Published{{Op: "Write", MS: 9}}, Mix: map[string]float64{"Write": 1}}, 256, 1.2698},
		// seed 003 oltp_read_only: 64 ÷ (3276 × 39 ms) = 64 ÷ 127.764 = 0.5009
		{"seed 003 oltp_read_only", profiles.BaselineRow{Workload: "oltp_read_only", Throughput: 3276,
			Latencies: []profiles.Published{{Op: "EVENT", MS: 39}}, Mix: map[string]float64{"EVENT": 1}}, 64, 0.5009},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.row.LittlesLaw(c.threads)
			if err != nil || !near(got, c.want) {
				t.Errorf("got %.4f (%v), want %.4f", got, err, c.want)
			}
		})
	}
	if _, err := (&profiles.BaselineRow{Workload: "w", Latencies: []profiles.Published{{Op: "READ", MS: 1}}, Mix: map[string]float64{"SCAN": 1}}).LittlesLaw(1); err == nil {
		t.Error("a mix naming an operation without a published latency gave a figure")
	}
}

// The comparison of a measured phase with seed 000's workload A row and a
// CPU column: each ratio is measured ÷ published, each latency the
// statistic its column names.
func TestCompareWithASeedRow(t *testing.T) {
	row := &profiles.BaselineRow{Workload: "workloada", Throughput: 37443, CPU: 60, Latencies: []profiles.Published{
		{Label: "Read Latency", Op: "READ", MS: 1.5, Statistic: "mean"},
		{Label: "Write Latency (update)", Op: "UPDATE", MS: 12, Statistic: "mean"},
		{Label: "Read p95", Op: "READ", MS: 4, Statistic: "p95"},
	}}
	p := &PhaseResult{Measurements: []MeasurementResult{
		{Name: "READ", Count: 10, Latency: LatencySummary{Mean: 1200, P95: 3000}},
		{Name: "UPDATE", Count: 10, Latency: LatencySummary{Mean: 9000}},
	}}
	cpu := map[string]HostCPU{"db-1": {Percent: 40}, "db-2": {Percent: 50}, "db-3": {Percent: 60}}
	got := Compare(row, p, 29954.4, cpu)
	want := []struct {
		column              string
		measured, published float64
		ratio               float64
	}{
		{"throughput", 29954.4, 37443, 0.8},     // 29954.4 ÷ 37443
		{"Read Latency", 1.2, 1.5, 0.8},         // 1200 µs mean ÷ 1.5 ms
		{"Write Latency (update)", 9, 12, 0.75}, // 9000 µs mean ÷ 12 ms
		{"Read p95", 3, 4, 0.75},                // p95 3000 µs ÷ 4 ms
		{"CPU (User + Sys)", 50, 60, 0.8333},    // (40 + 50 + 60) ÷ 3 = 50 %, ÷ 60 %
	}
	if len(got) != len(want) {
		t.Fatalf("%d comparisons, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Column != w.column || !near(g.Measured, w.measured) || g.Published != w.published || !near(g.Ratio, w.ratio) {
			t.Errorf("comparison %d: %+v, want %s measured %g published %g ratio %.4f", i, g, w.column, w.measured, w.published, w.ratio)
		}
	}
	if Compare(nil, p, 1, nil) != nil {
		t.Error("a workload without a published row was compared")
	}
}

// The KV throughput counts keys over the measured window: a batch counts
// the keys it wrote, CLEANUP nothing.
func TestKVThroughputCountsKeys(t *testing.T) {
	p := &PhaseResult{WindowMS: 2000, Measurements: []MeasurementResult{
		{Name: "Write", Count: 100, Units: 2500}, // 100 batches of 25 keys
		{Name: "Read", Count: 500},
		{Name: "CLEANUP", Count: 7},
	}}
	// (2500 + 500) keys ÷ 2 s = 1500 keys/s
	if got := kvThroughput(p); !near(got, 1500) {
		t.Errorf("got %g keys/s, want 1500", got)
	}
	if got := kvThroughput(&PhaseResult{Measurements: p.Measurements}); got != 0 {
		t.Errorf("no window: got %g, want 0", got)
	}
}

// The sanity figures, from hand-made phases.
func TestSanityFigures(t *testing.T) {
	// Workload F: 500 READ-MODIFY-WRITEs each hold a READ and an UPDATE
	// measured on their own. Outer operations: 1000 − 500 = 500 READs at
	// 1 ms and 500 RMWs at 3 ms (the UPDATEs are all nested): mean 2 ms;
	// 10 threads ÷ (1000 ops/s × 2 ms) = 5.
	f := &PhaseResult{Threads: 10, Throughput: 1000, Measurements: []MeasurementResult{
		{Name: "READ", Count: 1000, Latency: LatencySummary{Mean: 1000}},
		{Name: "UPDATE", Count: 500, Latency: LatencySummary{Mean: 2000}},
		{Name: "READ-MODIFY-WRITE", Count: 500, Latency: LatencySummary{Mean: 3000}},
		{Name: "CLEANUP", Count: 8, Latency: LatencySummary{Mean: 90000}},
	}}
	if v, _ := YCSBSanity(f); !near(v, 5) {
		t.Errorf("YCSB workload F: %.4f, want 5", v)
	}
	// Seed 000 workload A as published, as a phase: 256 threads, 37443
	// ops/s, half READs at 1.5 ms and half UPDATEs at 12 ms: 1.0129.
	a := &PhaseResult{Threads: 256, Throughput: 37443, Measurements: []MeasurementResult{
		{Name: "READ", Count: 5000, Latency: LatencySummary{Mean: 1500}},
		{Name: "UPDATE", Count: 5000, Latency: LatencySummary{Mean: 12000}},
	}}
	if v, _ := YCSBSanity(a); !near(v, 1.0129) {
		t.Errorf("seed 000 workload A: %.4f, want 1.0129", v)
	}
	// One sample per operation, errors included: 900 + 100 reads at 4 ms
	// over 10 s are 100/s; 4 threads ÷ (100/s × 4 ms) = 10.
	s := &PhaseResult{Threads: 4, WindowMS: 10_000, Measurements: []MeasurementResult{
		{Name: "Read", Count: 900, Errors: 100, Latency: LatencySummary{Mean: 4000}},
		{Name: "CLEANUP", Count: 3, Latency: LatencySummary{Mean: 1}},
	}}
	if v, _ := OneSampleSanity(s); !near(v, 10) {
		t.Errorf("one sample per operation: %.4f, want 10", v)
	}
}
