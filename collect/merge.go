// Package collect turns the agents' record files into the run's results:
// it merges every agent's histograms per workload, phase and operation by
// adding counts (never averaging percentiles), writes result.json, compares
// with the profile's published figures, and renders the reports.
package collect

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/ybbench/ybbench/record/hist"

	"github.com/ybbench/ybbench/record"
)

// AgentFile is one agent's record file for one phase.
type AgentFile struct {
	Host string
	Path string
	File *record.File
}

// Phase is one phase of one workload, merged over its agents.
type Phase struct {
	Workload string
	Phase    string
	Agents   []string
	// Threads is the sum of the agents' threads.
	Threads int
	// MeasureStart is the earliest agent's end of warm-up; End the latest
	// agent's end. Window is the span between them.
	MeasureStart, End time.Time
	Window            time.Duration
	// Ops sums the agents' counted outer operations.
	Ops int64
	// Throughput sums the agents' own rates (ops over each agent's RunTime),
	// which is YCSB's figure for one agent and the total for several that
	// run together.
	Throughput float64
	// Measurements per name (READ, UPDATE, …), merged.
	Measurements []*Measurement
	Counters     map[string]int64
	// Complete is false when an agent's file has no End record (killed) or
	// was cut off; what it wrote before is still merged.
	Complete bool
	Problems []string
	Schedule string
	// TargetOpsPerSec sums the agents' target rates (0: a closed loop).
	TargetOpsPerSec float64
}

// Measurement is one measurement name merged over agents.
type Measurement struct {
	Name     string
	Service  *hist.Hist // successful measurements, from the actual start
	Response *hist.Hist // from the intended start, when the run had a schedule
	Errors   int64
	Units    int64
	Late     int64
	Statuses map[string]int64
}

// Count is the number of successful measurements.
func (m *Measurement) Count() int64 { return m.Service.Count() }

// Merge combines the files of one phase (same workload and phase) from
// several agents. Only measured (not warm-up) ticks count.
func Merge(files []AgentFile) (*Phase, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no record files")
	}
	p := &Phase{Complete: true, Counters: map[string]int64{}}
	byName := map[string]*Measurement{}
	for _, af := range files {
		f := af.File
		if f == nil || f.Meta == nil {
			return nil, fmt.Errorf("%s: no records", af.Path)
		}
		if p.Workload == "" {
			p.Workload, p.Phase, p.Schedule = f.Meta.Workload, f.Meta.Phase, f.Meta.Schedule
		} else if f.Meta.Workload != p.Workload || f.Meta.Phase != p.Phase {
			return nil, fmt.Errorf("%s: %s/%s does not belong with %s/%s", af.Path, f.Meta.Workload, f.Meta.Phase, p.Workload, p.Phase)
		}
		p.Agents = append(p.Agents, af.Host)
		p.Threads += f.Meta.Threads
		p.TargetOpsPerSec += f.Meta.TargetOpsPerSec
		for _, t := range f.Ticks {
			if t.Warmup {
				continue
			}
			m := byName[t.Op]
			if m == nil {
				m = &Measurement{Name: t.Op, Service: hist.New(), Statuses: map[string]int64{}}
				byName[t.Op] = m
			}
			if err := mergeTick(m, &t); err != nil {
				return nil, fmt.Errorf("%s: tick %d of %s: %w", af.Path, t.Index, t.Op, err)
			}
		}
		if f.Truncated {
			p.Problems = append(p.Problems, af.Host+": its record file was cut off mid-line (agent killed while writing)")
			p.Complete = false
		}
		if f.End == nil {
			p.Problems = append(p.Problems, af.Host+": the agent did not finish (no end record); its completed intervals are included")
			p.Complete = false
			continue
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
	p.Window = p.End.Sub(p.MeasureStart)
	for _, m := range byName {
		p.Measurements = append(p.Measurements, m)
	}
	sort.Slice(p.Measurements, func(i, j int) bool { return p.Measurements[i].Name < p.Measurements[j].Name })
	slices.Sort(p.Agents)
	return p, nil
}

func mergeTick(m *Measurement, t *record.Tick) error {
	add := func(dst **hist.Hist, enc string, overflow int64) error {
		if enc == "" {
			return nil
		}
		if *dst == nil {
			*dst = hist.New()
		}
		return (*dst).MergeEncoded(enc, overflow)
	}
	if err := add(&m.Service, t.Service, t.Overflow); err != nil {
		return err
	}
	if err := add(&m.Response, t.Response, t.ResponseOverflow); err != nil {
		return err
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

// Find returns the measurement with a name.
func (p *Phase) Find(name string) *Measurement {
	for _, m := range p.Measurements {
		if m.Name == name {
			return m
		}
	}
	return nil
}
