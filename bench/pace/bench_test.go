package pace

import (
	"context"
	"testing"
	"time"
)

type monoClock struct{ base time.Time }

func (c monoClock) Now() int64 { return int64(time.Since(c.base)) }

// BenchmarkTargetPacedOp is one paced operation's wait on a 20 µs
// per-thread schedule: what the pacer costs beyond the wait itself.
func BenchmarkTargetPacedOp(b *testing.B) {
	s := &Target{OpsPerSec: 50_000, Threads: 1}
	ctx := context.Background()
	s.Start(ctx, monoClock{time.Now()}, 0)
	p := s.Pacer(0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := p.Next(ctx); !ok {
			b.Fatal("the schedule ended")
		}
	}
}
