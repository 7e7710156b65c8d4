package aws

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// ec2Checks are the EC2 calls the check makes.
type ec2Checks interface {
	DescribeRegions(ctx context.Context, in *ec2.DescribeRegionsInput, opts ...func(*ec2.Options)) (*ec2.DescribeRegionsOutput, error)
	DescribeAvailabilityZones(ctx context.Context, in *ec2.DescribeAvailabilityZonesInput, opts ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error)
	DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error)
	DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error)
	DescribeImages(ctx context.Context, in *ec2.DescribeImagesInput, opts ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error)
	DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
}

// facts is what a check learned: Create records it in Cluster.Meta.
type facts struct {
	account, arn             string
	region, zone, zoneReason string
	// image is the setting; ami the AMI id it resolved to.
	image, ami                        string
	terraformBinary, terraformVersion string
	// vcpus says how the run fits the vCPU quota.
	vcpus    string
	warnings []string
}

// Check says, before anything is made, whether Create would accept spec:
// its settings (region, zone, image, ssh_cidr, zone_fallback), its host
// counts, types and disks, then, with the account's credentials, that the
// region exists, the zone is one of its zones, every instance type is
// offered in the zone (or, with zone_fallback, in which zone all are),
// the vCPU quota leaves room for the run, the image resolves to an
// available AMI, and a Terraform of terraform.MinVersion or later is
// here. Every problem is returned at once: exit 3 when the quota is the
// only one, else exit 2. A quota that cannot be read is a warning
// (logged), not an error.
func (p *Provider) Check(ctx context.Context, spec infra.ClusterSpec) error {
	_, err := p.check(ctx, spec)
	return err
}

// check is Check, returning what it learned.
func (p *Provider) check(ctx context.Context, spec infra.ClusterSpec) (*facts, error) {
	s, configErrs := readSettings(spec)
	f := &facts{region: s.region, zone: s.zone, image: s.image}
	var infraErrs []error

	if regionPattern.MatchString(s.region) {
		cfgErrs, infErrs := p.checkCloud(ctx, spec.Name, s, f)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		configErrs = append(configErrs, cfgErrs...)
		infraErrs = append(infraErrs, infErrs...)
	}

	if v, err := terraform.CheckBinary(ctx, p.terraformBin); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		configErrs = append(configErrs, err)
	} else {
		f.terraformVersion = v
		f.terraformBinary, _ = terraform.FindBinary(p.terraformBin)
	}

	for _, w := range f.warnings {
		p.log.Warn(w)
	}
	if err := classify(configErrs, infraErrs); err != nil {
		return f, err
	}
	p.log.Info("aws check passed", "account", f.account, "region", f.region, "zone", f.zone, "zone_reason", f.zoneReason,
		"ami", f.ami, "vcpus", f.vcpus, "terraform", f.terraformVersion)
	return f, nil
}

// classify joins a check's problems, bad input first, under one exit
// code: 2 when any input is bad (that is the first thing to fix), else 3.
// The joined error carries the code itself, with no words of its own, so
// that a caller can still list the problems one by one.
func classify(configErrs, infraErrs []error) error {
	if len(configErrs) > 0 {
		return exitcode.Wrap(exitcode.Config, errors.Join(append(configErrs, infraErrs...)...))
	}
	return exitcode.Wrap(exitcode.Infra, errors.Join(infraErrs...))
}

// checkCloud makes the checks that need the account, filling f. It
// returns bad input (exit 2) and what stands in the way of the run on the
// cloud's side (exit 3: a short quota, an API that did not answer).
func (p *Provider) checkCloud(ctx context.Context, runID string, s settings, f *facts) (configErrs, infraErrs []error) {
	cfg, err := p.config(ctx, s.region)
	if err != nil {
		return []error{noCredentials(os.Getenv, err)}, nil
	}
	id, err := checkCredentials(ctx, cfg, sts.NewFromConfig(cfg), os.Getenv)
	if err != nil {
		return []error{err}, nil
	}
	f.account, f.arn = id.account, id.arn
	c := ec2.NewFromConfig(cfg)

	if err := checkRegion(ctx, c, s.region); err != nil {
		var se *infra.SettingError
		if errors.As(err, &se) {
			return []error{err}, nil
		}
		return nil, []error{err}
	}

	zones, err := regionZones(ctx, c)
	if err != nil {
		return nil, []error{err}
	}
	runTypes := s.runTypes()
	offered, err := offerings(ctx, c, runTypes)
	if err != nil {
		return nil, []error{err}
	}
	pl, errs := placeZone(s.region, s.zone, zones, runTypes, offered, s.zoneFallback)
	configErrs = append(configErrs, errs...)
	if pl.zone != "" {
		f.zone, f.zoneReason = pl.zone, pl.reason
		if pl.reason != "as set" {
			p.log.Info("zone_fallback: using another zone", "zone", pl.zone, "reason", pl.reason)
		}
	}

	var known []string
	for _, t := range runTypes {
		if len(offered[t]) > 0 {
			known = append(known, t)
		}
	}
	info, tiErr := typeInfo(ctx, c, known)
	if tiErr != nil {
		infraErrs = append(infraErrs, tiErr)
	}
	if d := s.disks; d.Kind == diskInstanceStore {
		if ti, ok := info[s.dbType]; ok && ti.instanceStoreDisks < d.Count {
			configErrs = append(configErrs, fmt.Errorf("disks: %s has %d instance-store disks; the run asks for %d",
				s.dbType, ti.instanceStoreDisks, d.Count))
		}
	}

	// The quota is judged only when every type's vCPUs are known.
	if len(known) == len(runTypes) && tiErr == nil {
		v := p.checkQuota(ctx, c, runID, s, info)
		f.vcpus = v.fact
		if v.warning != "" {
			f.warnings = append(f.warnings, v.warning)
		}
		if v.err != nil {
			infraErrs = append(infraErrs, v.err)
		}
	}

	// The image must suit every type; when no type is known, any image.
	var archs []string
	if tiErr == nil {
		for i, t := range known {
			archs = intersect(archs, info[t].archs, i == 0)
		}
	}
	ami, err := resolveImage(ctx, c, ssm.NewFromConfig(cfg), s.region, s.image, archs)
	if err != nil {
		configErrs = append(configErrs, err)
	}
	f.ami = ami
	return configErrs, infraErrs
}

// intersect is the architectures every type so far supports.
func intersect(sofar, these []string, first bool) []string {
	if first {
		return slices.Clone(these)
	}
	var out []string
	for _, a := range sofar {
		if slices.Contains(these, a) {
			out = append(out, a)
		}
	}
	return out
}

// checkQuota compares the run's need of standard vCPUs with the quota.
func (p *Provider) checkQuota(ctx context.Context, c ec2Checks, runID string, s settings, info map[string]instanceType) quotaVerdict {
	var need float64
	if standardFamily(s.dbType) {
		need += float64(s.db) * float64(info[s.dbType].vcpus)
	}
	if standardFamily(s.clientType) {
		need += float64(s.clients) * float64(info[s.clientType].vcpus)
	}
	if need == 0 {
		return quotaVerdict{fact: "not checked: no type of the run counts against quota " + quotaCode}
	}
	limit, limitErr := p.quota.VCPULimit(ctx, s.region)
	used := 0.0
	if limitErr == nil {
		var err error
		if used, err = vcpusInUse(ctx, c, runID); err != nil {
			// The limit alone still bounds the run.
			p.log.Warn("vCPUs in use unknown; comparing the need with the whole quota", "err", err)
		}
	}
	return judgeQuota(s.region, need, used, limit, limitErr)
}

// checkRegion looks the region up in DescribeRegions. It asks the region
// itself first; if that fails (an unknown region has no endpoint), the
// default region, which knows every region of its partition.
func checkRegion(ctx context.Context, c ec2Checks, region string) error {
	in := &ec2.DescribeRegionsInput{AllRegions: aws.Bool(true)}
	out, err := c.DescribeRegions(ctx, in, func(o *ec2.Options) { o.RetryMaxAttempts = 1 })
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		out, err = c.DescribeRegions(ctx, in, func(o *ec2.Options) { o.Region = DefaultRegion })
		if err != nil {
			return fmt.Errorf("listing the regions (DescribeRegions): %w", err)
		}
	}
	var names []string
	for _, r := range out.Regions {
		name := aws.ToString(r.RegionName)
		if name != region {
			names = append(names, name)
			continue
		}
		if aws.ToString(r.OptInStatus) == "not-opted-in" {
			return &infra.SettingError{Setting: "region", Err: fmt.Errorf("%s is not enabled for this account (it is an opt-in region)", region)}
		}
		return nil
	}
	slices.Sort(names)
	return &infra.SettingError{Setting: "region", Err: fmt.Errorf("%s is not a region of this account's partition; regions: %s",
		region, strings.Join(names, ", "))}
}

// regionZones lists the names of the region's availability zones, sorted.
func regionZones(ctx context.Context, c ec2Checks) ([]string, error) {
	out, err := c.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		return nil, fmt.Errorf("listing the zones (DescribeAvailabilityZones): %w", err)
	}
	var zones []string
	for _, z := range out.AvailabilityZones {
		zones = append(zones, aws.ToString(z.ZoneName))
	}
	slices.Sort(zones)
	return zones, nil
}

// offerings lists, for each of the types, the zones of the region that
// offer it, sorted.
func offerings(ctx context.Context, c ec2Checks, instanceTypes []string) (map[string][]string, error) {
	out := map[string][]string{}
	pages := ec2.NewDescribeInstanceTypeOfferingsPaginator(c, &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: types.LocationTypeAvailabilityZone,
		Filters:      []types.Filter{{Name: aws.String("instance-type"), Values: instanceTypes}},
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing where %s are offered (DescribeInstanceTypeOfferings): %w", strings.Join(instanceTypes, ", "), err)
		}
		for _, o := range page.InstanceTypeOfferings {
			t := string(o.InstanceType)
			out[t] = append(out[t], aws.ToString(o.Location))
		}
	}
	for t := range out {
		slices.Sort(out[t])
		out[t] = slices.Compact(out[t])
	}
	return out, nil
}

// instanceType is what the check needs to know of a type.
type instanceType struct {
	vcpus              int32
	instanceStoreDisks int
	archs              []string
}

// typeInfo describes the types (all of them offered somewhere: AWS
// refuses the whole call for an unknown one).
func typeInfo(ctx context.Context, c ec2Checks, names []string) (map[string]instanceType, error) {
	out := map[string]instanceType{}
	if len(names) == 0 {
		return out, nil
	}
	in := &ec2.DescribeInstanceTypesInput{}
	for _, n := range names {
		in.InstanceTypes = append(in.InstanceTypes, types.InstanceType(n))
	}
	pages := ec2.NewDescribeInstanceTypesPaginator(c, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing %s (DescribeInstanceTypes): %w", strings.Join(names, ", "), err)
		}
		for _, t := range page.InstanceTypes {
			var it instanceType
			if t.VCpuInfo != nil {
				it.vcpus = aws.ToInt32(t.VCpuInfo.DefaultVCpus)
			}
			if t.InstanceStorageInfo != nil {
				for _, d := range t.InstanceStorageInfo.Disks {
					it.instanceStoreDisks += int(aws.ToInt32(d.Count))
				}
			}
			if t.ProcessorInfo != nil {
				for _, a := range t.ProcessorInfo.SupportedArchitectures {
					it.archs = append(it.archs, string(a))
				}
			}
			out[string(t.InstanceType)] = it
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("DescribeInstanceTypes did not describe %s", n)
		}
	}
	return out, nil
}
