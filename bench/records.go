package bench

import (
	"fmt"
	"maps"
	"math"
	"runtime/metrics"
	"strconv"

	"github.com/ybbench/ybbench/record"
)

// RecordSink writes the run as tick records (record): a Meta line at
// the start, one Tick line per measurement name per interval, flushed at
// every interval, and an End line.
type RecordSink struct {
	w        *record.Writer
	meta     record.Meta
	cat      *Catalog
	seen     []bool // measurement names seen so far: from then on they get a line every interval, zeros included
	warmSeen []bool
	tick     record.Tick // the line being written, reused
	// Counters, if set, supplies workload counters for the End record.
	Counters func() map[string]int64
}

// NewRecordSink writes to w. meta's Agent, Workload, Phase and Settings are
// kept; the engine fills in the rest.
func NewRecordSink(w *record.Writer, meta record.Meta) *RecordSink {
	return &RecordSink{w: w, meta: meta}
}

// Begin writes the Meta record.
func (s *RecordSink) Begin(info *RunInfo) error {
	s.cat = info.Catalog
	s.seen = make([]bool, len(s.cat.Ops))
	s.warmSeen = make([]bool, len(s.cat.Ops))
	m := s.meta
	m.V, m.Type = record.Version, record.KindMeta
	if m.Workload == "" {
		m.Workload = info.Workload
	}
	m.Start = info.Start
	c := info.Config
	m.IntervalMS = c.Interval.Milliseconds()
	m.Threads = c.Threads
	m.Operations = c.Operations
	m.DurationMS = c.Duration.Milliseconds()
	m.WarmupMS = c.Warmup.Milliseconds()
	if c.Schedule != nil {
		m.Schedule = c.Schedule.Describe()
		if r, ok := c.Schedule.(interface{ OfferedRate() float64 }); ok {
			m.TargetOpsPerSec = r.OfferedRate()
		}
	}
	m.Geometry = record.Shared
	m.Ops = append([]string(nil), s.cat.Ops...)
	m.Settings = withRuntime(m.Settings)
	for _, st := range s.cat.Statuses {
		m.Statuses = append(m.Statuses, st.Name)
	}
	s.meta = m
	if err := s.w.Write(&m); err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	return s.w.Flush()
}

// Tick writes one line per measurement name seen so far. It makes no
// garbage once its buffers have grown (record.Writer.WriteTick): what an
// agent allocates every tick for hours is what its memory climbs by
// between collections.
func (s *RecordSink) Tick(iv *Interval) error {
	for _, part := range [2]struct {
		stats  []*OpStats
		seen   []bool
		warmup bool
	}{{iv.Warmup, s.warmSeen, true}, {iv.Measured, s.seen, false}} {
		for i, o := range part.stats {
			if !o.Empty() {
				part.seen[i] = true
			}
			if !part.seen[i] {
				continue
			}
			s.fill(iv, o, part.warmup)
			if err := s.w.WriteTick(&s.tick, o.Service, o.Response, o.ServiceFailed); err != nil {
				return fmt.Errorf("write records: %w", err)
			}
		}
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	return nil
}

// fill sets the sink's tick to o's figures over iv, all but the
// histograms, which WriteTick encodes from o. The tick and its status map
// are the sink's, reused from line to line.
func (s *RecordSink) fill(iv *Interval, o *OpStats, warmup bool) {
	statuses := s.tick.Statuses
	clear(statuses)
	s.tick = record.Tick{
		V: record.Version, Type: record.KindTick, Agent: s.meta.Agent, Phase: s.meta.Phase,
		Op: o.Name, Warmup: warmup, Index: iv.Index, Start: iv.Start, End: iv.End,
		Count: o.Count(), Errors: o.Failed(), Late: o.Late, Overflow: o.Overflow(),
		Statuses: statuses,
	}
	if u := o.Units + o.UnitsFailed; u != s.tick.Count+s.tick.Errors {
		s.tick.Units = o.Units
	}
	for st, n := range o.Statuses {
		if n > 0 {
			if s.tick.Statuses == nil {
				s.tick.Statuses = map[string]int64{}
			}
			s.tick.Statuses[s.cat.Statuses[st].Name] = n
		}
	}
	if o.Response != nil {
		s.tick.ResponseOverflow = o.Response.Overflow()
		if o.ResponseFailed != nil {
			s.tick.ResponseOverflow += o.ResponseFailed.Overflow()
		}
	}
}

// End writes the End record.
func (s *RecordSink) End(res *Result) error {
	e := &record.End{
		V: record.Version, Type: record.KindEnd, Agent: s.meta.Agent, Phase: s.meta.Phase,
		MeasureStart: res.MeasureStart, End: res.End,
		RunTimeMS: float64(res.RunTime.Microseconds()) / 1000, Ops: res.Ops, WarmupOps: res.WarmupOps,
		Stop: string(res.Stop), Cancelled: res.Cancelled,
	}
	if res.Err != nil {
		e.Error = res.Err.Error()
	}
	if s.Counters != nil {
		e.Counters = s.Counters()
	}
	if err := s.w.Write(e); err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	return s.w.Flush()
}

// withRuntime adds the Go runtime settings the agent runs with to a copy of
// settings: the threads running Go code and the collector's target shape
// the client's own cost, whichever family the run is. They are read from
// the runtime itself, so they are what was in force, however it was set.
func withRuntime(settings map[string]string) map[string]string {
	out := make(map[string]string, len(settings)+3)
	maps.Copy(out, settings)
	m := []metrics.Sample{{Name: "/sched/gomaxprocs:threads"}, {Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(m)
	out["go.gomaxprocs"] = strconv.FormatUint(m[0].Value.Uint64(), 10)
	// GOGC=off reads as 0 here and as "off" in the records.
	out["go.gogc"] = "off"
	if gc := m[1].Value.Uint64(); gc > 0 {
		out["go.gogc"] = strconv.FormatUint(gc, 10)
	}
	if lim := m[2].Value.Uint64(); lim < math.MaxInt64 {
		out["go.memory_limit"] = strconv.FormatUint(lim, 10)
	}
	return out
}
