package collect

import (
	"fmt"
	"time"

	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// phaseSeries is one phase of a workload (or of one repetition) as the
// report's charts draw it: its intervals (one per tick index, over the
// agents, in index order), the earliest start of its agents, the
// measured phase's spectrum, and the record files or ticks that could
// not be read. It is what seriesOf turns into the series file's
// SeriesPhase.
type phaseSeries struct {
	intervals []interval
	origin    time.Time
	spectrum  map[string]*hist.Hist
	errs      []error
}

// interval is one tick index of a phase, over its agents: its span, the
// agents' summed rate, and the percentiles of its histograms added.
type interval struct {
	start, end time.Time
	rate       float64
	warmup     bool
	p50, p99   int64
}

// latencySum adds an interval's histograms up: hist.Counts for the one
// interval open at a time, hist.Sparse for each of a phase read whole.
type latencySum interface {
	Merge(*hist.Sparse)
	Percentile(float64) int64
	Reset()
}

// openInterval is an interval whose ticks are still being added.
type openInterval struct {
	interval
	latency latencySum
	// agent's rate is summed apart and added to the interval's when the
	// next agent's ticks begin, as each agent's rates were always summed
	// first: the same additions, in the same order, give the same figure.
	agent     int
	agentRate float64
	agentHas  bool
}

func (iv *openInterval) reset(t *record.Tick) {
	iv.interval = interval{start: t.Start, end: t.End}
	iv.latency.Reset()
	iv.agent, iv.agentRate, iv.agentHas = -1, 0, false
}

func (iv *openInterval) flushAgent() {
	if iv.agentHas {
		iv.rate += iv.agentRate
	}
	iv.agentRate, iv.agentHas = 0, false
}

// close ends the interval: the last agent's rate added, its percentiles
// read.
func (iv *openInterval) close() interval {
	iv.flushAgent()
	out := iv.interval
	out.p50, out.p99 = iv.latency.Percentile(50), iv.latency.Percentile(99)
	return out
}

// seriesBuilder adds ticks into a phase's series. Its caller decodes each
// tick's service times once and hands the histogram to it and to the
// merger alike (decodeService).
type seriesBuilder struct {
	ps       phaseSeries
	measured bool // the phase whose spectrum is drawn
}

// decodeService decodes a tick's service times with dec: nil without
// them; an error names the file and the tick, as the merger names it.
func decodeService(dec *hist.Decoder, path string, t *record.Tick) (*hist.Sparse, error) {
	if t.Service == "" {
		return nil, nil
	}
	h, err := dec.Decode(t.Service, t.Overflow)
	if err != nil {
		return nil, fmt.Errorf("%s: tick %d of %s: %w", path, t.Index, t.Op, err)
	}
	return h, nil
}

// add adds an agent's tick, its service times decoded (h, or decodeErr),
// to its interval: for the interval's percentiles and, in the measured
// phase after warm-up, the spectrum. A histogram that cannot be read is
// named in errs; the tick still counts toward the rate.
func (sb *seriesBuilder) add(iv *openInterval, agent int, t *record.Tick, h *hist.Sparse, decodeErr error, errs *[]error) {
	if t.Start.Before(iv.start) {
		iv.start = t.Start
	}
	if t.End.After(iv.end) {
		iv.end = t.End
	}
	iv.warmup = iv.warmup || t.Warmup
	if agent != iv.agent {
		iv.flushAgent()
		iv.agent = agent
	}
	if secs := t.End.Sub(t.Start).Seconds(); secs > 0 {
		iv.agentRate += float64(t.Count+t.Errors) / secs
		iv.agentHas = true
	}
	if t.Service == "" {
		return
	}
	if decodeErr != nil {
		*errs = append(*errs, decodeErr)
		return
	}
	iv.latency.Merge(h)
	if sb.measured && !t.Warmup {
		if sb.ps.spectrum == nil {
			sb.ps.spectrum = map[string]*hist.Hist{}
		}
		sh := sb.ps.spectrum[t.Op]
		if sh == nil {
			sh = hist.New()
			sb.ps.spectrum[t.Op] = sh
		}
		sh.MergeSparse(h)
	}
}

// earliest is the earlier of origin and a file's start (origin when the
// file has no meta record, the start when origin is not set).
func earliest(origin time.Time, m *record.Meta) time.Time {
	if m != nil && (origin.IsZero() || m.Start.Before(origin)) {
		return m.Start
	}
	return origin
}
