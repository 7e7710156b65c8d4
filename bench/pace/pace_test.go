package pace

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestTargetScheduleIsAbsolute(t *testing.T) {
	cases := []struct {
		name    string
		rate    float64
		threads int
		tick    int64
	}{
		{"1000 ops/s on 1 thread", 1000, 1, 1_000_000},
		{"100 ops/s on 4 threads", 100, 4, 40_000_000},
		{"3 ops/s on 2 threads", 3, 2, 666_666_666}, // YCSB truncates the tick
		{"250k ops/s on 256 threads", 250_000, 256, 1_024_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Target{OpsPerSec: c.rate, Threads: c.threads}
			if got := s.TickNs(); got != c.tick {
				t.Fatalf("tick %d, want %d", got, c.tick)
			}
			for _, k := range []int64{0, 1, 2, 1000} {
				if got := s.IntendedOffset(k); got != k*c.tick {
					t.Errorf("op %d due at %d, want %d", k, got, k*c.tick)
				}
			}
		})
	}
}

func TestTargetJitterOnlyForSlowThreads(t *testing.T) {
	slow := &Target{OpsPerSec: 100, Threads: 1, Jitter: true}      // 0.1 ops/ms per thread
	fast := &Target{OpsPerSec: 100_000, Threads: 10, Jitter: true} // 10 ops/ms per thread
	if got, want := slow.JitterNs(0.5), slow.TickNs()/2; got != want {
		t.Errorf("slow jitter %d, want %d", got, want)
	}
	if got := fast.JitterNs(0.5); got != 0 {
		t.Errorf("fast jitter %d, want 0", got)
	}
}

func TestPoissonGapIsExponential(t *testing.T) {
	// The mean of the gaps is 1/rate and their coefficient of variation is 1.
	const rate, n = 5000.0, 200_000
	arr := Arrivals(rate, 42, n)
	var prev int64
	var sum, sumsq float64
	for _, a := range arr {
		g := float64(a - prev)
		if g < 0 {
			t.Fatal("arrivals go backwards")
		}
		sum += g
		sumsq += g * g
		prev = a
	}
	mean := sum / n
	sd := math.Sqrt(sumsq/n - mean*mean)
	want := 1e9 / rate
	// Standard error of the mean is want/sqrt(n) ≈ 0.22 %; allow 1 %.
	if math.Abs(mean-want)/want > 0.01 {
		t.Errorf("mean gap %.0f ns, want %.0f ±1%%", mean, want)
	}
	if cv := sd / mean; math.Abs(cv-1) > 0.02 {
		t.Errorf("coefficient of variation %.3f, want 1 ±0.02", cv)
	}
	if GapNs(rate, 0) != 0 {
		t.Error("a zero draw must give a zero gap")
	}
}

func TestPoissonSameSeedSameArrivals(t *testing.T) {
	a, b := Arrivals(100, 7, 10), Arrivals(100, 7, 10)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("arrival %d differs: %d vs %d", i, a[i], b[i])
		}
	}
}

type fakeClock struct{ base time.Time }

func (c fakeClock) Now() int64 { return int64(time.Since(c.base)) }

// With nobody taking arrivals, the queue fills and the schedule fails with
// ErrQueueFull instead of silently dropping or blocking.
func TestPoissonQueueOverflowIsAnError(t *testing.T) {
	p := &Poisson{Rate: 1e6, Queue: 8, Seed: 1}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.Start(ctx, fakeClock{time.Now()}, 0)
	deadline := time.Now().Add(10 * time.Second)
	for p.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if p.Err() != ErrQueueFull {
		t.Fatalf("err = %v, want ErrQueueFull", p.Err())
	}
}
