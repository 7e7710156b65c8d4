// Package profiles holds the built-in benchmark profiles, one per seed
// document: what to run, with which parameters, on which hardware, and the
// seed's published results table.
package profiles

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var files embed.FS

// Profile is one built-in benchmark.
type Profile struct {
	Name        string     `yaml:"name"`
	Seed        string     `yaml:"seed"`
	Description string     `yaml:"description"`
	Family      string     `yaml:"family"`  // ycsb, sysbench, kv
	Binding     string     `yaml:"binding"` // the agent's binding: ysql, ycql
	Flavor      string     `yaml:"flavor"`  // the database it was published on
	Hardware    Hardware   `yaml:"hardware"`
	Parameters  Parameters `yaml:"parameters"`
	Workloads   []string   `yaml:"workloads"`
	// WorkloadArgs are a workload's own agent arguments (the seed's command
	// line, for families whose workloads are flag sets: kv).
	WorkloadArgs map[string][]string `yaml:"workload_args"`
	// Notes are said in every report of the profile (named deviations).
	Notes []string `yaml:"notes"`
	// Baseline is the seed's published table.
	Baseline Baseline `yaml:"baseline"`
}

// Hardware is the documented machines.
type Hardware struct {
	Cloud  string     `yaml:"cloud"`
	DB     MachineSet `yaml:"db"`
	Client MachineSet `yaml:"client"`
	Note   string     `yaml:"note"`
	// Clouds are the machines per cloud provider (aws, gcp) that reproduce
	// the documented ones (clouds.go).
	Clouds map[string]CloudHardware `yaml:"clouds"`
}

// MachineSet is a count of one instance type.
type MachineSet struct {
	Count int    `yaml:"count"`
	Type  string `yaml:"type"`
}

// Parameters are a profile's workload parameters; every one can be
// overridden for a quick run, and the report says which were.
type Parameters struct {
	Records     int64         `yaml:"records"`
	Operations  int64         `yaml:"operations"`
	LoadThreads int           `yaml:"load_threads"`
	Threads     int           `yaml:"threads"`
	Duration    time.Duration `yaml:"duration"`
	Warmup      time.Duration `yaml:"warmup"`
	DDL         string        `yaml:"ddl"`
	// Tables is sysbench's --tables (Records is its --table-size).
	Tables int `yaml:"tables"`
}

// Get returns a built-in profile by name.
func Get(name string) (*Profile, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	for _, p := range all {
		if p.Name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("unknown profile %q (built in: %s)", name, strings.Join(names, ", "))
}

// All returns every built-in profile, by name.
func All() ([]*Profile, error) {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []*Profile
	for _, e := range entries {
		b, err := files.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		p, err := Parse(e.Name(), b)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Parse reads a profile file strictly: an unknown field is an error naming
// the file and line.
func Parse(name string, b []byte) (*Profile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if p.Name == "" || p.Family == "" || len(p.Workloads) == 0 {
		return nil, fmt.Errorf("%s: a profile needs name, family and workloads", name)
	}
	if err := checkClouds(p.Hardware.Clouds); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &p, nil
}
