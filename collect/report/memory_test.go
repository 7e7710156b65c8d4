package report

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// writeCost renders a run directory once and returns the bytes the
// render allocated and the most heap its objects held at any of the
// samples taken every millisecond while it ran.
func writeCost(t *testing.T, dir string) (alloc, peak uint64) {
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
	_, err := Write(dir)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	metrics.Read(sample)
	return sample[0].Value.Uint64() - from, peak - min(peak, base)
}

// The report of runs ten times BenchmarkWrite's length (one of its
// workloads, its 3 repetitions of 2 agents and 6 operations, each 100 load
// and 600 run ticks) allocates and holds a bounded amount of memory: a
// render that held every decoded tick, or decoded each with a fresh zlib
// reader and dense histogram, allocated and held several times the
// bounds. One workload of six, whose ticks cycle through 20 histograms,
// keeps the test short under the race detector; the workloads are
// rendered apart, each the same, and every tick is decoded.
func TestWriteMemoryIsBounded(t *testing.T) {
	const (
		// About 3 times what a render allocates (20 to 26 MB; the render
		// that held every decoded tick allocated 1483 MB), and 5 times the
		// heap it holds (1 to 3 MB; that render held 231 MB).
		allocBound = 64 << 20
		peakBound  = 16 << 20
	)
	s := benchRun
	s.workloads, s.histograms = s.workloads[:1], 20
	s.loadTicks, s.runTicks, s.warmTicks, s.cpuSamples = 10*s.loadTicks, 10*s.runTicks, 10*s.warmTicks, 10*s.cpuSamples
	dir := t.TempDir()
	if err := writeSynth(dir, s); err != nil {
		t.Fatal(err)
	}
	alloc, peak := writeCost(t, dir)
	t.Logf("one render of %d ticks a run: %d MB allocated, %d MB heap held at most (bounds %d and %d MB)",
		s.loadTicks+s.runTicks, alloc>>20, peak>>20, allocBound>>20, peakBound>>20)
	if alloc > allocBound {
		t.Errorf("one render allocated %d MB, bound %d MB", alloc>>20, allocBound>>20)
	}
	if peak > peakBound {
		t.Errorf("one render held %d MB of heap, bound %d MB", peak>>20, peakBound>>20)
	}
}
