package bench

import (
	"context"
	"testing"
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
	res, err := Run(context.Background(), f, Config{Threads: 4, Operations: int64(b.N)})
	if err != nil || res.Ops != int64(b.N) {
		b.Fatal(err, res.Ops)
	}
}
