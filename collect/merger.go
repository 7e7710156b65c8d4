package collect

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// merger adds agents' files into a Phase a tick at a time: Merge feeds it
// files in memory, readPhase files read a tick at a time, so that a phase
// of hours is merged without holding its ticks. Each tick's histograms are
// decoded once, by one Decoder.
type merger struct {
	p      *Phase
	byName map[string]*Measurement
	dec    *hist.Decoder
}

func newMerger() *merger {
	return &merger{p: &Phase{Complete: true, Counters: map[string]int64{}}, byName: map[string]*Measurement{}, dec: hist.NewDecoder()}
}

// begin starts an agent's file: its meta record must name the phase the
// files before it named.
func (mg *merger) begin(af *AgentFile) error {
	f, p := af.File, mg.p
	if f == nil || f.Meta == nil {
		return fmt.Errorf("%s: no records", af.Path)
	}
	if p.Workload == "" {
		p.Workload, p.Phase, p.Schedule = f.Meta.Workload, f.Meta.Phase, f.Meta.Schedule
	} else if f.Meta.Workload != p.Workload || f.Meta.Phase != p.Phase {
		return fmt.Errorf("%s: %s/%s does not belong with %s/%s", af.Path, f.Meta.Workload, f.Meta.Phase, p.Workload, p.Phase)
	}
	p.Agents = append(p.Agents, af.Host)
	p.Threads += f.Meta.Threads
	p.TargetOpsPerSec += f.Meta.TargetOpsPerSec
	return nil
}

// tick adds one of the file's ticks; warm-up ticks do not count.
func (mg *merger) tick(af *AgentFile, t *record.Tick) error {
	if t.Warmup {
		return nil
	}
	h, err := decodeService(mg.dec, af.Path, t)
	return mg.tickDecoded(af, t, h, err)
}

// tickDecoded adds a tick whose service times its reader decoded already
// with the merger's decoder (h, nil without them, or serviceErr, which
// names the file and the tick): a reader that draws the same tick decodes
// it once for both. Warm-up ticks do not count.
func (mg *merger) tickDecoded(af *AgentFile, t *record.Tick, h *hist.Sparse, serviceErr error) error {
	if t.Warmup {
		return nil
	}
	m := mg.byName[t.Op]
	if m == nil {
		m = &Measurement{Name: t.Op, Service: hist.New(), Statuses: map[string]int64{}}
		mg.byName[t.Op] = m
	}
	if serviceErr != nil {
		return serviceErr
	}
	if h != nil {
		m.Service.MergeSparse(h)
	}
	if t.Response != "" {
		if m.Response == nil {
			m.Response = hist.New()
		}
		r, err := mg.dec.Decode(t.Response, t.ResponseOverflow)
		if err != nil {
			return fmt.Errorf("%s: tick %d of %s: %w", af.Path, t.Index, t.Op, err)
		}
		m.Response.MergeSparse(r)
	}
	m.Errors += t.Errors
	units := t.Units
	if units == 0 {
		units = t.Count
	}
	m.Units += units
	m.Late += t.Late
	for k, v := range t.Statuses {
		m.Statuses[k] += v
	}
	return nil
}

// end closes an agent's file: whether it was cut off or finished, and
// what its end record says.
func (mg *merger) end(af *AgentFile) {
	f, p := af.File, mg.p
	if f.Truncated {
		p.Problems = append(p.Problems, af.Host+": its record file was cut off mid-line (agent killed while writing)")
		p.Complete = false
	}
	if f.End == nil {
		p.Problems = append(p.Problems, af.Host+": the agent did not finish (no end record); its completed intervals are included")
		p.Complete = false
		return
	}
	e := f.End
	if p.MeasureStart.IsZero() || e.MeasureStart.Before(p.MeasureStart) {
		p.MeasureStart = e.MeasureStart
	}
	if e.End.After(p.End) {
		p.End = e.End
	}
	p.Ops += e.Ops
	if e.RunTimeMS > 0 {
		p.Throughput += float64(e.Ops) / (e.RunTimeMS / 1000)
	}
	if e.Error != "" {
		p.Problems = append(p.Problems, af.Host+": "+e.Error)
	}
	for k, v := range e.Counters {
		p.Counters[k] += v
	}
}

// phase is the phase merged from every file begun and ended.
func (mg *merger) phase() *Phase {
	p := mg.p
	p.Window = p.End.Sub(p.MeasureStart)
	for _, m := range mg.byName {
		p.Measurements = append(p.Measurements, m)
	}
	sort.Slice(p.Measurements, func(i, j int) bool { return p.Measurements[i].Name < p.Measurements[j].Name })
	slices.Sort(p.Agents)
	return p
}
