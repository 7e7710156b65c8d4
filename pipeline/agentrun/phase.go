package agentrun

import (
	"strconv"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/record/repetition"
)

// The phases an agent runs.
const (
	Prepare = "prepare" // the table made afresh, by one agent
	Load    = "load"    // YCSB's load
	Run     = "run"     // the measured phase
	Cleanup = "cleanup" // sysbench's tables dropped, by one agent
)

// Phase is one agent invocation on the clients: a workload's prepare,
// load, run or cleanup.
type Phase struct {
	Workload string
	Phase    string
	// Rep is the workload's repetition, from 1, when the run repeats its
	// workloads (--repeat N, N > 1); 0 otherwise.
	Rep int
	// Sweep is the step (from 1) of a throughput–latency sweep the run
	// phase is, after the workload's own run; 0 otherwise.
	Sweep int
}

// FileBase is the stem of the agent's file names for the phase:
// <workload>-<phase>, <workload>-r<k>-<phase> for repetition k, so that
// repetitions never overwrite each other's files, or <workload>[-r<k>]-s<j>-run
// for step j of a (repetition's) sweep.
func (p Phase) FileBase() string { return p.Stem() + "-" + p.Phase }

// Stem is the phase's workload part of its file names.
func (p Phase) Stem() string {
	if p.Sweep > 0 {
		return SweepStem(repetition.Stem(p.Workload, p.Rep), p.Sweep)
	}
	return repetition.Stem(p.Workload, p.Rep)
}

// SweepStem is the file name stem of step k of the sweep of stem (a
// workload, or one repetition of it).
func SweepStem(stem string, k int) string { return repetition.SweepStem(stem, k) }

// Records reports whether the phase writes tick records.
func (p Phase) Records() bool { return p.Phase == Load || p.Phase == Run }

// Split divides n over k parts as evenly as possible and returns part i's
// start and size: every unit is in exactly one part. It is the agents' own
// arithmetic (agentutil.Share), so that a split the orchestrator makes and
// one an agent makes from its index agree.
func Split(n int64, k, i int) (start, count int64) { return agentutil.Share(n, k, i) }

// threadsOf is agent i's share of n threads over k agents, at least one.
func threadsOf(n int64, k, i int) int {
	_, t := Split(n, k, i)
	return int(max(t, 1))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Phases are a family's phases of every workload, in order; the measured
// one is Run.
func Phases(family string) []string {
	switch family {
	case "ycsb":
		return []string{Prepare, Load, Run}
	case "sysbench":
		return []string{Prepare, Run, Cleanup}
	case "kv":
		return []string{Run}
	}
	return nil
}

// FirstClientOnly reports whether a family's phase runs on one client only:
// making and dropping tables.
func FirstClientOnly(family, phase string) bool {
	return family != "kv" && (phase == Prepare || phase == Cleanup)
}
