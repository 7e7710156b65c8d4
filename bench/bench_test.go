package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ybbench/ybbench/internal/cpubench"
)

// BenchmarkObserve is the per-measurement cost a worker pays.
func BenchmarkObserve(b *testing.B) {
	rec := newRecorder(NewClock(), false, 0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rec.Observe(0, StatusOK, rec.Now())
		if i%100_000 == 0 {
			rec.swap().clear()
		}
	}
}

// BenchmarkEngineNoop is the engine's own cost per operation (a worker that
// records one measurement and does nothing else), across 4 workers.
func BenchmarkEngineNoop(b *testing.B) {
	f := &fakeWorkload{}
	b.ReportAllocs()
	defer cpubench.Report(b, cpubench.Now())
	res, err := Run(context.Background(), f, Config{Threads: 4, Operations: int64(b.N)})
	if err != nil || res.Ops != int64(b.N) {
		b.Fatal(err, res.Ops)
	}
}

// BenchmarkClockNow is one read of the engine clock: what the engine saves
// per operation by taking the end from the last measurement.
func BenchmarkClockNow(b *testing.B) {
	c := NewClock()
	var t int64
	for b.Loop() {
		t += c.Now()
	}
	_ = t
}

// unpaddedCounts is the per-worker counts' layout before padding, kept
// for the comparison below.
type unpaddedCounts struct{ done, warm atomic.Int64 }

// BenchmarkWorkerCounts is two workers storing their own count after every
// operation, with the counts side by side or a cache line apart.
func BenchmarkWorkerCounts(b *testing.B) {
	b.Run("adjacent", func(b *testing.B) {
		c := make([]unpaddedCounts, 2)
		storeCounts(b, func(id int, n int64) { c[id].done.Store(n) })
	})
	b.Run("padded", func(b *testing.B) {
		c := make([]workerCounts, 2)
		storeCounts(b, func(id int, n int64) { c[id].done.Store(n) })
	})
}

func storeCounts(b *testing.B, store func(id int, n int64)) {
	var wg sync.WaitGroup
	for id := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range int64(b.N) {
				store(id, n)
			}
		}()
	}
	wg.Wait()
}
