package aws

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
)

// ec2API is the part of the EC2 client that finds a run's resources by
// their tags: one Describe call per resource type. *ec2.Client satisfies
// it; tests may fake it.
type ec2API interface {
	DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	DescribeVolumes(ctx context.Context, in *ec2.DescribeVolumesInput, opts ...func(*ec2.Options)) (*ec2.DescribeVolumesOutput, error)
	DescribeKeyPairs(ctx context.Context, in *ec2.DescribeKeyPairsInput, opts ...func(*ec2.Options)) (*ec2.DescribeKeyPairsOutput, error)
	DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, opts ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	DescribeInternetGateways(ctx context.Context, in *ec2.DescribeInternetGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error)
	DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
}

// The resource types findTagged lists (infra.Resource.Type), in the order
// they can be deleted: instances first (they hold the volumes, the key's
// use, the group, the subnet), the VPC last.
const (
	TypeInstance        = "instance"
	TypeVolume          = "volume"
	TypeKeyPair         = "key-pair"
	TypeSecurityGroup   = "security-group"
	TypeRouteTable      = "route-table"
	TypeInternetGateway = "internet-gateway"
	TypeSubnet          = "subnet"
	TypeVPC             = "vpc"
)

// tagFilter is an EC2 filter on one tag's value.
func tagFilter(key string, values ...string) types.Filter {
	return types.Filter{Name: aws.String("tag:" + key), Values: values}
}

// runFilters select one run's resources: its run id and ybbench's managed
// mark.
func runFilters(runID string) []types.Filter {
	return []types.Filter{tagFilter(cloudtag.TagRunID, runID), tagFilter(cloudtag.TagManaged, "true")}
}

// findTagged lists, in deletion order, the resources of the types above
// that match filters (EC2 Describe filters, typically tag:<key> ones) and
// carry ybbench's managed mark, each with the run id and expiry its tags
// give. It asks each type's own Describe call, never DescribeTags, which
// keeps the tags of deleted resources. Region is left for the caller (the
// client's region).
//
// Terminated instances are left out: AWS shows them for about an hour
// after they are gone, they hold nothing (their volumes were deleted with
// them) and nothing can delete them further. An instance shutting down is
// listed: it still exists. A deleted volume is left out for the same
// reason as a terminated instance. The key pairs, groups, tables, gateways,
// subnets and VPCs AWS makes itself (a VPC's main route table and default
// group) carry no tags and are never listed: they go with their VPC.
//
// A resource marked managed whose other tags do not parse is not listed;
// the error names it, with every other problem, and whatever was found is
// returned with it.
func findTagged(ctx context.Context, c ec2API, filters []types.Filter) ([]infra.Resource, error) {
	var (
		out  []infra.Resource
		errs []error
	)
	add := func(typ, id, zone string, tags []types.Tag) {
		f, err := cloudtag.ParseAWSTags(tagMap(tags))
		switch {
		case errors.Is(err, cloudtag.ErrUnmanaged):
			return
		case err != nil:
			errs = append(errs, fmt.Errorf("%s %s: %w", typ, id, err))
			return
		}
		out = append(out, infra.Resource{Type: typ, ID: id, Zone: zone, RunID: f.Run, Expires: f.Expires})
	}
	fail := func(typ string, err error) {
		errs = append(errs, fmt.Errorf("listing %ss: %w", typ, err))
	}

	instances := ec2.NewDescribeInstancesPaginator(c, &ec2.DescribeInstancesInput{Filters: filters})
	for instances.HasMorePages() {
		page, err := instances.NextPage(ctx)
		if err != nil {
			fail(TypeInstance, err)
			break
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				if i.State != nil && i.State.Name == types.InstanceStateNameTerminated {
					continue
				}
				zone := ""
				if i.Placement != nil {
					zone = aws.ToString(i.Placement.AvailabilityZone)
				}
				add(TypeInstance, aws.ToString(i.InstanceId), zone, i.Tags)
			}
		}
	}

	volumes := ec2.NewDescribeVolumesPaginator(c, &ec2.DescribeVolumesInput{Filters: filters})
	for volumes.HasMorePages() {
		page, err := volumes.NextPage(ctx)
		if err != nil {
			fail(TypeVolume, err)
			break
		}
		for _, v := range page.Volumes {
			if v.State == types.VolumeStateDeleted {
				continue
			}
			add(TypeVolume, aws.ToString(v.VolumeId), aws.ToString(v.AvailabilityZone), v.Tags)
		}
	}

	// DescribeKeyPairs is not paginated.
	if keys, err := c.DescribeKeyPairs(ctx, &ec2.DescribeKeyPairsInput{Filters: filters}); err != nil {
		fail(TypeKeyPair, err)
	} else {
		for _, k := range keys.KeyPairs {
			add(TypeKeyPair, aws.ToString(k.KeyPairId), "", k.Tags)
		}
	}

	groups := ec2.NewDescribeSecurityGroupsPaginator(c, &ec2.DescribeSecurityGroupsInput{Filters: filters})
	for groups.HasMorePages() {
		page, err := groups.NextPage(ctx)
		if err != nil {
			fail(TypeSecurityGroup, err)
			break
		}
		for _, g := range page.SecurityGroups {
			add(TypeSecurityGroup, aws.ToString(g.GroupId), "", g.Tags)
		}
	}

	tables := ec2.NewDescribeRouteTablesPaginator(c, &ec2.DescribeRouteTablesInput{Filters: filters})
	for tables.HasMorePages() {
		page, err := tables.NextPage(ctx)
		if err != nil {
			fail(TypeRouteTable, err)
			break
		}
		for _, t := range page.RouteTables {
			add(TypeRouteTable, aws.ToString(t.RouteTableId), "", t.Tags)
		}
	}

	gateways := ec2.NewDescribeInternetGatewaysPaginator(c, &ec2.DescribeInternetGatewaysInput{Filters: filters})
	for gateways.HasMorePages() {
		page, err := gateways.NextPage(ctx)
		if err != nil {
			fail(TypeInternetGateway, err)
			break
		}
		for _, g := range page.InternetGateways {
			add(TypeInternetGateway, aws.ToString(g.InternetGatewayId), "", g.Tags)
		}
	}

	subnets := ec2.NewDescribeSubnetsPaginator(c, &ec2.DescribeSubnetsInput{Filters: filters})
	for subnets.HasMorePages() {
		page, err := subnets.NextPage(ctx)
		if err != nil {
			fail(TypeSubnet, err)
			break
		}
		for _, s := range page.Subnets {
			add(TypeSubnet, aws.ToString(s.SubnetId), aws.ToString(s.AvailabilityZone), s.Tags)
		}
	}

	vpcs := ec2.NewDescribeVpcsPaginator(c, &ec2.DescribeVpcsInput{Filters: filters})
	for vpcs.HasMorePages() {
		page, err := vpcs.NextPage(ctx)
		if err != nil {
			fail(TypeVPC, err)
			break
		}
		for _, v := range page.Vpcs {
			add(TypeVPC, aws.ToString(v.VpcId), "", v.Tags)
		}
	}

	return out, errors.Join(errs...)
}

// tagMap turns EC2's tag list into a map.
func tagMap(tags []types.Tag) map[string]string {
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}
