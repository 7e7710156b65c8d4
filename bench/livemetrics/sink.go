package livemetrics

import (
	"time"

	"github.com/ybbench/ybbench/bench"
)

// Sink feeds the collector from the engine, once a tick: the tick's
// merged histograms and counts are added to the run's, so nothing is
// done per operation and no worker waits on a scrape.
type Sink struct {
	c      *collector
	warmup time.Duration
}

var _ bench.Sink = (*Sink)(nil)

// Begin takes the run's measurement names, its pacing and its first
// phase.
func (s *Sink) Begin(info *bench.RunInfo) error {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(info.Catalog.Ops)
	c.ops = append([]string(nil), info.Catalog.Ops...)
	c.done, c.failed, c.warm = make([]int64, n), make([]int64, n), make([]int64, n)
	c.service, c.response = make([]*buckets, n), make([]*buckets, n)
	c.measuredSeen, c.warmSeen = make([]bool, n), make([]bool, n)
	c.target = 0
	if r, ok := info.Config.Schedule.(interface{ OfferedRate() float64 }); ok {
		c.target = r.OfferedRate()
	}
	s.warmup = info.Config.Warmup
	c.phase = PhaseRun
	if s.warmup > 0 {
		c.phase = PhaseWarmup
	}
	return nil
}

// Tick adds the interval's measurements. The interval's histograms are
// the engine's to reuse: they are read here, never kept.
func (s *Sink) Tick(iv *bench.Interval) error {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, o := range iv.Measured {
		if o.Empty() {
			continue
		}
		c.measuredSeen[i] = true
		c.done[i] += o.Count()
		c.failed[i] += o.Failed()
		if o.Count() > 0 {
			c.service[i] = addTo(c.service[i], o.Service)
			if o.Response != nil {
				c.response[i] = addTo(c.response[i], o.Response)
			}
		}
	}
	for i, o := range iv.Warmup {
		if !o.Empty() {
			c.warmSeen[i] = true
			c.warm[i] += o.Count() + o.Failed()
		}
	}
	if iv.Elapsed >= s.warmup {
		c.phase = PhaseRun
	}
	return nil
}

// End marks the run done; the counts stay for a scrape until the agent
// exits.
func (s *Sink) End(*bench.Result) error {
	s.c.mu.Lock()
	s.c.phase = PhaseDone
	s.c.mu.Unlock()
	return nil
}
