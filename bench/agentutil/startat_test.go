package agentutil

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestParseStartAt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"1700000000123", time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)},
		{" 1700000000123\n", time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)},
		{"2023-11-14T22:13:20.123Z", time.Date(2023, 11, 14, 22, 13, 20, 123e6, time.UTC)},
		{"2023-11-14T23:13:20.123456789+01:00", time.Date(2023, 11, 14, 22, 13, 20, 123456789, time.UTC)},
	} {
		got, err := ParseStartAt(c.in)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseStartAt(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "soon", "1.5", "2023-11-14 22:13:20", "99999999999999999999"} {
		if got, err := ParseStartAt(bad); err == nil {
			t.Errorf("ParseStartAt(%q) = %v, want an error", bad, got)
		}
	}
}

// stepClock is a wall clock the test moves by hand; every timer asked of
// it is reported on asked and fires when the test sends on fire.
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	asked chan time.Duration
	fire  chan time.Time
}

func (c *stepClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stepClock) set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }
func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.asked <- d
	return c.fire
}

// The wait ends when the clock reads the instant, not when the first timer
// fires: a timer that ends early (the wall clock stepped back) is followed
// by another for the rest.
func TestWaitUntilEndsAtTheInstantOnTheClock(t *testing.T) {
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	c := &stepClock{now: base, asked: make(chan time.Duration), fire: make(chan time.Time)}
	var announced []time.Duration
	done := make(chan error, 1)
	go func() {
		done <- WaitUntil(context.Background(), c, base.Add(300*time.Millisecond), func(d time.Duration) { announced = append(announced, d) })
	}()
	if d := <-c.asked; d != 300*time.Millisecond {
		t.Fatalf("first timer %v, want 300ms", d)
	}
	c.set(base.Add(100 * time.Millisecond))
	c.fire <- base
	if d := <-c.asked; d != 200*time.Millisecond {
		t.Fatalf("second timer %v, want the 200ms left", d)
	}
	c.set(base.Add(300 * time.Millisecond))
	c.fire <- base
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(announced) != 1 || announced[0] != 300*time.Millisecond {
		t.Errorf("announced %v, want the whole wait once", announced)
	}
}

// No start time, or one already past: no timer, no announcement.
func TestWaitUntilPastOrZeroReturnsAtOnce(t *testing.T) {
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	// A nil asked channel blocks forever: a timer asked for hangs the test.
	c := &stepClock{now: base}
	for _, at := range []time.Time{{}, base, base.Add(-time.Hour)} {
		if err := WaitUntil(context.Background(), c, at, func(time.Duration) { t.Errorf("announced a wait for %v", at) }); err != nil {
			t.Errorf("%v: %v", at, err)
		}
	}
}

// A stop (the agent's context, cancelled by SIGINT or SIGTERM) ends the
// wait with the context's error.
func TestWaitUntilStops(t *testing.T) {
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	c := &stepClock{now: base, asked: make(chan time.Duration), fire: make(chan time.Time)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- WaitUntil(ctx, c, base.Add(time.Hour), nil) }()
	<-c.asked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// On the real wall clock, the wait does not end before the instant.
func TestWaitUntilWallClock(t *testing.T) {
	at := time.Now().Add(300 * time.Millisecond).Truncate(time.Millisecond)
	if err := WaitUntil(context.Background(), WallClock{}, at, nil); err != nil {
		t.Fatal(err)
	}
	if now := time.Now(); now.Before(at) {
		t.Errorf("returned at %v, before the start time %v", now, at)
	}
}
