package ycsb

import (
	"io"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench"
)

// BenchmarkRawSinkSample is the raw-latency output's cost per sample (one
// interval of 1000 samples over three names, with a failure in ten), the
// kept latencies growing as in a run.
func BenchmarkRawSinkSample(b *testing.B) {
	r := NewRawSink(io.Discard, "", io.Discard, IntervalOp, MeasureRaw)
	if err := r.Begin(&bench.RunInfo{Catalog: Catalog}); err != nil {
		b.Fatal(err)
	}
	iv := &bench.Interval{Raw: make([]bench.RawSample, 1000)}
	end := time.Unix(1_700_000_000, 0)
	for i := range iv.Raw {
		iv.Raw[i] = bench.RawSample{Op: bench.Op(i % 3), OK: i%10 != 0, End: end.Add(time.Duration(i) * time.Microsecond), Service: int64(100 + i), Response: int64(100 + i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Tick(iv); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(iv.Raw)), "ns/sample")
}
