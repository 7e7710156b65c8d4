// Package pipeline is ybbench's one way through: spec → up → preflight →
// install → bench → collect → report → down, each stage reading the
// previous stage's file and writing its own under runs/<id>/, with a
// ledger (run.json) written before every step that changes the world. It
// is the only package that imports infra, provision, bench and collect.
package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/yamlsyntax"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/repetition"
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
	Owner           string            `yaml:"owner" json:"owner"`
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

// FileError is a problem in a spec file, with its position.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// LoadFile lays a YAML spec file over s. Unknown fields and bad values are
// errors naming the file, line and field.
func LoadFile(s *Spec, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--spec: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file changes nothing
		}
		return yamlsyntax.Explain(path, b, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return &FileError{File: path, Line: extra.Line, Field: "(document)", Msg: "a second YAML document: a spec file holds one"}
	} else if !errors.Is(err, io.EOF) {
		return yamlsyntax.Explain(path, b, err)
	}
	if len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return &FileError{File: path, Line: m.Line, Field: "(top level)", Msg: "want a mapping of settings"}
	}
	var errs []error
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			errs = append(errs, &FileError{File: path, Line: k.Line, Field: k.Value, Msg: fmt.Sprintf("set twice (first on line %d)", line)})
			continue
		}
		seen[k.Value] = k.Line
		if _, known := settingByName(k.Value); !known {
			errs = append(errs, &FileError{File: path, Line: k.Line, Field: k.Value, Msg: "unknown setting (known: " + strings.Join(settingNames(), ", ") + ")"})
			continue
		}
		if err := setField(s, k.Value, v); err != nil {
			errs = append(errs, &FileError{File: path, Line: v.Line, Field: k.Value, Msg: err.Error()})
		}
		s.setFrom(k.Value, fmt.Sprintf("%s:%d: %s", path, v.Line, k.Value))
	}
	inferProvider(s, seen[inventorySetting] > 0, seen["provider"] > 0)
	return errors.Join(errs...)
}

// inferProvider: a layer that names an inventory file and no provider
// means the provider that reads inventory files, as --inventory alone does.
func inferProvider(s *Spec, inventory, provider bool) {
	if f, ok := builtin.FileProvider(); ok && inventory && !provider {
		s.Provider = f
	}
}

// settingNames lists the table's settings.
func settingNames() []string {
	out := make([]string, len(settings))
	for i, st := range settings {
		out[i] = st.Name
	}
	return out
}

// setField decodes one YAML value into the named field: a scalar goes
// through SetString as its text (so quotes are YAML's, not the value's),
// workloads may be a sequence and agent_properties a mapping.
func setField(s *Spec, name string, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		return SetString(s, name, v.Value)
	}
	st, _ := settingByName(name)
	switch p := st.field(s).(type) {
	case *[]string:
		if v.Kind == yaml.SequenceNode {
			var ws []string
			if err := v.Decode(&ws); err != nil {
				return fmt.Errorf("want a list of workload names: %v", err)
			}
			*p = ws
			return nil
		}
	case *map[string]string:
		if v.Kind == yaml.MappingNode {
			var m map[string]string
			if err := v.Decode(&m); err != nil {
				return fmt.Errorf("want a mapping of property names to values: %v", err)
			}
			*p = m
			return nil
		}
	}
	return errors.New("want a single value")
}

// LoadEnv lays YBBENCH_* variables over s.
func LoadEnv(s *Spec, getenv func(string) string) error {
	var errs []error
	for _, f := range settingNames() {
		if v := getenv(EnvName(f)); v != "" {
			if err := SetString(s, f, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", EnvName(f), err))
			}
			s.setFrom(f, EnvName(f))
		}
	}
	inferProvider(s, getenv(EnvName(inventorySetting)) != "", getenv(EnvName("provider")) != "")
	return errors.Join(errs...)
}

// Validate reports every problem of the spec at once.
func (s *Spec) Validate() error { return s.validate(builtin) }

// validate checks s against the providers and flavors of reg, asking
// their traits what they can do.
func (s *Spec) validate(reg *parts.Registry) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	p, err := profiles.Get(s.Profile)
	if err != nil {
		bad("%s: %v", s.where("profile"), err)
	}
	errs = append(errs, s.checkProvider(reg)...)
	errs = append(errs, s.checkFlavor(reg, p)...)
	errs = append(errs, s.checkBounds()...)
	if s.Repeat > repetition.Max {
		bad("%s: %d: want 1 to %d", s.where("repeat"), s.Repeat, repetition.Max)
	}
	if p != nil {
		errs = append(errs, s.checkUnused(p)...)
	}
	errs = append(errs, s.checkCloud(reg, p)...)
	seenWorkload := map[string]bool{}
	for _, w := range s.Workloads {
		if seenWorkload[w] {
			bad("%s: %q is listed twice", s.where("workloads"), w)
		}
		seenWorkload[w] = true
	}
	if p != nil {
		for _, w := range s.Workloads {
			found := false
			for _, pw := range p.Workloads {
				found = found || pw == w
			}
			if !found {
				bad("%s: %q is not in profile %s (%s)", s.where("workloads"), w, p.Name, strings.Join(p.Workloads, ", "))
			}
		}
	}
	if s.RunsDir == "" {
		bad("%s: must not be empty", s.where("runs_dir"))
	}
	return errors.Join(errs...)
}

// checkProvider checks the provider and the settings its traits bound:
// host counts, and an inventory file given exactly to the provider that
// reads one.
func (s *Spec) checkProvider(reg *parts.Registry) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	prov, known := reg.Provider(s.Provider)
	switch {
	case !known:
		bad("%s: %q (want %s)", s.where("provider"), s.Provider, wordList(providerNames(reg.Available()), "or"))
	case prov.Planned:
		bad("%s: %s is not available yet in this version (%s are)", s.where("provider"), s.Provider, wordList(providerNames(reg.Available()), "and"))
	default:
		t := prov.Traits
		// A cloud's counts are the profile's (checkCloud refuses others).
		if prov.Cloud != nil {
			t.DBHosts, t.ClientHosts = infra.Range{}, infra.Range{}
		}
		if t.DBHosts.Applies() && !t.DBHosts.Holds(s.DBHosts) {
			bad("%s: %d (want %d to %d on a %s cluster)", s.where("db_hosts"), s.DBHosts, t.DBHosts.Min, t.DBHosts.Max, prov.Name)
		}
		if t.ClientHosts.Applies() && !t.ClientHosts.Holds(s.ClientHosts) {
			bad("%s: %d (want %d to %d)", s.where("client_hosts"), s.ClientHosts, t.ClientHosts.Min, t.ClientHosts.Max)
		}
		switch {
		case t.FromFile && s.Inventory == "":
			bad("%s: the %s provider needs an inventory file (--inventory hosts.yaml)", inventorySetting, prov.Name)
		case !t.FromFile && s.Inventory != "":
			bad("%s: %s is given but the provider is %s (%s)", s.where(inventorySetting), s.Inventory, prov.Name, s.inventoryRemedy(reg))
		}
	}
	return errs
}

// checkFlavor checks the flavor the run would use: known, given what its
// traits say it needs, and serving the profile's API.
func (s *Spec) checkFlavor(reg *parts.Registry, p *profiles.Profile) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	flavor := s.flavorFor(reg, p)
	f, known := reg.Flavor(flavor)
	switch {
	case !known:
		bad("%s: %q (want %s)", s.where("flavor"), s.Flavor, wordList(reg.FlavorNames(), "or"))
	case f.Traits.Tarball:
		if s.YBTarball == "" {
			bad("yb_tarball: the %s flavor needs a release tarball (--yb-tarball URL or path); it cannot be downloaded here", f.Name)
		}
		// Over plain http the tarball (whose post_install.sh runs as root)
		// and the .sha beside it can both be swapped on the way.
		if strings.HasPrefix(s.YBTarball, "http://") && s.YBSHA256 == "" {
			bad("%s: %s is plain http://: give its sha256 (yb_sha256, --yb-sha256); the .sha from the same server proves nothing", s.where("yb_tarball"), provision.RedactURL(s.YBTarball))
		}
	}
	if s.YBSHA256 != "" && !sha256Hex.MatchString(strings.ToLower(s.YBSHA256)) {
		bad("%s: %q is not a sha256 (64 hex digits)", s.where("yb_sha256"), s.YBSHA256)
	}
	if p != nil && flavor != "" {
		speaks := reg.Serving(provision.API(p.Binding))
		if !slices.Contains(speaks, flavor) {
			bad("%s: %s does not speak %s, which profile %s uses (want %s)", s.where("flavor"), flavor, strings.ToUpper(p.Binding), p.Name, wordList(speaks, "or"))
		}
	}
	return errs
}

// sha256Hex is a sha256 as sha256sum prints it.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// flavorFor is the database flavor a run uses: the one asked for, else
// the one that installs from a tarball when one is given, else the
// registry's default for the profile's API (on this machine: postgres for
// YSQL, cassandra for YCQL).
func (s *Spec) flavorFor(reg *parts.Registry, p *profiles.Profile) string {
	if s.Flavor != "" {
		return s.Flavor
	}
	if f, ok := reg.TarballFlavor(); ok && s.YBTarball != "" {
		return f
	}
	var api provision.API
	if p != nil {
		api = provision.API(p.Binding)
	}
	return reg.DefaultFlavor(api)
}

// Resolved is a validated spec with the profile's values filled in.
type Resolved struct {
	Spec
	P          *profiles.Profile
	Params     profiles.Parameters
	Overridden []string
	// Chosen are the settings a default chose that differ from the
	// profile's: not overrides, since the user did not ask for them.
	Chosen []collect.Choice
	// Origins says which layer gave each setting the command line gave
	// (see Origins); nil when not known.
	Origins map[string]string
}

// Resolve fills in the profile's parameters and notes which the spec overrode.
func (s *Spec) Resolve() (*Resolved, error) { return s.resolve(builtin) }

// ResolveWith is Resolve against the providers and flavors of reg (nil:
// the built-in ones), as Deps.Registry names them.
func (s *Spec) ResolveWith(reg *parts.Registry) (*Resolved, error) {
	if reg == nil {
		reg = builtin
	}
	return s.resolve(reg)
}

// resolve is Resolve against the providers and flavors of reg.
func (s *Spec) resolve(reg *parts.Registry) (*Resolved, error) {
	if err := s.validate(reg); err != nil {
		return nil, err
	}
	p, _ := profiles.Get(s.Profile)
	r := &Resolved{Spec: *s, P: p, Params: p.Parameters}
	r.Flavor = s.flavorFor(reg, p)
	// A cloud run records where and from what its hosts are made, the
	// defaults included, so that a resumed run makes them the same way.
	if d, ok := s.cloudOf(reg); ok {
		r.Region, r.Zone, r.Image = s.cloudPlace(d)
	}
	r.Overridden = applyOverrides(s, &r.Params)
	if len(s.AgentProperties) > 0 {
		r.Overridden = append(r.Overridden, "agent_properties")
	}
	if len(s.Workloads) == 0 {
		r.Workloads = p.Workloads
	} else if len(s.Workloads) != len(p.Workloads) {
		r.Overridden = append(r.Overridden, "workloads")
	}
	if r.Flavor != p.Flavor {
		// Only a flavor the user named is an override; one this machine's
		// default chose is said to be so (the report's caveats).
		if s.Flavor != "" {
			r.Overridden = append(r.Overridden, "flavor")
		} else {
			r.Chosen = append(r.Chosen, collect.Choice{Setting: "flavor", Value: r.Flavor,
				By: fmt.Sprintf("the default for %s on this machine (the profile's is %s, which %s)", strings.ToUpper(p.Binding), p.Flavor, flavorNeeds(reg, p.Flavor))})
		}
	}
	if !filepath.IsAbs(r.RunsDir) {
		abs, err := filepath.Abs(r.RunsDir)
		if err != nil {
			return nil, err
		}
		r.RunsDir = abs
	}
	return r, nil
}

// checkUnused refuses an override of a parameter the profile's agents do
// not read (records or load threads on the KV tool, an operation count on
// sysbench) and agent properties outside YCSB, the only family that takes
// them: accepted, it would change nothing and still be reported as
// overridden, so a reader would take the run for what it is not.
func (s *Spec) checkUnused(p *profiles.Profile) []error {
	var errs []error
	for _, st := range ParameterSettings() {
		v, given := st.override(s)
		if !given || Uses(p, st.Name) || (st.zeroIsNone && v.IsZero()) {
			continue
		}
		errs = append(errs, fmt.Errorf("%s: profile %s (%s) has no such parameter: its agents would not read it (ybbench profiles %s shows what it has)",
			s.where(st.Name), p.Name, p.Family, p.Name))
	}
	if len(s.AgentProperties) > 0 && p.Family != "ycsb" {
		errs = append(errs, fmt.Errorf("%s: profile %s (%s) takes no agent properties: they are YCSB properties, passed to YCSB workloads only",
			s.where("agent_properties"), p.Name, p.Family))
	}
	for _, name := range slices.Sorted(maps.Keys(s.AgentProperties)) {
		if secretProperty(name) {
			// It would be written into run.json and onto the agents'
			// command lines, where any user of the client sees it.
			errs = append(errs, fmt.Errorf("%s: %s: a secret has no place among agent properties (they are recorded and on the agents' command lines): the run gives its agents the database password itself, in a file only they read",
				s.where("agent_properties"), name))
		}
	}
	return errs
}

// secretProperty reports whether an agent property names a secret.
func secretProperty(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "passw") || strings.Contains(n, "passwd") || strings.Contains(n, "secret") || strings.Contains(n, "token")
}
