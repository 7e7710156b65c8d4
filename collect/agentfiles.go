package collect

import "strconv"

// AgentFiles reads the record files of a workload's phase from every
// client's copy under agents/<host>/, as Aggregate does, for the reports
// that draw their ticks.
func AgentFiles(runDir, workload, phase string) ([]AgentFile, error) {
	return agentFiles(runDir, workload, phase)
}

// RepetitionAgentFiles reads the record files of repetition k (from 1) of
// a workload's phase: agents/<host>/<workload>-r<k>-<phase>.jsonl, a
// repetition's files being named as a workload "<workload>-r<k>" would be.
func RepetitionAgentFiles(runDir, workload string, k int, phase string) ([]AgentFile, error) {
	return agentFiles(runDir, RepetitionName(workload, k), phase)
}

// RepetitionName is the name a repetition's files carry in place of the
// workload's: <workload>-r<k>.
func RepetitionName(workload string, k int) string {
	return workload + "-r" + strconv.Itoa(k)
}
