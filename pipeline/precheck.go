package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
)

// CheckOptions say what a command does beyond reading the settings, and
// so what Check must find true before it starts.
type CheckOptions struct {
	// MakesHosts: the command creates a run and its hosts (run, up), so a
	// provider that needs root to make them needs it now.
	MakesHosts bool
	// ShipsAgent: the command ships the load agent (run), so the agent
	// beside ybbench must be there when --agent names none.
	ShipsAgent bool
	// HTTP is the client a tarball URL is asked with (nil: one of its own,
	// with tarballTimeout), and this machine's public address (the default
	// ssh_cidr of a cloud run) looked up with (nil: one of its own).
	HTTP *http.Client
	// AddsHistory: the command adds its results to the history store
	// (run), which must be there, reachable and of a schema it writes.
	AddsHistory bool
	// Refused: the settings were refused already (Load or Resolve says
	// why), so nothing is asked of a cloud: bad input is refused before
	// any call to its API.
	Refused bool
}

// Check finds out, before a run is created (no run directory, no host, no
// Terraform state), whether what the settings name outside themselves is
// there and usable: the provider's own check (an inventory file read
// whole, every host's key known; a local cluster's subnet and its
// Terraform binary and version; for a command that makes a cloud run,
// this machine's public address when ssh_cidr is not given, recorded in
// s, then the cloud's credentials, zone, types and quotas), root for a
// provider that needs it, the YugabyteDB tarball (a file that is there,
// of the sha256 given; a URL that answers), the agent binary. Every
// problem is reported at once, one a line, naming the flag, variable or
// file:line its value came from; all are bad configuration (exit 2) but
// those a provider classified itself (a short quota: exit 3).
func (s *Spec) Check(ctx context.Context, deps Deps, o CheckOptions) error {
	var errs []error
	errs = append(errs, s.checkHosts(ctx, deps, o)...)
	errs = append(errs, s.checkTarball(ctx, o.HTTP)...)
	errs = append(errs, s.checkAgent(o.ShipsAgent)...)
	if o.AddsHistory && !o.Refused {
		errs = append(errs, s.checkHistory(ctx)...)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var out []error
	for _, e := range errs {
		out = append(out, s.named(e)...)
	}
	return exitcode.Wrap(exitcode.Config, errors.Join(out...))
}

// geteuid is the process's effective user id (tests stand in another).
var geteuid = os.Geteuid

// clusterSpec is what the provider is asked to make for the run: on a
// cloud, the profile's hardware for it and the cloud settings
// (cloudClusterSpec); elsewhere the counts and the options the settings
// give it. The run's name, directory and key come at creation.
func (s *Spec) clusterSpec(reg *parts.Registry, p *profiles.Profile) (infra.ClusterSpec, error) {
	if _, cloud := s.cloudOf(reg); cloud {
		if p == nil {
			return infra.ClusterSpec{}, fmt.Errorf("profile %q: unknown", s.Profile)
		}
		return s.cloudClusterSpec(reg, p)
	}
	spec := infra.ClusterSpec{DBHosts: s.DBHosts, ClientHosts: s.ClientHosts, Owner: s.Owner, Lifetime: s.Lifetime,
		Options: map[string]string{"subnet": s.Subnet}}
	if s.AcceptNewHostKeys {
		spec.Options[inventory.OptionAcceptNewHostKeys] = "true"
	}
	return spec, nil
}

// checkHosts asks the provider to check the spec, when it can, and
// whether this process may make its hosts. A provider the settings'
// validation refuses (unknown, planned, without its inventory) is not
// asked: that is reported once, there.
func (s *Spec) checkHosts(ctx context.Context, deps Deps, o CheckOptions) []error {
	reg := deps.registry()
	p, ok := reg.Provider(s.Provider)
	if !ok || p.Planned || p.Traits.FromFile != (s.Inventory != "") || deps.Provider == nil {
		return nil
	}
	if p.Cloud != nil {
		return s.checkCloudHosts(ctx, reg, deps, o)
	}
	var errs []error
	if o.MakesHosts && p.Traits.NeedsRoot && geteuid() != 0 {
		errs = append(errs, fmt.Errorf("%s: the %s provider needs root to make its hosts: run ybbench as root (e.g. with sudo)",
			s.where("provider"), s.Provider))
	}
	prov, err := deps.Provider(s, "")
	if err != nil {
		return append(errs, err)
	}
	if c, ok := prov.(infra.Checker); ok {
		spec, err := s.clusterSpec(reg, nil)
		if err == nil {
			err = c.Check(ctx, spec)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// checkCloudHosts checks a cloud run before it is created, and only then:
// plan works offline, and settings refused already are not taken to the
// cloud. This machine's public address is looked up first when ssh_cidr is
// not given (a lookup that fails stops here, before any call to the
// cloud); then the provider's own check asks the cloud's API.
func (s *Spec) checkCloudHosts(ctx context.Context, reg *parts.Registry, deps Deps, o CheckOptions) []error {
	if !o.MakesHosts || o.Refused || s.validate(reg) != nil {
		return nil
	}
	if s.SSHCIDR == "" {
		if err := s.lookupSSHCIDR(ctx, o.HTTP); err != nil {
			return []error{err}
		}
	}
	prov, err := deps.Provider(s, "")
	if err != nil {
		return []error{err}
	}
	c, ok := prov.(infra.Checker)
	if !ok {
		return nil
	}
	p, _ := profiles.Get(s.Profile)
	spec, err := s.clusterSpec(reg, p)
	if err == nil {
		err = c.Check(ctx, spec)
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// checkAgent: an agent named must be an executable file; the one beside
// ybbench must be there when the command ships it.
func (s *Spec) checkAgent(ships bool) []error {
	if s.Agent == "" && !ships {
		return nil
	}
	p, err := agentPath(s.Agent)
	if err != nil {
		return []error{fmt.Errorf("agent: %w", err)}
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return []error{fmt.Errorf("%s: %w", s.where("agent"), err)}
	case !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0:
		return []error{fmt.Errorf("%s: %s is not an executable file (the ybload binary to ship)", s.where("agent"), p)}
	}
	return nil
}

// named splits err into its problems, one a line, and says where the
// value of each setting a provider found wrong came from.
func (s *Spec) named(err error) []error {
	var out []error
	for _, e := range flatten(err) {
		var se *infra.SettingError
		if errors.As(e, &se) {
			e = fmt.Errorf("%s: %w", s.where(se.Setting), se.Err)
		}
		out = append(out, e)
	}
	return out
}

// flatten lists the problems of a joined error, looking through wrappers
// that add no words of their own (an exit code's).
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	if w, ok := err.(interface{ Unwrap() error }); ok {
		if inner := w.Unwrap(); inner != nil && inner.Error() == err.Error() {
			if _, multi := inner.(interface{ Unwrap() []error }); multi {
				return flatten(inner)
			}
		}
	}
	return []error{err}
}
