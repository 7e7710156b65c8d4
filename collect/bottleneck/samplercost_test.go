package bottleneck

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record/hostcpu"
)

// withSampler is a reading taken by the shell of session pid, which had
// used ticks so far.
func withSampler(r reading, pid, ticks int64) hostcpu.Sample {
	s := r.sample()
	s.Sampler = &hostcpu.Sampler{PID: pid, Start: 7 * pid, Ticks: ticks}
	return s
}

// The cost is the streamed session's ticks over its own readings' time:
// the one-off readings before and after it (other shells, whose ticks are
// their own setup) change nothing, and a host whose readings do not
// count it has none, rather than a zero.
func TestSamplerCostIsTheStreamsOwn(t *testing.T) {
	stream := hostcpu.Span{
		Before: withSampler(reading{at: 99}, 40, 3),
		Samples: []hostcpu.Sample{
			withSampler(reading{at: 100}, 41, 5),
			withSampler(reading{at: 105}, 41, 7),
			withSampler(reading{at: 110}, 41, 9),
		},
		After: withSampler(reading{at: 111}, 42, 4),
	}
	got := samplerCost(stream)
	// 4 ticks at 100 Hz over 10 s: 0.4% of one core.
	if got == nil || *got != 0.4 {
		t.Fatalf("cost %v, want 0.4%% of one core", got)
	}
	// Readings without the count, or one reading of a session, give none.
	if c := samplerCost(span(reading{at: 100}, reading{at: 110, own: 10})); c != nil {
		t.Errorf("readings without the count: %v", *c)
	}
	one := hostcpu.Span{Before: withSampler(reading{at: 99}, 40, 3), After: withSampler(reading{at: 111}, 42, 4)}
	if c := samplerCost(one); c != nil {
		t.Errorf("two sessions of one reading each: %v", *c)
	}
}

// Judge says what reading cost at most, naming the host, with the
// verdict's other evidence; with no host counting it, it says nothing of it.
func TestJudgeSaysWhatReadingCost(t *testing.T) {
	db := idle10(false)
	db.Samples = []hostcpu.Sample{withSampler(reading{at: 101}, 9, 10), withSampler(reading{at: 109}, 9, 14)}
	client := idle10(true)
	client.Samples = []hostcpu.Sample{withSampler(reading{at: 101}, 8, 1), withSampler(reading{at: 109}, 8, 2)}
	v := Judge(input(closed, db, client))
	want := "reading the hosts every second cost at most 0.50% of one core a host (db-1's readings"
	if !strings.Contains(strings.Join(v.Evidence, "\n"), want) {
		t.Errorf("evidence %q lacks %q", v.Evidence, want)
	}
	for _, h := range v.Hosts {
		if h.SamplerPercent == nil {
			t.Errorf("%s: no sampler cost", h.Host)
		}
	}
	v = Judge(input(closed, idle10(false), idle10(true)))
	if strings.Contains(strings.Join(v.Evidence, "\n"), "reading the hosts") {
		t.Errorf("no reading counted its cost, yet: %q", v.Evidence)
	}
}
