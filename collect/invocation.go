package collect

import "time"

// Invocation is one ybbench command that worked on a run, as the
// orchestrator recorded it when the command began: the report states the
// exact command line a reader would need to run it again.
type Invocation struct {
	At time.Time `json:"at"`
	// Tool is the orchestrator's name and version ("ybbench 1.0.0 (commit
	// …, go1.26.0)").
	Tool string `json:"tool"`
	// Args is the command line as typed (os.Args), with secrets redacted.
	Args []string `json:"args"`
	// Env holds the YBBENCH_* variables that were set (NAME=value, redacted):
	// they are settings as much as flags are.
	Env []string `json:"env,omitempty"`
}

// Choice is a setting whose value the run chose for the user, from a
// default, and that differs from the profile's: unlike an override, the
// user did not ask for it, and the report says who chose it.
type Choice struct {
	Setting string `json:"setting"`
	Value   string `json:"value"`
	// By says what chose the value and what the profile has instead.
	By string `json:"by"`
}

// SharedMachine says that the run's hosts were not machines of their own
// but shared one (a local cluster's network namespaces): they competed for
// its CPUs, memory and disk, which the report states at the top.
type SharedMachine struct {
	// Hosts is how many of the run's hosts shared it.
	Hosts int `json:"hosts"`
	// CPUs is its core count (0: unknown).
	CPUs int `json:"cpus,omitempty"`
}
