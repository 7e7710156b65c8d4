package pipeline

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cost"
	"github.com/ybbench/ybbench/infra/gcp"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
)

// The cloud settings: what a run on a cloud provider (one whose registry
// entry carries CloudDefaults) is made of, and the checks on them that
// need no cloud API, so that bad input is refused before any call; the
// provider's own check (infra.Checker) asks the API the rest.

// Bounds of the lifetime setting: long enough for a whole profile, short
// enough that a forgotten run's hosts power off the same week.
const (
	minLifetime    = 30 * time.Minute
	maxLifetime    = 168 * time.Hour
	lifetimeBounds = "30m to 168h"
)

// sshCIDRSetting names the setting (and the ClusterSpec option) of the
// addresses the hosts' SSH port accepts.
const sshCIDRSetting = infra.OptionSSHCIDR

// projectProviders are the providers whose resources live in a project,
// which the run must name (GCP); no other provider takes one.
var projectProviders = []string{gcp.ProviderName}

// takesProject reports whether a provider's resources live in a project.
func takesProject(provider string) bool { return slices.Contains(projectProviders, provider) }

// notOnClouds are the settings of other providers that a cloud run would
// not read, and why.
var notOnClouds = []struct{ setting, why string }{
	{"subnet", "the cloud provider makes a network of its own for the run"},
	{"db_hosts", "on a cloud the profile's documented hardware sets the host counts"},
	{"client_hosts", "on a cloud the profile's documented hardware sets the host counts"},
}

// cloudDefault says what a cloud setting defaults to on each cloud
// provider of reg: "the provider's: us-east-1 (aws), us-central1 (gcp)".
func cloudDefault(reg *parts.Registry, pick func(*parts.CloudDefaults) string) string {
	var per []string
	for _, p := range reg.Providers {
		if p.Cloud != nil {
			per = append(per, fmt.Sprintf("%s (%s)", pick(p.Cloud), p.Name))
		}
	}
	return "the provider's: " + strings.Join(per, ", ")
}

// cloudOf returns the cloud defaults of the spec's provider, when it is a
// cloud provider of reg.
func (s *Spec) cloudOf(reg *parts.Registry) (*parts.CloudDefaults, bool) {
	p, ok := reg.Provider(s.Provider)
	if !ok || p.Cloud == nil {
		return nil, false
	}
	return p.Cloud, true
}

// cloudPlace is where and from what the hosts are made: the region, zone
// and image given, else the provider's defaults. A region given without a
// zone gets its zone of the default zone's letter (us-east-1 → us-east-1a
// on aws, europe-west1 → europe-west1-a on gcp): the provider's check then
// names the region's zones when that one does not exist.
func (s *Spec) cloudPlace(d *parts.CloudDefaults) (region, zone, image string) {
	region, zone, image = s.Region, s.Zone, s.Image
	if region == "" {
		region = d.Region
	}
	if zone == "" {
		zone = d.Zone
		if suffix, ok := strings.CutPrefix(d.Zone, d.Region); ok && region != d.Region {
			zone = region + suffix
		}
	}
	if image == "" {
		image = d.Image
	}
	return region, zone, image
}

// checkCloud refuses the cloud settings given to a provider that is not a
// cloud, and checks them on a cloud provider: the profile has hardware
// for it, the project where the provider takes one, ssh_cidr, the lookup
// URL, a zone of the region, the lifetime's bounds, and max_cost against
// the cost estimate. Nothing here asks a cloud's API.
func (s *Spec) checkCloud(reg *parts.Registry, p *profiles.Profile) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	prov, known := reg.Provider(s.Provider)
	if !known || prov.Planned {
		return nil // refused as such by checkProvider
	}
	if prov.Cloud == nil {
		for _, st := range settings {
			if st.Cloud && s.given(st.Name) {
				bad("%s: only the cloud providers (%s) read it, not the %s provider",
					s.where(st.Name), wordList(cloudNames(reg), "and"), s.Provider)
			}
		}
		return errs
	}
	for _, n := range notOnClouds {
		if s.given(n.setting) {
			bad("%s: not taken by the %s provider: %s", s.where(n.setting), s.Provider, n.why)
		}
	}
	var hw *profiles.CloudHardware
	if p != nil {
		if h, err := p.ForProvider(s.Provider); err != nil {
			bad("%s: %v", s.where("provider"), err)
		} else {
			hw = &h
		}
	}
	switch {
	case takesProject(s.Provider) && s.Project == "":
		bad("project: the %s provider needs the project to make the hosts in (--project, %s)", s.Provider, EnvName("project"))
	case !takesProject(s.Provider) && s.Project != "":
		bad("%s: the %s provider takes no project (only %s does)", s.where("project"), s.Provider, wordList(projectProviders, "and"))
	}
	if s.SSHCIDR != "" {
		if err := infra.CheckSSHCIDR(s.SSHCIDR); err != nil {
			bad("%s: %v", s.where(sshCIDRSetting), err)
		}
	}
	if s.SSHCIDRLookupURL != "" {
		if err := checkLookupURL(s.SSHCIDRLookupURL); err != nil {
			bad("%s: %v", s.where("ssh_cidr_lookup_url"), err)
		}
	}
	// Whether the zone is the region's is the provider's to say: its
	// check asks the cloud and lists the region's zones (its plan, which
	// asks nothing, refuses a zone not named after the region).
	if s.Lifetime < minLifetime || s.Lifetime > maxLifetime {
		bad("%s: %v: want %s (the hosts power off at the end of it)", s.where("lifetime"), s.Lifetime, lifetimeBounds)
	}
	// Without the profile's hardware there is nothing to price (said
	// above); a max_cost of 0 or less is wrong whatever the hardware.
	if s.MaxCost != nil && (hw != nil || *s.MaxCost <= 0) {
		if err := s.checkMaxCost(reg, p); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// checkMaxCost refuses a max_cost below the run's upper bound, or one
// that cannot be judged because the price table lacks an item: both
// figures, or what is missing, with the table's date.
func (s *Spec) checkMaxCost(reg *parts.Registry, p *profiles.Profile) error {
	limit := *s.MaxCost
	if limit <= 0 {
		return fmt.Errorf("%s: %v: want more than 0 US dollars", s.where("max_cost"), limit)
	}
	spec, err := s.cloudClusterSpec(reg, p)
	if err != nil {
		return fmt.Errorf("%s: %w", s.where("max_cost"), err)
	}
	e, err := estimate(spec, s.Provider)
	var np *cost.NoPriceError
	switch {
	case errors.As(err, &np):
		return fmt.Errorf("%s: %.2f USD cannot be checked: the price table of %s has no price for %s in %s %s (choose a region the table prices, or drop max_cost)",
			s.where("max_cost"), limit, np.TableDate, strings.Join(np.Items, ", "), np.Provider, np.Region)
	case err != nil:
		return fmt.Errorf("%s: %w", s.where("max_cost"), err)
	case e.Exceeds(limit):
		return fmt.Errorf("%s: %.2f USD is below the run's upper bound of %.2f USD (%.2f USD an hour × lifetime %v; price table of %s): raise max_cost or shorten lifetime",
			s.where("max_cost"), limit, e.UpperBound, e.Hourly, s.Lifetime, e.TableDate)
	}
	return nil
}

// checkLookupURL: an https URL with a host (the answer decides who may
// reach the hosts, so it must not travel in clear).
func checkLookupURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q: want an https:// URL", v)
	}
	return nil
}

// cloudNames lists reg's cloud providers.
func cloudNames(reg *parts.Registry) []string {
	var out []string
	for _, p := range reg.Providers {
		if p.Cloud != nil {
			out = append(out, p.Name)
		}
	}
	return out
}

// cloudClusterSpec is what a cloud provider is asked to make: the
// profile's hardware for the provider (types, disks, the documented host
// counts), where (region, zone) and from what (image), for how long, and
// the options of the cloud settings. The run's name, directory and key
// come at creation.
func (s *Spec) cloudClusterSpec(reg *parts.Registry, p *profiles.Profile) (infra.ClusterSpec, error) {
	d, ok := s.cloudOf(reg)
	if !ok {
		return infra.ClusterSpec{}, fmt.Errorf("provider %s is not a cloud provider", s.Provider)
	}
	hw, err := p.ForProvider(s.Provider)
	if err != nil {
		return infra.ClusterSpec{}, err
	}
	region, zone, image := s.cloudPlace(d)
	spec := infra.ClusterSpec{DBHosts: p.Hardware.DB.Count, ClientHosts: p.Hardware.Client.Count,
		InstanceType: hw.Type, ClientType: hw.ClientType,
		Disks:  infra.Disks{Count: hw.Disks.Count, Kind: hw.Disks.Kind, SizeGB: hw.Disks.SizeGB},
		Region: region, Zone: zone, Owner: s.Owner, Lifetime: s.Lifetime,
		Options: map[string]string{infra.OptionImage: image}}
	if s.SSHCIDR != "" {
		spec.Options[infra.OptionSSHCIDR] = s.SSHCIDR
	}
	if s.Project != "" {
		spec.Options[infra.OptionProject] = s.Project
	}
	if s.ZoneFallback {
		spec.Options[infra.OptionZoneFallback] = "true"
	}
	return spec, nil
}
