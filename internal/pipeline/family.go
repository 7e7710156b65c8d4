package pipeline

import (
	"fmt"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/agentrun"
)

// family is how one profile family's workloads run on the agents: which
// phases each workload has and on which clients (the agent's command line
// and files are agentrun's), and what its figures are.
type family interface {
	// phases of a workload, in order; the measured one is "run".
	phases(workload string) []string
	// firstClientOnly reports whether a phase runs on one client only
	// (table setup and cleanup).
	firstClientOnly(phase string) bool
	// sanity is the phase's Little's-law line.
	sanity(p *collect.PhaseResult) (float64, string)
	// throughput is what the published throughput is compared with.
	throughput(p *collect.PhaseResult) float64
}

func familyOf(name string) (family, error) {
	switch name {
	case "ycsb":
		return ycsbFamily{}, nil
	case "sysbench":
		return sysbenchFamily{}, nil
	case "kv":
		return kvFamily{}, nil
	}
	return nil, fmt.Errorf("unknown profile family %q", name)
}

// ycsbFamily: YCSB's load and run, each workload on a fresh table that the
// first agent creates.
type ycsbFamily struct{}

func (ycsbFamily) phases(string) []string                          { return agentrun.Phases("ycsb") }
func (ycsbFamily) firstClientOnly(ph string) bool                  { return agentrun.FirstClientOnly("ycsb", ph) }
func (ycsbFamily) throughput(p *collect.PhaseResult) float64       { return p.Throughput }
func (ycsbFamily) sanity(p *collect.PhaseResult) (float64, string) { return collect.YCSBSanity(p) }

// sysbenchFamily: each workload prepared (first agent), run, cleaned up.
type sysbenchFamily struct{}

func (sysbenchFamily) phases(string) []string { return agentrun.Phases("sysbench") }
func (sysbenchFamily) firstClientOnly(ph string) bool {
	return agentrun.FirstClientOnly("sysbench", ph)
}
func (sysbenchFamily) throughput(p *collect.PhaseResult) float64 { return p.Throughput }
func (sysbenchFamily) sanity(p *collect.PhaseResult) (float64, string) {
	return collect.OneSampleSanity(p)
}

// kvFamily: each workload is one measured phase of yb-sample-apps' flags.
type kvFamily struct{}

func (kvFamily) phases(string) []string         { return agentrun.Phases("kv") }
func (kvFamily) firstClientOnly(ph string) bool { return agentrun.FirstClientOnly("kv", ph) }
func (kvFamily) sanity(p *collect.PhaseResult) (float64, string) {
	return collect.OneSampleSanity(p)
}

// throughput counts keys, as the tool does (a batch counts its keys).
func (kvFamily) throughput(p *collect.PhaseResult) float64 {
	var units int64
	for _, m := range p.Measurements {
		if m.Name == "CLEANUP" {
			continue
		}
		u := m.Units
		if u == 0 {
			u = m.Count
		}
		units += u
	}
	if p.WindowMS <= 0 {
		return 0
	}
	return float64(units) / (float64(p.WindowMS) / 1000)
}
