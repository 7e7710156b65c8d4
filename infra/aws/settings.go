package aws

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// The data disk kinds the aws provider makes (infra.Disks.Kind).
const (
	diskGP3           = "gp3"
	diskInstanceStore = "instance-store"
)

// The module's limits on gp3 data volumes (terraform/aws variables.tf:
// data_disk_count 0 to 8, data_disk_gb 1 to 16384).
const (
	maxDataDisks = 8
	maxDiskGB    = 16384
)

// settings are a spec's cloud settings, defaults applied: what Plan shows
// and Check checks.
type settings struct {
	region, zone string
	// image is the setting as given (ami-… or ssm:<path>).
	image        string
	sshCIDR      string
	zoneFallback bool
	dbType       string
	clientType   string
	db, clients  int
	disks        infra.Disks
}

var (
	// regionPattern is the shape of a region name (us-west-2,
	// us-gov-east-1, ap-southeast-4); whether it exists is DescribeRegions'
	// answer.
	regionPattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	// zonePattern is the shape of an availability zone's name (us-west-2a),
	// the one terraform/aws's zone variable accepts: local zones
	// (us-west-2-lax-1a) do not offer the documented instance types.
	zonePattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9][a-z]$`)
	// amiPattern is an AMI id, as the module's ami variable takes it.
	amiPattern = regexp.MustCompile(`^ami-[0-9a-f]{8,17}$`)
	// typePattern is the shape of an instance type (c5.4xlarge).
	typePattern = regexp.MustCompile(`^[a-z][a-z0-9-]*\.[a-z0-9-]+$`)
)

// ssmPrefix marks an image setting that names an SSM parameter holding
// the AMI id.
const ssmPrefix = "ssm:"

// readSettings reads spec's cloud settings and host counts, applying the
// defaults: region DefaultRegion, zone DefaultZone in the default region
// and the region's "a" zone elsewhere, image DefaultImage, the client type
// the db type's. Every problem is returned; those of a setting are
// *infra.SettingError naming it. Nothing is looked up.
func readSettings(spec infra.ClusterSpec) (settings, []error) {
	var errs []error
	bad := func(setting, format string, args ...any) {
		errs = append(errs, &infra.SettingError{Setting: setting, Err: fmt.Errorf(format, args...)})
	}
	s := settings{
		region: spec.Region, zone: spec.Zone,
		dbType: spec.InstanceType, clientType: spec.ClientType,
		db: spec.DBHosts, clients: spec.ClientHosts, disks: spec.Disks,
		image: DefaultImage,
	}
	if s.region == "" {
		s.region = DefaultRegion
	}
	if s.zone == "" {
		s.zone = DefaultZone
		if s.region != DefaultRegion {
			s.zone = s.region + "a"
		}
	}
	if s.clientType == "" {
		s.clientType = s.dbType
	}
	if !regionPattern.MatchString(s.region) {
		bad("region", "%q is not a region name such as %s", s.region, DefaultRegion)
	}
	if !zonePattern.MatchString(s.zone) {
		bad("zone", "%q is not an availability zone name such as %s", s.zone, DefaultZone)
	} else if !strings.HasPrefix(s.zone, s.region) {
		bad("zone", "%s is not a zone of region %s", s.zone, s.region)
	}

	for _, k := range slices.Sorted(maps.Keys(spec.Options)) {
		v := spec.Options[k]
		switch k {
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
				bad(k, "%q is not a setting of the aws provider (it takes %s, %s, %s, %s and %s)",
					k, "region", "zone", infra.OptionImage, infra.OptionSSHCIDR, infra.OptionZoneFallback)
			}
		}
	}
	if err := checkImage(s.image); err != nil {
		errs = append(errs, &infra.SettingError{Setting: infra.OptionImage, Err: err})
	}
	if err := infra.CheckSSHCIDR(s.sshCIDR); err != nil {
		errs = append(errs, &infra.SettingError{Setting: infra.OptionSSHCIDR, Err: err})
	}
	errs = append(errs, s.checkHardware()...)
	return s, errs
}

// checkImage accepts an AMI id or ssm:<parameter path>.
func checkImage(image string) error {
	if amiPattern.MatchString(image) {
		return nil
	}
	if path, ok := strings.CutPrefix(image, ssmPrefix); ok && strings.HasPrefix(path, "/") && !strings.ContainsAny(path, " \t\n") {
		return nil
	}
	return fmt.Errorf("%q: want an AMI id (ami-0123456789abcdef0) or ssm:<parameter path> (default %s)", image, DefaultImage)
}

// checkHardware checks the host counts, types and data disks.
func (s settings) checkHardware() []error {
	var errs []error
	if s.db < 1 || s.db > MaxHosts || s.clients < 1 || s.clients > MaxHosts {
		errs = append(errs, fmt.Errorf("hosts: %d db and %d client: the aws provider makes 1 to %d of each", s.db, s.clients, MaxHosts))
	}
	if !typePattern.MatchString(s.dbType) {
		errs = append(errs, fmt.Errorf("instance type %q: want an EC2 instance type such as c5.4xlarge", s.dbType))
	}
	if s.clientType != s.dbType && !typePattern.MatchString(s.clientType) {
		errs = append(errs, fmt.Errorf("client instance type %q: want an EC2 instance type such as c5.4xlarge", s.clientType))
	}
	d := s.disks
	switch d.Kind {
	case diskGP3:
		if d.Count < 1 || d.Count > maxDataDisks || d.SizeGB < 1 || d.SizeGB > maxDiskGB {
			errs = append(errs, fmt.Errorf("disks: %d × gp3 %d GB: want 1 to %d volumes of 1 to %d GB", d.Count, d.SizeGB, maxDataDisks, maxDiskGB))
		}
	case diskInstanceStore:
		if d.Count < 1 {
			errs = append(errs, fmt.Errorf("disks: %d instance-store disks: want at least 1", d.Count))
		}
	case "":
		if d.Count != 0 {
			errs = append(errs, fmt.Errorf("disks: %d disks of no kind: want gp3 or instance-store", d.Count))
		}
	default:
		errs = append(errs, fmt.Errorf("disks: kind %q: the aws provider makes gp3 volumes or uses the type's instance-store disks", d.Kind))
	}
	return errs
}

// gp3Volumes is how many gp3 volumes each db host gets (none when its
// disks are the type's own).
func (s settings) gp3Volumes() int {
	if s.disks.Kind == diskGP3 {
		return s.disks.Count
	}
	return 0
}

// runTypes lists the run's instance types, each once, db type first.
func (s settings) runTypes() []string {
	if s.clientType == s.dbType {
		return []string{s.dbType}
	}
	return []string{s.dbType, s.clientType}
}
