package infra

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestBackoffAfter: the waits double from First up to Max, and stop
// before their sum would pass the budget.
func TestBackoffAfter(t *testing.T) {
	b := Backoff{First: 5 * time.Second, Max: time.Minute, Budget: 135 * time.Second}
	var waits []time.Duration
	var waited time.Duration
	for n := 1; ; n++ {
		d, ok := b.After(n, waited)
		if !ok {
			if n != 6 || d != time.Minute {
				t.Errorf("gave up after attempt %d with a wait of %s, want after 6 with 1m0s", n, d)
			}
			break
		}
		waits = append(waits, d)
		waited += d
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute}
	if !slices.Equal(waits, want) || waited != b.Budget {
		t.Errorf("waits %v (sum %s), want %v (sum %s)", waits, waited, want, b.Budget)
	}
	if d, ok := b.After(1000, 0); d != time.Minute || !ok {
		t.Errorf("after 1000 attempts: %s %v, want the maximum", d, ok)
	}
}

// TestSleepEndsWithItsContext: a sleep whose context ends returns at once
// with the context's error.
func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep: %v, want context.Canceled", err)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v", err)
	}
}
