package report

import (
	"os"
	"testing"

	"github.com/ybbench/ybbench/internal/cpubench"
)

// benchRun is BenchmarkWrite's run: 6 workloads × 3 repetitions, each
// with 6 operations, 2 agents, 10 load and 60 run ticks, and 3 db hosts
// read every 5 s.
var benchRun = synth{workloads: []string{"workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf"}, reps: 3,
	agents: []string{"client-1", "client-2"}, ops: []string{"INSERT", "READ", "READ-MODIFY-WRITE", "SCAN", "UPDATE", "DELETE"},
	loadTicks: 10, runTicks: 60, warmTicks: 5, perTick: 50, dbHosts: []string{"db-1", "db-2", "db-3"}, cpuSamples: 11, verdict: true}

// BenchmarkWrite renders report.html and its CSV for benchRun, collected
// (its series.json written by collect): the report stage's own cost. It
// reports the page's size (target: under 2 s and 5 MB).
func BenchmarkWrite(b *testing.B) { benchmarkWrite(b, true) }

// BenchmarkWriteFromRecords renders benchRun collected before collect
// wrote series.json: the report reads the records, decoding every tick.
func BenchmarkWriteFromRecords(b *testing.B) { benchmarkWrite(b, false) }

func benchmarkWrite(b *testing.B, collected bool) {
	dir := b.TempDir()
	if err := writeSynth(dir, benchRun); err != nil {
		b.Fatal(err)
	}
	if collected {
		if err := collectSeries(dir, benchRun); err != nil {
			b.Fatal(err)
		}
	}
	var path string
	cpu0 := cpubench.Now().Seconds()
	n := 0
	for b.Loop() {
		n++
		var err error
		if path, err = Write(dir); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size()), "html-bytes")
	// CPU seconds as well as wall time: on a busy machine, the page's own
	// cost.
	b.ReportMetric((cpubench.Now().Seconds()-cpu0)/float64(n), "cpu-s/op")
}
