package collect

import (
	"time"

	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/profiles"
)

// SetupFile is the file in the run directory that says what the run was
// asked to measure: written by the orchestrator, read by Aggregate.
const SetupFile = "setup.json"

// SetupSchema versions setup.json.
const SetupSchema = "ybbench-setup/2"

// Setup is setup.json: the profile as the run used it (its published table
// included) and the parameters it ran with. With it, the agents' files,
// cluster.json and deployment.json, the run directory says everything
// result.json holds.
type Setup struct {
	Schema  string    `json:"schema"`
	RunID   string    `json:"run_id"`
	Created time.Time `json:"created"`
	Profile string    `json:"profile"`
	Family  string    `json:"family"`
	Binding string    `json:"binding,omitempty"`
	// Workloads in the order they ran, each with its phases in order.
	Workloads []SetupWorkload `json:"workloads"`
	// Repetitions is how many times each workload ran (--repeat), when
	// more than once: its files then carry the repetition in their stem
	// (repetition.Stem). 0 is once, with the plain names.
	Repetitions int `json:"repetitions,omitempty"`
	// Parameters and Overridden as result.json has them.
	Parameters map[string]string  `json:"parameters"`
	Overridden []string           `json:"overridden,omitempty"`
	Baseline   *profiles.Baseline `json:"baseline,omitempty"`
	// Notes are the profile's own (named deviations).
	Notes       []string `json:"notes,omitempty"`
	Provider    string   `json:"provider"`
	DBHosts     int      `json:"db_hosts"`
	ClientHosts int      `json:"client_hosts"`
	// AcceptNewHostKeys and DBAuth are the safety settings the run had.
	AcceptNewHostKeys bool   `json:"accept_new_host_keys"`
	DBAuth            string `json:"db_auth"`
	// Versions of the orchestrator (ybbench, go).
	Versions map[string]string `json:"versions"`
	// OverriddenBy, Invocations and Chosen as result.json has them.
	OverriddenBy map[string]string `json:"overridden_by,omitempty"`
	Invocations  []Invocation      `json:"invocations,omitempty"`
	Chosen       []Choice          `json:"chosen,omitempty"`
	// DatabaseProduct is the run's flavor as a reader knows it
	// (PostgreSQL), PublishedProduct the one of the published figures.
	DatabaseProduct  string `json:"database_product,omitempty"`
	PublishedProduct string `json:"published_product,omitempty"`
	// CPUs is the orchestrator machine's core count: the cores of hosts
	// that share it when the preflight could not read theirs.
	CPUs int `json:"cpus,omitempty"`
	// LimitRules are the rules the limit attribution used (absent in
	// files written before it: the defaults).
	LimitRules *bottleneck.Rules `json:"limit_rules,omitempty"`
	// PublishedHardware is the machines the published figures were taken
	// on, and those of each cloud provider that stand for them.
	PublishedHardware *PublishedHardware `json:"published_hardware,omitempty"`
	// Build is the build under test as the run was told it.
	Build *Build `json:"build,omitempty"`
}

// PublishedHardware is a profile's documented machines: how many, and
// the instance types per cloud provider (aws, gcp) that reproduce them.
type PublishedHardware struct {
	DBHosts     int               `json:"db_hosts"`
	ClientHosts int               `json:"client_hosts"`
	Types       map[string]string `json:"types"`
	ClientTypes map[string]string `json:"client_types"`
	Note        string            `json:"note,omitempty"`
}

// SetupWorkload is one workload and its agent phases.
type SetupWorkload struct {
	Name   string       `json:"name"`
	Phases []SetupPhase `json:"phases"`
}

// SetupPhase is one agent phase; Records says whether its agents write
// tick records (load and run do; table setup and cleanup do not).
type SetupPhase struct {
	Name    string `json:"name"`
	Records bool   `json:"records"`
}

// WriteSetup writes setup.json into a run directory.
func WriteSetup(path string, s *Setup) error {
	return atomicfile.WriteJSON(path, s, 0o644)
}
