package collect

import "github.com/ybbench/ybbench/record/repetition"

// AgentFiles reads the record files of a workload's phase from every
// client's copy under agents/<host>/, as Aggregate does, for the reports
// that draw their ticks.
func AgentFiles(runDir, workload, phase string) ([]AgentFile, error) {
	return agentFiles(runDir, workload, phase)
}

// RepetitionAgentFiles reads the record files of repetition k (from 1; 0:
// a run without repetitions) of a workload's phase, named by
// repetition.Stem.
func RepetitionAgentFiles(runDir, workload string, k int, phase string) ([]AgentFile, error) {
	return agentFiles(runDir, repetition.Stem(workload, k), phase)
}
