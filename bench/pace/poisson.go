package pace

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// DefaultQueue is sysbench's event queue size (src/sysbench.c: 131072 slots).
const DefaultQueue = 131072

// ErrQueueFull is the failure of an open-model run whose workers cannot keep
// up: arrivals piled up beyond the queue. sysbench aborts the run the same way.
var ErrQueueFull = errors.New("the event queue is full: the workers cannot keep up with the requested rate")

// Poisson is sysbench's --rate: one generator draws exponentially distributed
// gaps (a Poisson arrival process of the given mean rate) and puts each
// arrival time into a bounded queue; a free worker takes the oldest. The
// intended start of an operation is its arrival time, so its latency includes
// the time it waited in the queue.
type Poisson struct {
	// Rate is the mean number of arrivals per second across all workers.
	Rate float64
	// Queue is the queue capacity (DefaultQueue when 0).
	Queue int
	// Seed feeds the generator's randomness (recorded with the results).
	Seed uint64

	ch   chan int64
	once sync.Once
	mu   sync.Mutex
	err  error
}

var _ Schedule = (*Poisson)(nil)

// GapNs is the pure schedule: the gap before the next arrival, given a
// uniform draw u in [0,1): -ln(1-u) × mean gap.
func GapNs(rate, u float64) int64 {
	return int64(-math.Log(1-u) * 1e9 / rate)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d)) }

func (p *Poisson) queue() chan int64 {
	p.once.Do(func() {
		n := p.Queue
		if n <= 0 {
			n = DefaultQueue
		}
		p.ch = make(chan int64, n)
	})
	return p.ch
}

// Start runs the generator until ctx is done or the queue overflows.
func (p *Poisson) Start(ctx context.Context, clk Clock, origin int64) {
	ch := p.queue()
	go func() {
		rng := newRand(p.Seed)
		var sleep sleeper
		t := origin
		for {
			t += GapNs(p.Rate, rng.Float64())
			if !sleep.until(ctx, clk, t) {
				return
			}
			select {
			case ch <- t:
			default:
				p.mu.Lock()
				p.err = ErrQueueFull
				p.mu.Unlock()
				close(ch)
				return
			}
		}
	}()
}

// Err reports ErrQueueFull after an overflow.
func (p *Poisson) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// OfferedRate is the mean rate asked for, in operations per second.
func (p *Poisson) OfferedRate() float64 { return p.Rate }

// Describe names the schedule for the records.
func (p *Poisson) Describe() string {
	return fmt.Sprintf("poisson %g events/s, queue %d, seed %d", p.Rate, cap(p.queue()), p.Seed)
}

// Len is the number of arrivals waiting in the queue for a free worker
// (sysbench's "queue length" report line).
func (p *Poisson) Len() int { return len(p.queue()) }

// Pacer returns a worker's view of the shared queue.
func (p *Poisson) Pacer(int, uint64) Pacer { return poissonPacer{ch: p.queue()} }

type poissonPacer struct{ ch chan int64 }

func (q poissonPacer) Next(ctx context.Context) (int64, bool) {
	select {
	case t, ok := <-q.ch:
		return t, ok
	case <-ctx.Done():
		return 0, false
	}
}
