package pace

import (
	"context"
	"testing"
	"time"
)

// A wait never ends before its due time, on the kernel timer or on Go's,
// and the same sleeper waits again (its timer re-armed).
func TestSleeperNeverWakesEarly(t *testing.T) {
	clk := monoClock{time.Now()}
	var s sleeper
	for i, d := range []time.Duration{3 * time.Millisecond, 300 * time.Microsecond, 0, 2 * time.Millisecond} {
		due := clk.Now() + int64(d)
		if !s.until(context.Background(), clk, due) {
			t.Fatalf("wait %d (%v) said the context ended", i, d)
		}
		if now := clk.Now(); now < due {
			t.Errorf("wait %d (%v) ended %v before its due time", i, d, time.Duration(due-now))
		}
	}
}

// A context that ends cuts a long wait short, on the kernel timer and on
// Go's; one already ended does not wait at all. (The test waits on the
// result's channel: a wait that ignored the context would hold it for an
// hour, past the test's timeout.)
func TestSleeperEndsWithItsContext(t *testing.T) {
	clk := monoClock{time.Now()}
	var s sleeper
	ctx, cancel := context.WithCancel(context.Background())
	// Positive control first: a live context's short wait ends true.
	if !s.until(ctx, clk, clk.Now()+int64(time.Millisecond)) {
		t.Fatal("a live context's wait ended false")
	}
	done := make(chan bool)
	started := make(chan struct{})
	go func() {
		close(started)
		done <- s.until(ctx, clk, clk.Now()+int64(time.Hour))
	}()
	<-started
	cancel()
	if ok := <-done; ok {
		t.Error("the wait cut short by its context ended true")
	}
	if s.until(ctx, clk, clk.Now()+int64(time.Hour)) {
		t.Error("a wait under an ended context ended true")
	}
	// A new context is followed, not the ended one.
	if !s.until(context.Background(), clk, clk.Now()+int64(time.Millisecond)) {
		t.Error("a wait under a new live context ended false")
	}
}
