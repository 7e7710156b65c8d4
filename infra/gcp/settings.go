package gcp

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// Settings of a run the gcp provider reads besides ClusterSpec's options:
// the names infra.SettingError gives them.
const (
	SettingRegion   = "region"
	SettingZone     = "zone"
	SettingLifetime = "lifetime"
)

// DiskLocalSSD is the data disk kind the gcp provider makes
// (infra.Disks.Kind): local NVMe SSDs of LocalSSDGB each.
const DiskLocalSSD = "local-ssd"

// LocalSSDGB is the size of one local SSD: GCE's partitions are 375 GB
// (cloud.md §2.4, P2), and the module makes no other size.
const LocalSSDGB = 375

// maxLocalSSDs is the module's bound on local SSDs per host (variables.tf).
const maxLocalSSDs = 24

// The lifetime bounds: the module's max_run_seconds takes 30 minutes to
// 168 hours (GCE itself takes 30 s to 120 days, cloud.md §3.1).
const (
	MinLifetime = 30 * time.Minute
	MaxLifetime = 168 * time.Hour
)

// errNotSet marks a setting that has no value: Plan shows a placeholder
// for it where Check and Create refuse.
var errNotSet = errors.New("not set")

// settings are a spec's cloud settings with the defaults applied: what
// Plan shows and Check checks.
type settings struct {
	project, region string
	// zone is "" when the region was given without a zone: the check
	// picks the region's first zone (sorted) that offers every type.
	zone string
	// zoneGiven says whether the zone was the run's setting (else a
	// default or the check's choice).
	zoneGiven    bool
	image        string // <project>/<family>
	sshCIDR      string
	zoneFallback bool
	dbType       string
	clientType   string
	db, clients  int
	disks        infra.Disks
	lifetime     time.Duration
}

var (
	// regionPattern is the shape of a region's name (us-central1,
	// europe-west4, northamerica-northeast2); whether it exists is the
	// API's answer.
	regionPattern = regexp.MustCompile(`^[a-z]+(-[a-z]+)*[0-9]+$`)
	// zonePattern is a zone's: its region and a letter.
	zonePattern = regexp.MustCompile(`^[a-z]+(-[a-z]+)*[0-9]+-[a-z]$`)
	// imagePattern is what the module's image variable takes.
	imagePattern = regexp.MustCompile(`^[a-z][a-z0-9-]*/[a-z][a-z0-9-]*$`)
	// typePattern is the shape of a machine type (n1-standard-16,
	// e2-medium, custom-8-30720).
	typePattern = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)+$`)
	// projectPattern is a project id: 6 to 30 lowercase letters, digits
	// and hyphens, starting with a letter, not ending with a hyphen
	// (domain-scoped ids carry a "domain:" prefix).
	projectPattern = regexp.MustCompile(`^([a-z][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
)

// readSettings reads spec's cloud settings and hardware, applying the
// defaults: DefaultRegion and DefaultZone when neither is set, the zone's
// region when only the zone is, the check's choice of zone when only the
// region is; image DefaultImage; the client type the db type's. Every problem is returned; those of a
// setting are *infra.SettingError naming it. Nothing is looked up.
func readSettings(spec infra.ClusterSpec) (settings, []error) {
	var errs []error
	bad := func(setting, format string, args ...any) {
		errs = append(errs, &infra.SettingError{Setting: setting, Err: fmt.Errorf(format, args...)})
	}
	s := settings{
		region: spec.Region, zone: spec.Zone, zoneGiven: spec.Zone != "",
		dbType: spec.InstanceType, clientType: spec.ClientType,
		db: spec.DBHosts, clients: spec.ClientHosts, disks: spec.Disks,
		image: DefaultImage, lifetime: spec.Lifetime,
	}
	switch {
	case s.region == "" && s.zone == "":
		s.region, s.zone = DefaultRegion, DefaultZone
	case s.region == "":
		s.region = regionOfZone(s.zone)
	}
	if s.clientType == "" {
		s.clientType = s.dbType
	}
	if !regionPattern.MatchString(s.region) {
		bad(SettingRegion, "%q is not a region name such as %s", s.region, DefaultRegion)
	}
	if s.zone != "" {
		if !zonePattern.MatchString(s.zone) {
			bad(SettingZone, "%q is not a zone name such as %s", s.zone, DefaultZone)
		} else if regionOfZone(s.zone) != s.region {
			bad(SettingZone, "%s is not a zone of region %s", s.zone, s.region)
		}
	}

	for _, k := range slices.Sorted(maps.Keys(spec.Options)) {
		v := spec.Options[k]
		switch k {
		case infra.OptionProject:
			s.project = v
		case infra.OptionImage:
			if v != "" {
				s.image = v
			}
		case infra.OptionSSHCIDR:
			s.sshCIDR = v
		case infra.OptionZoneFallback:
			on, err := infra.ZoneFallback(v)
			if err != nil {
				bad(k, "%v", err)
			}
			s.zoneFallback = on
		default:
			// The pipeline may pass a setting other providers take with
			// an empty value; only a value given is a mistake.
			if v != "" {
				bad(k, "%q is not a setting of the gcp provider (it takes %s, %s, %s, %s, %s and %s)", k,
					infra.OptionProject, SettingRegion, SettingZone, infra.OptionImage, infra.OptionSSHCIDR, infra.OptionZoneFallback)
			}
		}
	}
	switch {
	case s.project == "":
		errs = append(errs, &infra.SettingError{Setting: infra.OptionProject,
			Err: fmt.Errorf("%w: the GCP project the hosts are made in (gcloud projects list shows yours)", errNotSet)})
	case !projectPattern.MatchString(s.project):
		bad(infra.OptionProject, "%q is not a project id (6-30 lowercase letters, digits and hyphens, starting with a letter)", s.project)
	}
	if !imagePattern.MatchString(s.image) {
		bad(infra.OptionImage, "%q: want <project>/<family> (default %s)", s.image, DefaultImage)
	}
	if err := checkSSHCIDR(s.sshCIDR); err != nil {
		errs = append(errs, &infra.SettingError{Setting: infra.OptionSSHCIDR, Err: err})
	}
	if s.lifetime < MinLifetime || s.lifetime > MaxLifetime {
		bad(SettingLifetime, "%v: want %v to %v (GCE deletes each host this long after it starts)", s.lifetime, MinLifetime, MaxLifetime)
	} else if s.lifetime%time.Second != 0 {
		bad(SettingLifetime, "%v: want whole seconds", s.lifetime)
	}
	errs = append(errs, s.checkHardware()...)
	return s, errs
}

// checkSSHCIDR is infra.CheckSSHCIDR, an empty value marked errNotSet
// (Plan shows a placeholder for it).
func checkSSHCIDR(v string) error {
	if v == "" {
		return fmt.Errorf("%w: %w", errNotSet, infra.ErrSSHCIDRUnset)
	}
	return infra.CheckSSHCIDR(v)
}

// checkHardware checks the host counts, types and data disks.
func (s settings) checkHardware() []error {
	var errs []error
	if s.db < 1 || s.db > MaxHosts || s.clients < 1 || s.clients > MaxHosts {
		errs = append(errs, fmt.Errorf("hosts: %d db and %d client: the gcp provider makes 1 to %d of each", s.db, s.clients, MaxHosts))
	}
	if !typePattern.MatchString(s.dbType) {
		errs = append(errs, fmt.Errorf("machine type %q: want a Compute Engine machine type such as n1-standard-16", s.dbType))
	}
	if s.clientType != s.dbType && !typePattern.MatchString(s.clientType) {
		errs = append(errs, fmt.Errorf("client machine type %q: want a Compute Engine machine type such as n1-standard-16", s.clientType))
	}
	d := s.disks
	switch d.Kind {
	case DiskLocalSSD:
		if d.Count < 1 || d.Count > maxLocalSSDs || (d.SizeGB != 0 && d.SizeGB != LocalSSDGB) {
			errs = append(errs, fmt.Errorf("disks: %d × local-ssd %d GB: want 1 to %d local SSDs of %d GB", d.Count, d.SizeGB, maxLocalSSDs, LocalSSDGB))
		}
	case "":
		if d.Count != 0 {
			errs = append(errs, fmt.Errorf("disks: %d disks of no kind: want %s", d.Count, DiskLocalSSD))
		}
	default:
		errs = append(errs, fmt.Errorf("disks: kind %q: the gcp provider makes %s data disks (%d GB each) only", d.Kind, DiskLocalSSD, LocalSSDGB))
	}
	return errs
}

// localSSDs is how many local SSDs each db host gets.
func (s settings) localSSDs() int {
	if s.disks.Kind == DiskLocalSSD {
		return s.disks.Count
	}
	return 0
}

// runTypes lists the run's machine types, each once, db type first.
func (s settings) runTypes() []string {
	if s.clientType == s.dbType {
		return []string{s.dbType}
	}
	return []string{s.dbType, s.clientType}
}

// imageParts splits the image setting into its project and family.
func (s settings) imageParts() (project, family string) {
	project, family, _ = strings.Cut(s.image, "/")
	return project, family
}

// hostPlan is one host the run makes: the module's hosts element.
type hostPlan struct {
	Name      string `json:"name"`
	Role      string `json:"role"`
	Type      string `json:"machine_type"`
	LocalSSDs int    `json:"local_ssd_count"`
}

// hosts lists the run's hosts in cluster order: db-1…db-N, then
// client-1…client-M (the names the local provider gives).
func (s settings) hosts() []hostPlan {
	out := make([]hostPlan, 0, s.db+s.clients)
	for i := 1; i <= s.db; i++ {
		out = append(out, hostPlan{Name: fmt.Sprintf("db-%d", i), Role: string(infra.RoleDB), Type: s.dbType, LocalSSDs: s.localSSDs()})
	}
	for i := 1; i <= s.clients; i++ {
		out = append(out, hostPlan{Name: fmt.Sprintf("client-%d", i), Role: string(infra.RoleClient), Type: s.clientType})
	}
	return out
}
