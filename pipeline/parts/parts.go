// Package parts is the one list of the infrastructure providers and
// database flavors ybbench can use, by name: each with the traits its own
// package declares and its constructor. A run's settings are validated,
// and its default provider and flavor chosen, by asking this list what a
// name can do; cmd/ybbench makes the parts from it. Outside the parts' own
// packages, it is the only place that knows their names.
package parts

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// Registry lists providers and flavors, each in order of preference.
type Registry struct {
	// Providers: the first available one is the default provider.
	Providers []Provider
	// Flavors: a binding's default is the first that serves it and needs
	// nothing the run does not give (see FlavorTraits.Tarball).
	Flavors []Flavor
}

// Provider is a provider by name.
type Provider struct {
	Name   string
	Traits infra.Traits
	// Planned: the name is reserved for a provider that is not in this
	// version yet; a run naming it is refused as "not available yet"
	// rather than as unknown.
	Planned bool
	// New makes the provider (nil when Planned).
	New func(ProviderOptions) (infra.Provider, error)
	// Cloud is set for providers that make hosts in a cloud (aws, gcp):
	// the defaults of the run's cloud settings.
	Cloud *CloudDefaults
	// Janitor makes the provider's janitor for one scope (nil for
	// providers whose resources need none).
	Janitor func(ctx context.Context, o JanitorOptions) (infra.Janitor, error)
}

// CloudDefaults are a cloud provider's defaults for the region, zone and
// image settings.
type CloudDefaults struct {
	Region, Zone, Image string
}

// JanitorOptions say which part of an account a janitor looks in: an aws
// region, a gcp project (and, optionally, region).
type JanitorOptions struct {
	Region, Project string
	Log             *slog.Logger
}

// ProviderOptions are what constructors may use from the run.
type ProviderOptions struct {
	// Inventory is the run's inventory file (for a FromFile provider).
	Inventory string
	Log       *slog.Logger
}

// Flavor is a database flavor by name.
type Flavor struct {
	Name string
	// Product is the database it installs as a reader knows it
	// (PostgreSQL, YugabyteDB): the report says which one ran.
	Product string
	Traits  provision.FlavorTraits
	// New makes the flavor.
	New func(log *slog.Logger) provision.Flavor
}

// Provider returns the provider with a name, planned or not.
func (r *Registry) Provider(name string) (Provider, bool) {
	for _, p := range r.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// Available lists the providers a run can use, in order of preference.
func (r *Registry) Available() []Provider {
	var out []Provider
	for _, p := range r.Providers {
		if !p.Planned {
			out = append(out, p)
		}
	}
	return out
}

// DefaultProvider is the first available provider ("" when there is none).
func (r *Registry) DefaultProvider() string {
	if a := r.Available(); len(a) > 0 {
		return a[0].Name
	}
	return ""
}

// FileProvider is the first available provider whose hosts come from an
// inventory file: the one an inventory given without a provider means.
func (r *Registry) FileProvider() (string, bool) {
	for _, p := range r.Available() {
		if p.Traits.FromFile {
			return p.Name, true
		}
	}
	return "", false
}

// Flavor returns the flavor with a name.
func (r *Registry) Flavor(name string) (Flavor, bool) {
	for _, f := range r.Flavors {
		if f.Name == name {
			return f, true
		}
	}
	return Flavor{}, false
}

// FlavorNames lists the flavors' names, in order of preference.
func (r *Registry) FlavorNames() []string {
	out := make([]string, len(r.Flavors))
	for i, f := range r.Flavors {
		out[i] = f.Name
	}
	return out
}

// Serving lists the flavors that serve api, in order of preference.
func (r *Registry) Serving(api provision.API) []string {
	var out []string
	for _, f := range r.Flavors {
		if f.Traits.Serves(api) {
			out = append(out, f.Name)
		}
	}
	return out
}

// APIs lists the APIs the flavors serve, in the order they first appear.
func (r *Registry) APIs() []provision.API {
	var out []provision.API
	seen := map[provision.API]bool{}
	for _, f := range r.Flavors {
		for _, a := range f.Traits.APIs {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// TarballFlavor is the first flavor that installs from a release tarball:
// the one a tarball given without a flavor means.
func (r *Registry) TarballFlavor() (string, bool) {
	for _, f := range r.Flavors {
		if f.Traits.Tarball {
			return f.Name, true
		}
	}
	return "", false
}

// DefaultFlavor is the first flavor that serves api and needs no tarball;
// with api empty (the profile is unknown), the first that needs no
// tarball. It is "" when there is none.
func (r *Registry) DefaultFlavor(api provision.API) string {
	for _, f := range r.Flavors {
		if !f.Traits.Tarball && (api == "" || f.Traits.Serves(api)) {
			return f.Name
		}
	}
	return ""
}

// NewProvider makes the provider with a name.
func (r *Registry) NewProvider(name string, o ProviderOptions) (infra.Provider, error) {
	p, ok := r.Provider(name)
	if !ok || p.New == nil {
		return nil, fmt.Errorf("provider %q is not available", name)
	}
	return p.New(o)
}

// NewFlavor makes the flavor with a name.
func (r *Registry) NewFlavor(name string, log *slog.Logger) (provision.Flavor, error) {
	f, ok := r.Flavor(name)
	if !ok {
		return nil, fmt.Errorf("unknown flavor %q", name)
	}
	return f.New(log), nil
}
