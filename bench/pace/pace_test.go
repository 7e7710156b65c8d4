package pace

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
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

// farClock is a clock always far past every arrival: the generator never
// waits, so its whole sequence is read without the real clock.
type farClock struct{}

func (farClock) Now() int64 { return math.MaxInt64 / 2 }

// startArrivals runs Poisson.Start on the far clock from origin and takes
// the first n arrivals through a worker's pacer (the queue holds them all).
func startArrivals(t *testing.T, rate float64, seed uint64, origin int64, n int) []int64 {
	t.Helper()
	p := &Poisson{Rate: rate, Queue: n, Seed: seed}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.Start(ctx, farClock{}, origin)
	w := p.Pacer(0, 0)
	out := make([]int64, n)
	for i := range out {
		at, ok := w.Next(ctx)
		if !ok {
			t.Fatalf("the schedule ended after %d arrivals", i)
		}
		out[i] = at
	}
	return out
}

// The generator's arrivals are the running sums of -ln(1-u)/rate seconds
// over the uniform draws of PCG(seed, 0x5851f42d4c957f2d), from the origin:
// computed here from the draws themselves, not by the package.
func TestPoissonStartFollowsItsDraws(t *testing.T) {
	const rate, seed, origin, n = 250.0, 7, int64(5_000_000_000), 50
	got := startArrivals(t, rate, seed, origin, n)
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	want := origin
	for i, at := range got {
		gap := -math.Log(1-rng.Float64()) * 1e9 / rate
		want += int64(gap)
		if at != want {
			t.Fatalf("arrival %d at %d ns, want %d", i, at, want)
		}
	}
}

// The mean of the gaps is 1/rate and their coefficient of variation is 1.
func TestPoissonGapIsExponential(t *testing.T) {
	const rate, n = 5000.0, 200_000
	arr := startArrivals(t, rate, 42, 0, n)
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

// The seed is the sequence: the same seed repeats it, another changes it.
func TestPoissonSeedDecidesTheArrivals(t *testing.T) {
	a, b := startArrivals(t, 100, 7, 0, 10), startArrivals(t, 100, 7, 0, 10)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 twice: %v and %v", a, b)
	}
	if c := startArrivals(t, 100, 8, 0, 10); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 give the same arrivals %v", a)
	}
}

// With nobody taking arrivals, the queue fills and the schedule fails with
// ErrQueueFull instead of silently dropping or blocking.
func TestPoissonQueueOverflowIsAnError(t *testing.T) {
	p := &Poisson{Rate: 1e6, Queue: 8, Seed: 1}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.Start(ctx, farClock{}, 0)
	// The generator closes the queue when it overflows: drain it to the end.
	w := p.Pacer(0, 0)
	for _, ok := w.Next(ctx); ok; _, ok = w.Next(ctx) {
	}
	if p.Err() != ErrQueueFull {
		t.Fatalf("err = %v, want ErrQueueFull", p.Err())
	}
}
