package main

import (
	"testing"
	"time"
)

// Readings fall in the hour their time gives, from the measured phase's
// start; those before it or after the last hour fall in none.
func TestByHour(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	samples := []rssSample{{at(-5), 1}, {at(0), 10}, {at(40), 30}, {at(99), 20}, {at(100), 40}, {at(150), 60}, {at(200), 99}}
	h := byHour(samples, start, 100*time.Millisecond, 2)
	if h[0].n != 3 || h[0].lo != 10 || h[0].hi != 30 || h[0].last != 20 || h[0].mean() != 20 {
		t.Errorf("first hour %+v", h[0])
	}
	if h[1].n != 2 || h[1].lo != 40 || h[1].hi != 60 || h[1].last != 60 || h[1].mean() != 50 {
		t.Errorf("second hour %+v", h[1])
	}
}
