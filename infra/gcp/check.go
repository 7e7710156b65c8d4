package gcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// facts are what a check found out, beyond the settings: Create records
// them in Cluster.Meta (and the pipeline in the up step of the ledger).
type facts struct {
	settings
	// zoneNote says why the zone is not the one set, when it is not
	// (zone_fallback, or no zone set outside the default region).
	zoneNote string
	// cpus is each machine type's vCPUs in the zone.
	cpus map[string]int32
	// resolved is the image the family resolves to now.
	resolved string
	// quotas says each regional quota checked: need and free.
	quotas []string
	// terraformVersion is the version of the terraform binary found.
	terraformVersion string
}

// Check says, before anything is made, whether Create would accept spec,
// reporting every problem at once: the settings (project, region, zone,
// image, ssh_cidr, lifetime: each an *infra.SettingError naming it), the
// hardware, Application Default Credentials (the sources tried when none
// are found; no API call is made then), the region, the zone in it, each
// machine type offered in the zone (with zone_fallback, the region's first
// zone that offers them all), the region's CPUS and LOCAL_SSD_TOTAL_GB
// quotas against the run's need, the image family, and a terraform binary
// of terraform.MinVersion or later. Problems are bad configuration (exit
// 2), except a quota too small for the run or an API failure, which alone
// are an infrastructure failure (exit 3).
func (p *Provider) Check(ctx context.Context, spec infra.ClusterSpec) error {
	_, err := p.check(ctx, spec, false)
	return err
}

// checker collects a check's problems: bad configuration apart from the
// infrastructure's refusals, which decide the exit code.
type checker struct {
	config, infra []error
}

func (k *checker) bad(setting string, format string, args ...any) {
	k.config = append(k.config, &infra.SettingError{Setting: setting, Err: fmt.Errorf(format, args...)})
}

// api files an API error by what it says: the API's own request quota
// spent (quotaExceeded, rateLimitExceeded) and any other failure are the
// infrastructure's; the Compute API not enabled, or credentials without
// access to the project, are the project setting's.
func (k *checker) api(project, what string, err error) {
	ge, ok := apiError(err)
	switch {
	case !ok:
		k.infra = append(k.infra, &callError{what: what, err: err})
	case hasReason(err, "quotaExceeded") || hasReason(err, "rateLimitExceeded") || hasReason(err, "userRateLimitExceeded"):
		k.infra = append(k.infra, fmt.Errorf("%s: the Compute API refused (%s): a quota of the project's API use is spent; wait a minute and try again", what, describeAPIError(err)))
	case hasReason(err, "accessNotConfigured") || hasReason(err, "SERVICE_DISABLED"):
		k.bad(infra.OptionProject, "%s: the Compute Engine API is not enabled in project %s (%s); enable it with `gcloud services enable compute.googleapis.com --project %s`", what, project, describeAPIError(err), project)
	case ge.Code == http.StatusForbidden || ge.Code == http.StatusUnauthorized:
		k.bad(infra.OptionProject, "%s: the credentials may not use project %s, or it does not exist (%s); %s", what, project, describeAPIError(err), credentialsHint)
	default:
		k.infra = append(k.infra, &callError{what: what, err: err})
	}
}

// err is the check's verdict: nil, bad configuration when any problem is
// one (all problems listed, configuration first), else an infrastructure
// failure.
func (k *checker) err() error {
	switch {
	case len(k.config) > 0:
		return exitcode.Wrap(exitcode.Config, fmt.Errorf("gcp provider: %w", errors.Join(append(k.config, k.infra...)...)))
	case len(k.infra) > 0:
		return exitcode.Wrap(exitcode.Infra, fmt.Errorf("gcp provider: %w", errors.Join(k.infra...)))
	}
	return nil
}

// check is Check, returning what it found. resumed says the run's hosts
// may exist already (Create again on a run with Terraform state): they use
// quota of their own, so a quota short of the whole need is logged, not
// refused.
func (p *Provider) check(ctx context.Context, spec infra.ClusterSpec, resumed bool) (*facts, error) {
	s, errs := readSettings(spec)
	k := &checker{config: errs}
	f := &facts{settings: s}

	v, err := terraform.CheckBinary(ctx, p.terraformBin)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		k.config = append(k.config, err)
	}
	f.terraformVersion = v

	opts, err := p.clientOptions(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		k.config = append(k.config, err)
		return nil, k.err() // fail fast: without credentials no call can answer
	}
	if s.project == "" || !projectPattern.MatchString(s.project) || !regionPattern.MatchString(s.region) {
		return nil, k.err() // reported by readSettings; nothing to ask about
	}
	c, err := newClients(ctx, opts...)
	if err != nil {
		k.infra = append(k.infra, err)
		return nil, k.err()
	}
	defer c.Close()

	// A zone or type readSettings refused is not asked about: the API's
	// answer would only repeat the problem.
	if region := p.checkRegion(ctx, c, k, f); region != nil && f.zoneAndTypesWellFormed() {
		if p.checkZoneAndTypes(ctx, c, k, f, region) {
			p.checkQuotas(k, f, region, resumed)
		}
	}
	p.checkImage(ctx, c, k, f)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := k.err(); err != nil {
		return nil, err
	}
	p.log.Info("gcp check passed", "project", f.project, "zone", f.zone, "zone_note", f.zoneNote,
		"image", f.resolved, "quotas", strings.Join(f.quotas, "; "), "terraform", f.terraformVersion)
	return f, nil
}

// zoneAndTypesWellFormed reports whether the zone (when set) and the
// machine types passed readSettings, so that the API can be asked about
// them.
func (s settings) zoneAndTypesWellFormed() bool {
	if s.zone != "" && (!zonePattern.MatchString(s.zone) || regionOfZone(s.zone) != s.region) {
		return false
	}
	for _, t := range s.runTypes() {
		if !typePattern.MatchString(t) {
			return false
		}
	}
	return true
}

// checkRegion reads the region (its zones and quotas); nil when it cannot.
func (p *Provider) checkRegion(ctx context.Context, c *clients, k *checker, f *facts) *computepb.Region {
	r, err := c.regions.Get(ctx, &computepb.GetRegionRequest{Project: f.project, Region: f.region})
	switch {
	case isNotFound(err):
		known := ""
		if names := p.regionNames(ctx, c, f.project); len(names) > 0 {
			known = " (the project's regions: " + strings.Join(names, ", ") + ")"
		}
		k.bad(SettingRegion, "no region %q in project %s%s", f.region, f.project, known)
		return nil
	case err != nil:
		k.api(f.project, "reading region "+f.region, err)
		return nil
	}
	return r
}

// regionNames lists the project's regions, sorted (none on failure: it
// only adds to a message).
func (p *Provider) regionNames(ctx context.Context, c *clients, project string) []string {
	it := c.regions.List(ctx, &computepb.ListRegionsRequest{Project: project})
	var out []string
	for {
		r, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			p.log.Debug("listing regions", "err", err)
			return nil
		}
		out = append(out, r.GetName())
	}
	slices.Sort(out)
	return out
}

// regionZones are a region's zones' names, sorted.
func regionZones(r *computepb.Region) []string {
	out := make([]string, 0, len(r.GetZones()))
	for _, z := range r.GetZones() {
		out = append(out, lastSegment(z))
	}
	slices.Sort(out)
	return out
}

// checkZoneAndTypes checks the zone (in the region, up) and that it offers
// every machine type, choosing another zone of the region with
// zone_fallback (or when no zone was set). It reports whether f.zone
// offers every type, with their vCPUs in f.cpus.
func (p *Provider) checkZoneAndTypes(ctx context.Context, c *clients, k *checker, f *facts, region *computepb.Region) bool {
	zones := regionZones(region)
	if f.zone != "" {
		z, err := c.zones.Get(ctx, &computepb.GetZoneRequest{Project: f.project, Zone: f.zone})
		switch {
		case isNotFound(err) || (err == nil && lastSegment(z.GetRegion()) != f.region):
			k.bad(SettingZone, "%s is not a zone of region %s (its zones: %s)", f.zone, f.region, strings.Join(zones, ", "))
			return false
		case err != nil:
			k.api(f.project, "reading zone "+f.zone, err)
			return false
		case z.GetStatus() != "UP":
			k.bad(SettingZone, "zone %s is %s (the other zones of %s: %s)", f.zone, z.GetStatus(), f.region, strings.Join(slices.DeleteFunc(slices.Clone(zones), func(s string) bool { return s == f.zone }), ", "))
			return false
		}
		cpus, missing, ok := p.typesIn(ctx, c, k, f, f.zone)
		if !ok {
			return false
		}
		if len(missing) == 0 {
			f.cpus = cpus
			return true
		}
		offering, ok := p.offering(ctx, c, k, f, zones)
		if !ok {
			return false
		}
		if !f.zoneFallback {
			for _, t := range missing {
				where := "none of them"
				if zs := zonesOffering(offering, zones, t); len(zs) > 0 {
					where = strings.Join(zs, ", ")
				}
				k.bad(SettingZone, "machine type %s is not offered in %s; the zones of %s that offer it: %s (set zone to one of them, or %s=true to take the first)",
					t, f.zone, f.region, where, "zone_fallback")
			}
			return false
		}
		return p.pickZone(k, f, zones, offering, fmt.Sprintf("%s does not offer %s (zone_fallback)", f.zone, strings.Join(missing, " and ")))
	}
	offering, ok := p.offering(ctx, c, k, f, zones)
	if !ok {
		return false
	}
	return p.pickZone(k, f, zones, offering, "no zone set in "+f.region)
}

// pickZone sets f.zone to the first of zones that offers every type.
func (p *Provider) pickZone(k *checker, f *facts, zones []string, offering map[string]map[string]int32, why string) bool {
	for _, z := range zones {
		if len(offering[z]) == len(f.runTypes()) {
			f.zoneNote = fmt.Sprintf("%s: chose %s, the first zone of %s that offers %s", why, z, f.region, strings.Join(f.runTypes(), " and "))
			f.zone, f.cpus = z, offering[z]
			p.log.Info("zone chosen", "zone", z, "why", why)
			return true
		}
	}
	var where []string
	for _, t := range f.runTypes() {
		zs := zonesOffering(offering, zones, t)
		if len(zs) == 0 {
			zs = []string{"none"}
		}
		where = append(where, t+" in "+strings.Join(zs, ", "))
	}
	k.bad(SettingZone, "%s, and no zone of %s offers every machine type the run needs: %s", why, f.region, strings.Join(where, "; "))
	return false
}

// zonesOffering lists the zones (in the order of zones) that offer t.
func zonesOffering(offering map[string]map[string]int32, zones []string, t string) []string {
	var out []string
	for _, z := range zones {
		if _, ok := offering[z][t]; ok {
			out = append(out, z)
		}
	}
	return out
}

// typesIn asks a zone for each machine type: their vCPUs, the types it
// does not offer (the API's 404), and false when an answer was neither.
func (p *Provider) typesIn(ctx context.Context, c *clients, k *checker, f *facts, zone string) (map[string]int32, []string, bool) {
	cpus := map[string]int32{}
	var missing []string
	for _, t := range f.runTypes() {
		mt, err := c.machineTypes.Get(ctx, &computepb.GetMachineTypeRequest{Project: f.project, Zone: zone, MachineType: t})
		switch {
		case isNotFound(err):
			missing = append(missing, t)
		case err != nil:
			k.api(f.project, fmt.Sprintf("reading machine type %s in %s", t, zone), err)
			return nil, nil, false
		default:
			cpus[t] = mt.GetGuestCpus()
		}
	}
	return cpus, missing, true
}

// offering asks every zone of the region for the run's machine types:
// zone → type → vCPUs of the types it offers.
func (p *Provider) offering(ctx context.Context, c *clients, k *checker, f *facts, zones []string) (map[string]map[string]int32, bool) {
	out := map[string]map[string]int32{}
	for _, z := range zones {
		cpus, _, ok := p.typesIn(ctx, c, k, f, z)
		if !ok {
			return nil, false
		}
		out[z] = cpus
	}
	return out, true
}

// checkImage resolves the image family.
func (p *Provider) checkImage(ctx context.Context, c *clients, k *checker, f *facts) {
	if !imagePattern.MatchString(f.image) {
		return // reported by readSettings
	}
	project, family := f.imageParts()
	img, err := c.images.GetFromFamily(ctx, &computepb.GetFromFamilyImageRequest{Project: project, Family: family})
	switch {
	case isNotFound(err):
		k.bad(infra.OptionImage, "no image family %q in project %s (see `gcloud compute images list --project %s`)", family, project, project)
	case err != nil:
		k.api(f.project, "resolving image family "+f.image, err)
	default:
		f.resolvedImage(img)
	}
}

// resolvedImage records the image a family resolved to.
func (f *facts) resolvedImage(img *computepb.Image) {
	f.resolved = img.GetName()
	if f.resolved == "" {
		f.resolved = lastSegment(img.GetSelfLink())
	}
}
