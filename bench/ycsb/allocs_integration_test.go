//go:build integration && !race

package ycsb

import (
	"context"
	"runtime"
	"testing"

	"github.com/ybbench/ybbench/bench"
)

func workloadCore(t *testing.T, name string, load bool) *Core {
	t.Helper()
	p := NewProps()
	data, _ := BuiltinWorkload(name)
	if err := p.LoadFile(name, data); err != nil {
		t.Fatal(err)
	}
	p.SetFlag("recordcount", "1000000", "-p")
	cfg, err := ReadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	core, err := NewCore(cfg, load, NullBinding{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return core
}

// TestIntegrationNullOperationsAllocateNothing: a YCSB operation on the
// null binding (the workload's generators, keys and values, the recorder)
// allocates nothing, for every kind of operation. The null DB borrows its
// keys (KeyBorrower), and the recorder's buffer grows a block of 1024
// samples at a time: that rounds to zero per operation.
func TestIntegrationNullOperationsAllocateNothing(t *testing.T) {
	for _, c := range []struct {
		workload string
		load     bool
	}{{"workloada", false}, {"workloadd", false}, {"workloade", false}, {"workloadf", false}, {"workloada", true}} {
		name := c.workload
		if c.load {
			name += "/load"
		}
		t.Run(name, func(t *testing.T) {
			core := workloadCore(t, c.workload, c.load)
			ctx := context.Background()
			w, err := core.NewWorker(ctx, 0, bench.NewRecorder())
			if err != nil {
				t.Fatal(err)
			}
			do := func() {
				if err := w.Do(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for range 1000 {
				do()
			}
			if got := testing.AllocsPerRun(20_000, do); got != 0 {
				t.Errorf("%v allocations per operation, want 0", got)
			}
		})
	}
}

// TestIntegrationEngineLoopAllocatesNothing: the engine's loop around the
// operations (pacing off, quotas, warm-up classification, the ticker's
// drain) adds no allocation per operation: a run of 200,000 more
// operations than another allocates less than 0.01 more per operation
// (what a run allocates once — workers, histograms, buffers — cancels out).
func TestIntegrationEngineLoopAllocatesNothing(t *testing.T) {
	mallocs := func(ops int64) uint64 {
		core := workloadCore(t, "workloada", false)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := bench.Run(context.Background(), core, bench.Config{Threads: 2, Operations: ops})
		runtime.ReadMemStats(&after)
		if err != nil || res.Ops != ops {
			t.Fatalf("run of %d operations: %d done, %v", ops, res.Ops, err)
		}
		return after.Mallocs - before.Mallocs
	}
	mallocs(1000) // one-time initialisation
	small, large := mallocs(2_000), mallocs(202_000)
	if perOp := (float64(large) - float64(small)) / 200_000; perOp >= 0.01 {
		t.Errorf("%.3f allocations per operation (%d for 2,000 operations, %d for 202,000), want 0", perOp, small, large)
	}
}
