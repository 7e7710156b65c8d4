package infra

import (
	"context"
	"time"
)

// Backoff is the bounded exponential backoff of the cloud janitors'
// retries and polls: waits of First, 2×First, 4×First, … each at most Max,
// ending before their sum would pass Budget. The sum of the waits, not the
// clock, is bounded, so a test that records the waits sees the bound
// exactly. No jitter: one janitor retries a few resources, not a fleet.
type Backoff struct {
	First, Max, Budget time.Duration
}

// After is the wait after the n-th failed attempt (n ≥ 1), waited being
// the sum of the waits before it; ok is false when that wait would take
// the sum past the budget: time to give up.
func (b Backoff) After(n int, waited time.Duration) (wait time.Duration, ok bool) {
	wait = b.First
	for i := 1; i < n && wait < b.Max; i++ {
		wait *= 2
	}
	wait = min(wait, b.Max)
	return wait, waited+wait <= b.Budget
}

// Sleep waits d, or less when ctx ends (its error then). The janitors
// wait with it between attempts; their tests replace it to record the
// waits instead.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
