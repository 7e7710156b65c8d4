package report

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// costOf runs fn once and returns the bytes it allocated and the most
// heap its objects held at any of the samples taken every millisecond
// while it ran.
func costOf(t *testing.T, fn func() error) (alloc, peak uint64) {
	t.Helper()
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	from, base := sample[0].Value.Uint64(), sample[1].Value.Uint64()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	err := fn()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	metrics.Read(sample)
	return sample[0].Value.Uint64() - from, peak - min(peak, base)
}

// The collect and report stages of runs ten times BenchmarkWrite's length
// (one of its workloads, its 3 repetitions of 2 agents and 6 operations,
// each 100 load and 600 run ticks) allocate and hold a bounded amount of
// memory. collect reads every tick once, decoding its histograms for the
// result and the report's series (series.json) alike: a reading that held
// every decoded tick, or decoded each with a fresh zlib reader and dense
// histogram, allocated and held several times its bounds. The report
// draws from series.json and decodes no tick: a render that read the
// records again allocates more than twice its bound. One workload of six,
// whose ticks cycle through 20 histograms, keeps the test short under the
// race detector; the workloads are read apart, each the same.
func TestWriteMemoryIsBounded(t *testing.T) {
	const (
		// About 3 times what collect's reading allocates (24 MB, 27
		// under the race detector) and 3 to 4 times the heap it holds (5
		// to 8 MB); the report that held every decoded tick allocated
		// 1483 MB and held 231.
		collectAllocBound = 72 << 20
		collectPeakBound  = 24 << 20
		// About twice what the render allocates (7 MB, 10 under the race
		// detector), below what it allocates when it reads the records
		// (22 MB), and 4 times the heap it holds (2 to 3 MB).
		allocBound = 16 << 20
		peakBound  = 12 << 20
	)
	s := benchRun
	s.workloads, s.histograms = s.workloads[:1], 20
	s.loadTicks, s.runTicks, s.warmTicks, s.cpuSamples = 10*s.loadTicks, 10*s.runTicks, 10*s.warmTicks, 10*s.cpuSamples
	dir := t.TempDir()
	if err := writeSynth(dir, s); err != nil {
		t.Fatal(err)
	}
	calloc, cpeak := costOf(t, func() error { return collectSeries(dir, s) })
	alloc, peak := costOf(t, func() error { _, err := Write(dir); return err })
	t.Logf("%d ticks a run: collect's reading %d MB allocated, %d MB heap held at most (bounds %d and %d MB); one render %d MB allocated, %d MB held (bounds %d and %d MB)",
		s.loadTicks+s.runTicks, calloc>>20, cpeak>>20, collectAllocBound>>20, collectPeakBound>>20, alloc>>20, peak>>20, allocBound>>20, peakBound>>20)
	for _, c := range []struct {
		what       string
		got, bound uint64
	}{{"collect's reading allocated", calloc, collectAllocBound}, {"collect's reading held", cpeak, collectPeakBound},
		{"one render allocated", alloc, allocBound}, {"one render held", peak, peakBound}} {
		if c.got > c.bound {
			t.Errorf("%s %d MB, bound %d MB", c.what, c.got>>20, c.bound>>20)
		}
	}
}
