package pace

import (
	"context"
	"testing"
	"time"
)

// On Linux the wait is the kernel timer's, not Go's fallback: the
// sleeper holds its timerfd after a wait, without an error, and has not
// made a Go timer.
func TestSleeperWaitsOnTheKernelTimer(t *testing.T) {
	clk := monoClock{time.Now()}
	var s sleeper
	if !s.until(context.Background(), clk, clk.Now()+int64(2*time.Millisecond)) {
		t.Fatal("a live context's wait ended false")
	}
	if s.precise.f == nil || s.precise.err != nil || s.t != nil {
		t.Errorf("timerfd %v, error %v, Go timer made %v: the wait was not the kernel timer's", s.precise.f, s.precise.err, s.t != nil)
	}
}
