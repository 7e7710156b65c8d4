package pipeline

import (
	"errors"
	"fmt"
	"github.com/ybbench/ybbench/collect/bottleneck"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/repetition"
)

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
	errs = append(errs, s.checkHistorySettings()...)
	errs = append(errs, s.checkMetricsAddr()...)
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
	} else if msg := unwritablePath(s.RunsDir); msg != "" {
		bad("%s: %s", s.where("runs_dir"), msg)
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
	errs = append(errs, s.checkSweep(p)...)
	if _, err := bottleneck.Parse(s.LimitRules); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", s.where("limit_rules"), err))
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

// plainPathChar are the characters a run directory's path may hold: the
// path is written into configuration files (a local host's sshd_config,
// where '%' starts a token, a database's configuration) and remote
// scripts, and these need no quoting or escaping in any of them.
const plainPathChar = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@+"

// unwritablePath says why a runs directory's absolute path cannot be
// written into those files ("" when it can), before anything is made.
func unwritablePath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err.Error()
	}
	if i := strings.IndexFunc(abs, func(r rune) bool { return !strings.ContainsRune(plainPathChar, r) }); i >= 0 {
		bad, _ := utf8.DecodeRuneInString(abs[i:])
		return fmt.Sprintf("%q holds %q: the run's path goes into the hosts' configuration files and scripts, which take letters, digits and _-./=:,@+ only", abs, bad)
	}
	return ""
}
