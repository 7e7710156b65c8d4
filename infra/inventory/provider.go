package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// Provider is the inventory provider.
type Provider struct{ path string }

var _ infra.Provider = (*Provider)(nil)

// New returns the provider for an inventory file.
func New(path string) *Provider { return &Provider{path: path} }

// ProviderName is the provider's name in specs and cluster.json.
const ProviderName = "inventory"

// Name is "inventory".
func (p *Provider) Name() string { return ProviderName }

// Traits: see ProviderTraits.
func (p *Provider) Traits() infra.Traits { return ProviderTraits() }

// ProviderTraits are the inventory provider's traits, known without an
// inventory file (the run's settings are validated against them): an
// inventory's machines are the user's, listed in the file, up, and kept.
func ProviderTraits() infra.Traits {
	return infra.Traits{ReusesMachines: true, Running: true, FromFile: true}
}

// Plan reads and checks the inventory file (its errors name the file and
// line) and lists its hosts; it does not look up or pin host keys.
func (p *Provider) Plan(infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	hosts, err := Load(p.path)
	if err != nil {
		return nil, "", err
	}
	out := make([]infra.PlannedHost, len(hosts))
	for i, h := range hosts {
		out[i] = infra.PlannedHost{Name: h.Name, Roles: h.Roles, Where: fmt.Sprintf("%s (ssh %s@%s)", p.path, h.SSH.User, h.Addr())}
	}
	return out, "validate the inventory", nil
}

// OptionAcceptNewHostKeys is the ClusterSpec option ("true") that lets
// Create return hosts it knows no key for: their key is pinned at first
// contact, and HostKeySource says so.
const OptionAcceptNewHostKeys = "accept_new_host_keys"

// AcceptedOnFirstUse is the HostKeySource of a host whose key was not
// known and was trusted at first contact.
const AcceptedOnFirstUse = "accepted-on-first-use"

// Create validates the inventory and returns its hosts as the cluster,
// each with its host key pinned (see File); hosts without a known key are
// refused, all at once, before anything connects to any of them (exit 2),
// unless spec.Options[OptionAcceptNewHostKeys] is "true".
func (p *Provider) Create(_ context.Context, spec infra.ClusterSpec) (*infra.Cluster, error) {
	hosts, extra, err := load(p.path)
	if err != nil {
		return nil, err
	}
	if err := pinHostKeys(p.path, hosts, extra, spec.Options[OptionAcceptNewHostKeys] == "true"); err != nil {
		return nil, err
	}
	return &infra.Cluster{Name: spec.Name, Provider: p.Name(), Hosts: hosts, CreatedAt: time.Now().UTC(),
		Meta: map[string]string{"inventory": p.path}}, nil
}

var _ infra.Checker = (*Provider)(nil)

// Check validates the inventory as Create does, host keys included (each
// host's key known, unless spec.Options[OptionAcceptNewHostKeys] is
// "true"), without connecting to any host: every problem at once, exit 2.
func (p *Provider) Check(_ context.Context, spec infra.ClusterSpec) error {
	hosts, extra, err := load(p.path)
	if err != nil {
		return err
	}
	return pinHostKeys(p.path, hosts, extra, spec.Options[OptionAcceptNewHostKeys] == "true")
}

// Destroy deletes no machine: on-prem hosts stay; the pipeline has already
// stopped and wiped what it installed on them.
func (p *Provider) Destroy(context.Context, *infra.Cluster) error { return nil }
