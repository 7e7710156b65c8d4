package pipeline

import (
	"fmt"

	"github.com/ybbench/ybbench/pipeline/agentrun"
)

// family is how one profile family's workloads run on the agents: which
// phases each workload has and on which clients. The agent's command line
// and files are agentrun's; the family's figures (throughput compared,
// Little's law) are collect's.
type family interface {
	// phases of a workload, in order; the measured one is "run".
	phases(workload string) []string
	// firstClientOnly reports whether a phase runs on one client only
	// (table setup and cleanup).
	firstClientOnly(phase string) bool
	// spread says how the load is split when several clients run it.
	spread() string
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

func (ycsbFamily) phases(string) []string         { return agentrun.Phases("ycsb") }
func (ycsbFamily) firstClientOnly(ph string) bool { return agentrun.FirstClientOnly("ycsb", ph) }
func (ycsbFamily) spread() string {
	return "the records loaded, the operations and the threads are split between them, each agent inserting its own keys"
}

// sysbenchFamily: each workload prepared (first agent), run, cleaned up.
type sysbenchFamily struct{}

func (sysbenchFamily) phases(string) []string { return agentrun.Phases("sysbench") }
func (sysbenchFamily) firstClientOnly(ph string) bool {
	return agentrun.FirstClientOnly("sysbench", ph)
}
func (sysbenchFamily) spread() string {
	return "the threads are split between them, each agent with its own random seed; the first prepares and cleans up the tables"
}

// kvFamily: each workload is one measured phase of yb-sample-apps' flags.
type kvFamily struct{}

func (kvFamily) phases(string) []string         { return agentrun.Phases("kv") }
func (kvFamily) firstClientOnly(ph string) bool { return agentrun.FirstClientOnly("kv", ph) }
func (kvFamily) spread() string {
	return "the threads are split between them, and each agent writes and reads its own range of the keys, with its part of the writes, reads and read-only setup"
}
