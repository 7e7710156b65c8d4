// Package collect turns the agents' record files into the run's results:
// it merges every agent's histograms per workload, phase and operation by
// adding counts (never averaging percentiles), writes result.json, compares
// with the profile's published figures, and renders the reports.
package collect

import (
	"fmt"
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
	mg := newMerger()
	for i := range files {
		af := &files[i]
		if err := mg.begin(af); err != nil {
			return nil, err
		}
		for j := range af.File.Ticks {
			if err := mg.tick(af, &af.File.Ticks[j]); err != nil {
				return nil, err
			}
		}
		mg.end(af)
	}
	return mg.phase(), nil
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
