package main

import (
	"strings"
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

// The collector's trace gives each collection's time from the process's
// start and the live heap it left; other lines are not collections.
func TestParseGCTrace(t *testing.T) {
	started := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	trace := "Starting test.\n" +
		"gc 3 @0.034s 2%: 0.032+1.0+0.009 ms clock, 0.064+0.099/0.23/0.15+0.018 ms cpu, 17->17->16 MB, 17 MB goal, 0 MB stacks, 0 MB globals, 2 P\n" +
		"GC forced\n" +
		"gc 4 @120.037s 0%: 0.10+0.64+0.003 ms clock, 0.21+0/0.13/0.41+0.007 ms cpu, 30->30->17 MB, 34 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"
	got := parseGCTrace(trace, started)
	if len(got) != 2 || got[0].liveMB != 16 || got[1].liveMB != 17 ||
		!got[0].at.Equal(started.Add(34*time.Millisecond)) || !got[1].at.Equal(started.Add(120037*time.Millisecond)) {
		t.Fatalf("parsed %+v", got)
	}
	h := gcsByHour(got, started.Add(time.Second), time.Minute, 3)
	if h[0].n != 0 || h[1].n != 1 || h[1].last != 17 || h[2].n != 0 { // 119 s after the start: the second minute
		t.Errorf("by hour %+v", h)
	}
	if b := gcsBefore(got, started.Add(time.Second)); b.n != 1 || b.last != 16 {
		t.Errorf("before %+v", b)
	}
}

// The agent's environment turns the trace on beside what GODEBUG held,
// and sets GOGC only when asked, replacing the caller's.
func TestGCTraceEnv(t *testing.T) {
	env := []string{"PATH=/bin", "GODEBUG=madvdontneed=1", "GOGC=50"}
	got := strings.Join(gctraceEnv(env, "5"), " ")
	if got != "PATH=/bin GODEBUG=madvdontneed=1,gctrace=1 GOGC=5" {
		t.Errorf("with GOGC=5: %s", got)
	}
	got = strings.Join(gctraceEnv(env, "default"), " ")
	if got != "PATH=/bin GOGC=50 GODEBUG=madvdontneed=1,gctrace=1" {
		t.Errorf("default: %s", got)
	}
}
