package report

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// phaseSeries is one phase of a run as its charts draw it: its intervals
// (one per tick index, over the agents, in index order), the earliest
// start of its agents, the measured phase's spectrum, and the record
// files or ticks that could not be read.
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

// errUnordered says that a phase's files cannot be read side by side a
// tick at a time: a file's tick indices go back, or a file does not read
// to its end. The phase is then read whole, as it always was.
var errUnordered = errors.New("record files not in tick order")

// phaseReader turns ticks into a phase's series; one per workload, its
// decoder reused for every tick of every run.
type phaseReader struct {
	dec      *hist.Decoder
	measured bool // the phase whose spectrum is drawn
}

// add adds an agent's tick to its interval, decoding its histogram once
// for the interval's percentiles and, in the measured phase after
// warm-up, the spectrum. A histogram that cannot be read is named in
// errs; the tick still counts toward the rate.
func (pr *phaseReader) add(ps *phaseSeries, iv *openInterval, agent int, path string, t *record.Tick, errs *[]error) {
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
	h, err := pr.dec.Decode(t.Service, t.Overflow)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: tick %d of %s: %w", path, t.Index, t.Op, err))
		return
	}
	iv.latency.Merge(h)
	if pr.measured && !t.Warmup {
		if ps.spectrum == nil {
			ps.spectrum = map[string]*hist.Hist{}
		}
		sh := ps.spectrum[t.Op]
		if sh == nil {
			sh = hist.New()
			ps.spectrum[t.Op] = sh
		}
		sh.MergeSparse(h)
	}
}

// stream reads a phase's files side by side, a tick at a time: all the
// ticks of the lowest index left, file after file, then the next index,
// holding one interval and one tick of each file. It returns errUnordered
// when that cannot give what reading the files whole gives.
func (pr *phaseReader) stream(streams []*collect.RecordStream) (phaseSeries, error) {
	var ps phaseSeries
	fileErrs := make([][]error, len(streams))
	live := make([]bool, len(streams))
	for i, s := range streams {
		if live[i] = s.Next(); !live[i] && s.Err() != nil {
			return ps, errUnordered
		}
	}
	iv := &openInterval{latency: &hist.Counts{}}
	for {
		cur, found := 0, false
		for i, s := range streams {
			if live[i] && (!found || s.Tick().Index < cur) {
				cur, found = s.Tick().Index, true
			}
		}
		if !found {
			break
		}
		first := true
		for i, s := range streams {
			for live[i] && s.Tick().Index == cur {
				if first {
					iv.reset(s.Tick())
					first = false
				}
				pr.add(&ps, iv, i, s.Path, s.Tick(), &fileErrs[i])
				if live[i] = s.Next(); !live[i] && s.Err() != nil || live[i] && s.Tick().Index < cur {
					return ps, errUnordered
				}
			}
		}
		ps.intervals = append(ps.intervals, iv.close())
	}
	for i, s := range streams {
		ps.origin = earliest(ps.origin, s.File().Meta)
		ps.errs = append(ps.errs, fileErrs[i]...)
	}
	return ps, nil
}

// whole reads a phase's files whole, one after another, every interval
// open until the end: for files stream cannot read side by side.
func (pr *phaseReader) whole(afs []collect.AgentFile, readErr error) phaseSeries {
	var ps phaseSeries
	if readErr != nil {
		ps.errs = append(ps.errs, readErr)
	}
	byIndex := map[int]*openInterval{}
	for agent, af := range afs {
		ps.origin = earliest(ps.origin, af.File.Meta)
		for j := range af.File.Ticks {
			t := &af.File.Ticks[j]
			iv := byIndex[t.Index]
			if iv == nil {
				iv = &openInterval{latency: hist.NewSparse()}
				iv.reset(t)
				byIndex[t.Index] = iv
			}
			pr.add(&ps, iv, agent, af.Path, t, &ps.errs)
		}
	}
	idx := make([]int, 0, len(byIndex))
	for i := range byIndex {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		ps.intervals = append(ps.intervals, byIndex[i].close())
	}
	return ps
}

// earliest is the earlier of origin and a file's start (origin when the
// file has no meta record, the start when origin is not set).
func earliest(origin time.Time, m *record.Meta) time.Time {
	if m != nil && (origin.IsZero() || m.Start.Before(origin)) {
		return m.Start
	}
	return origin
}
