// Package pipeline is ybbench's one way through: spec → up → preflight →
// install → bench → collect → report → down, each stage reading the
// previous stage's file and writing its own under runs/<id>/, with a
// ledger (run.json) written before every step that changes the world. It
// is the only package that imports infra, provision, bench and collect.
package pipeline

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"time"
)

// Spec is everything a run needs, after layering defaults < spec file <
// YBBENCH_* environment < flags.
type Spec struct {
	Profile  string `yaml:"profile" json:"profile"`
	Provider string `yaml:"provider" json:"provider"` // a provider of the registry (pipeline/parts)
	// Inventory is the on-prem inventory file (provider inventory).
	Inventory string `yaml:"inventory" json:"inventory,omitempty"`
	Flavor    string `yaml:"flavor" json:"flavor"` // a flavor of the registry (pipeline/parts)
	// DBHosts and ClientHosts size a local cluster.
	DBHosts     int `yaml:"db_hosts" json:"db_hosts"`
	ClientHosts int `yaml:"client_hosts" json:"client_hosts"`
	// Workload parameters: nil is the profile's value. They are pointers
	// so that an explicit 0 stays apart from "not given": a 0 that meant
	// "the profile's" silently undid --quick (--threads 0), and a warm-up
	// of 0 (none) is a value of its own. run.json keeps the difference.
	Records     *int64         `yaml:"records" json:"records,omitempty"`
	Operations  *int64         `yaml:"operations" json:"operations,omitempty"`
	Duration    *time.Duration `yaml:"duration" json:"duration,omitempty"`
	Warmup      *time.Duration `yaml:"warmup" json:"warmup,omitempty"`
	Threads     *int           `yaml:"threads" json:"threads,omitempty"`
	LoadThreads *int           `yaml:"load_threads" json:"load_threads,omitempty"`
	// Workloads restricts the profile's workloads (empty: all).
	Workloads []string `yaml:"workloads" json:"workloads,omitempty"`
	// Repeat is how many times each workload runs, one repetition after
	// the other on the same cluster (0, from a run made before the
	// setting, is once).
	Repeat int `yaml:"repeat" json:"repeat,omitempty"`
	// RunsDir holds runs/<id>/.
	RunsDir string `yaml:"runs_dir" json:"runs_dir"`
	// Subnet of a local cluster.
	Subnet string `yaml:"subnet" json:"subnet,omitempty"`
	// YBTarball is the YugabyteDB release tarball (URL or path) and
	// YBSHA256 its checksum.
	YBTarball string `yaml:"yb_tarball" json:"yb_tarball,omitempty"`
	YBSHA256  string `yaml:"yb_sha256" json:"yb_sha256,omitempty"`
	// Agent is the ybload binary shipped to clients (default: beside ybbench).
	Agent string `yaml:"agent" json:"agent,omitempty"`
	// Parallel bounds fan-out over hosts (0: all at once).
	Parallel int `yaml:"parallel" json:"parallel,omitempty"`
	// MaxClockSkew fails the preflight past it.
	MaxClockSkew time.Duration `yaml:"max_clock_skew" json:"max_clock_skew"`
	// StartDelay is how far ahead agents are told to start together.
	StartDelay time.Duration `yaml:"start_delay" json:"start_delay"`
	// AgentProperties are extra -p name=value settings for every agent's
	// load and run phases (e.g. measurementtype=hdrhistogram+raw); the report
	// lists them.
	AgentProperties map[string]string `yaml:"agent_properties" json:"agent_properties,omitempty"`
	// MetricsAddr is the port ("9464" or ":9464") every agent serves its
	// live metrics on, at its client's private address ("": off).
	MetricsAddr string `yaml:"metrics_addr" json:"metrics_addr,omitempty"`
	// Sweep runs a throughput–latency sweep after each workload's run
	// (sweep.go); SweepFractions are its steps in percent of the run's
	// throughput (empty: sweep.DefaultFractions), SLOP99 the p99 bound
	// (0: twice the lowest step's).
	Sweep          bool          `yaml:"sweep" json:"sweep,omitempty"`
	SweepFractions []string      `yaml:"sweep_fractions" json:"sweep_fractions,omitempty"`
	SLOP99         time.Duration `yaml:"slo_p99" json:"slo_p99,omitempty"`
	// SweepResolution is the share (percent) of the run's throughput the
	// bisection narrows the knee's bracket to (empty: 2).
	SweepResolution string `yaml:"sweep_resolution" json:"sweep_resolution,omitempty"`
	// SweepStep is each step's measured time (0: the run's duration, at
	// most defaultSweepStep), SweepWarmup the warm-up at the step's rate
	// before it: a step is bounded by its time, not by the run's
	// operation count.
	SweepStep   time.Duration `yaml:"sweep_step" json:"sweep_step,omitempty"`
	SweepWarmup time.Duration `yaml:"sweep_warmup" json:"sweep_warmup,omitempty"`
	// LateAfter is the pacer's tolerance for a late start (ybload's
	// ybload.late.after), given to YCSB agents when not the default.
	LateAfter time.Duration `yaml:"late_after" json:"late_after,omitempty"`
	// HistoryURL is the results history a run with complete results adds
	// to ("" : the embedded store under the user's data directory);
	// NoHistory adds to none. BuildID and BuildTime name the build under
	// test (collect.Build): the history's order.
	HistoryURL string `yaml:"history_url" json:"history_url,omitempty"`
	NoHistory  bool   `yaml:"no_history" json:"no_history,omitempty"`
	BuildID    string `yaml:"build_id" json:"build_id,omitempty"`
	BuildTime  string `yaml:"build_time" json:"build_time,omitempty"`
	// HostSamples is "on" (every host's counters read each tick of a
	// measured phase) or "off" (none: what limited the run is unknown).
	HostSamples string `yaml:"host_samples" json:"host_samples,omitempty"`
	// LimitRules override the thresholds of the limit attribution's rules
	// (collect/bottleneck), by rule name.
	LimitRules map[string]string `yaml:"limit_rules" json:"limit_rules,omitempty"`
	Owner      string            `yaml:"owner" json:"owner"`
	// The cloud settings (cloud.go), read by the aws and gcp providers
	// only: where the hosts are made and from which image, who may reach
	// their SSH port, and what bounds the run's cost. A resolved spec
	// holds the provider's defaults for those not given, so that the
	// ledger records what the run used.
	Region  string `yaml:"region" json:"region,omitempty"`
	Zone    string `yaml:"zone" json:"zone,omitempty"`
	Project string `yaml:"project" json:"project,omitempty"`
	Image   string `yaml:"image" json:"image,omitempty"`
	SSHCIDR string `yaml:"ssh_cidr" json:"ssh_cidr,omitempty"`
	// SSHCIDRSource says where SSHCIDR came from when ybbench looked it up
	// (address.go). It is no setting: the ledger records it beside the
	// address, which a resumed run keeps.
	SSHCIDRSource    string   `yaml:"-" json:"ssh_cidr_source,omitempty"`
	SSHCIDRLookupURL string   `yaml:"ssh_cidr_lookup_url" json:"ssh_cidr_lookup_url,omitempty"`
	ZoneFallback     bool     `yaml:"zone_fallback" json:"zone_fallback,omitempty"`
	MaxCost          *float64 `yaml:"max_cost" json:"max_cost,omitempty"`
	// Lifetime bounds how long a cloud run's hosts live.
	Lifetime time.Duration `yaml:"lifetime" json:"lifetime"`
	// DBAuth is "on" (the default: generated credentials, no trust rules)
	// or "off" (the seeds' unauthenticated setup, marked in the report).
	DBAuth string `yaml:"db_auth" json:"db_auth"`
	// AcceptNewHostKeys trusts an inventory host's key on first use when no
	// key is known for it (recorded in the ledger and the result).
	AcceptNewHostKeys bool `yaml:"accept_new_host_keys" json:"accept_new_host_keys,omitempty"`

	// from says where each setting given by a layer came from (a flag, a
	// variable, file:line, a preset), for the messages that refuse it.
	from map[string]string
}

// HostSamplesOff reports whether the run was asked not to read its hosts'
// counters.
func (s *Spec) HostSamplesOff() bool { return s.HostSamples == "off" }

// Defaults are the bottom layer: the settings table's defaults, and the
// invoking user as the owner.
func Defaults() Spec {
	var s Spec
	for _, st := range settings {
		if st.Default == "" {
			continue
		}
		if err := SetString(&s, st.Name, st.Default); err != nil {
			panic(fmt.Sprintf("settings table: %s's default: %v", st.Name, err)) // the table's test reaches every default
		}
	}
	s.Owner = invokingUser(os.Getenv, user.Current)
	return s
}

// invokingUser is who asked for the run: the user sudo was run by, else
// the process's own user (by name, else by uid: never "unknown").
func invokingUser(getenv func(string) string, current func() (*user.User, error)) string {
	if u := getenv("SUDO_USER"); u != "" {
		return u
	}
	if u, err := current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := getenv("USER"); u != "" {
		return u
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
