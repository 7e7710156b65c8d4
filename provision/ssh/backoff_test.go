package ssh

import (
	"testing"
	"time"
)

func TestBackoffSchedule(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		b    Backoff
		want []time.Duration // delays after attempts 1, 2, …
	}{
		{"default", DefaultBackoff, []time.Duration{250 * ms, 500 * ms, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}},
		{"capped at once", Backoff{Initial: time.Second, Max: 500 * ms, Multiplier: 2}, []time.Duration{500 * ms, 500 * ms}},
		{"no cap", Backoff{Initial: ms, Multiplier: 10}, []time.Duration{ms, 10 * ms, 100 * ms, time.Second}},
		{"multiplier below 1 is constant", Backoff{Initial: 100 * ms, Max: time.Second, Multiplier: 0.5}, []time.Duration{100 * ms, 100 * ms, 100 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, want := range tc.want {
				if got := tc.b.Delay(i + 1); got != want {
					t.Fatalf("Delay(%d) = %s, want %s", i+1, got, want)
				}
			}
			if got := tc.b.Delay(0); got != tc.want[0] {
				t.Fatalf("Delay(0) = %s, want the first delay %s", got, tc.want[0])
			}
		})
	}
	// Far out, the cap holds without overflowing.
	if got := DefaultBackoff.Delay(10000); got != 5*time.Second {
		t.Fatalf("Delay(10000) = %s", got)
	}
}
