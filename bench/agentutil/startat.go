package agentutil

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// ParseStartAt reads a start instant as the orchestrator writes it: Unix
// milliseconds (YCSB's ybload.start.at, sysbench's --ybload-start-at, kv's
// --ybload_start_at), or an RFC 3339 time for a person typing one.
func ParseStartAt(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("want Unix milliseconds or an RFC 3339 time such as 2024-05-01T12:00:00.5Z")
	}
	return t, nil
}

// Clock is the wall clock a start wait reads; tests give their own.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// WallClock is the system's wall clock.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// After is time.After.
func (WallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// WaitUntil returns once c reads at or later, or with an error wrapping
// ctx's when ctx ends first (a stop during the wait). A zero or past at returns at once
// without calling announce; otherwise announce is told how long the wait
// is before it starts. The deadline is compared with the wall clock again
// after every timer, because at is a wall-clock instant agreed between
// machines and the wall clock may be stepped while the timer runs.
func WaitUntil(ctx context.Context, c Clock, at time.Time, announce func(time.Duration)) error {
	if at.IsZero() {
		return nil
	}
	first := true
	for {
		d := at.Sub(c.Now())
		if d <= 0 {
			return nil
		}
		if first && announce != nil {
			announce(d)
		}
		first = false
		select {
		case <-c.After(d):
		case <-ctx.Done():
			return fmt.Errorf("stopped while waiting for the start time %s: %w", at.Format(time.RFC3339Nano), ctx.Err())
		}
	}
}

// AnnounceWait is the line an agent writes to w before it waits for at, so
// that a person watching a client sees why nothing happens yet.
func AnnounceWait(w io.Writer, at time.Time) func(time.Duration) {
	return func(d time.Duration) {
		fmt.Fprintf(w, "Waiting %v for the start time %s.\n", d.Round(time.Millisecond), at.Format(time.RFC3339Nano))
	}
}
