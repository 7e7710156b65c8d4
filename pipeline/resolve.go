package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

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
