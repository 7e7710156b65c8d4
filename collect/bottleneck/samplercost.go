package bottleneck

import (
	"fmt"

	"github.com/ybbench/ybbench/record/hostcpu"
)

// samplerCost is what reading a host cost it, in percent of one core: the
// CPU ticks the reading shell used (its reaped children's included)
// between the first and the last reading of its longest session (the
// stream of the measured phase: the one-off readings before and after it
// are sessions of their own), over the time between them. A session's
// start (the SSH session, the shell, its setup) is left out: what is
// measured is the cost of reading every second, which is what a longer
// phase pays more of. nil when no session gave two readings that carry
// the count (readings taken before it was counted).
func samplerCost(s hostcpu.Span) *float64 {
	type session struct{ pid, start int64 }
	first, last := map[session]hostcpu.Sample{}, map[session]hostcpu.Sample{}
	count := map[session]int{}
	var longest session
	for _, x := range s.Readings() {
		if x.Sampler == nil {
			continue
		}
		k := session{x.Sampler.PID, x.Sampler.Start}
		if _, ok := first[k]; !ok {
			first[k] = x
		}
		last[k] = x
		count[k]++
		if count[k] > count[longest] {
			longest = k
		}
	}
	if count[longest] < 2 {
		return nil
	}
	a, b := first[longest], last[longest]
	secs, ticks := b.At-a.At, b.Sampler.Ticks-a.Sampler.Ticks
	if secs <= 0 || ticks < 0 || a.Hz <= 0 {
		return nil
	}
	p := round(100*float64(ticks)/float64(a.Hz)/secs, 100)
	return &p
}

// samplingEvidence says what reading the hosts cost at most, and on
// which host ("" when no host's readings counted it): the figures of a
// verdict are the hosts' with that cost in them.
func samplingEvidence(hosts []Load) string {
	var worst *Load
	for i, h := range hosts {
		if h.SamplerPercent != nil && (worst == nil || *h.SamplerPercent > *worst.SamplerPercent) {
			worst = &hosts[i]
		}
	}
	if worst == nil {
		return ""
	}
	return fmt.Sprintf("reading the hosts every second cost at most %.2f%% of one core a host (%s's readings; the SSH session carrying them not counted)", *worst.SamplerPercent, worst.Host)
}
