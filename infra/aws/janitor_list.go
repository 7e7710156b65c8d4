package aws

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// The resource types the janitor handles, as EC2's tag specifications name
// them (infra.Resource.Type).
const (
	janInstance        = string(types.ResourceTypeInstance)
	janVolume          = string(types.ResourceTypeVolume)
	janKeyPair         = string(types.ResourceTypeKeyPair)
	janPlacementGroup  = string(types.ResourceTypePlacementGroup)
	janSecurityGroup   = string(types.ResourceTypeSecurityGroup)
	janRouteTable      = string(types.ResourceTypeRouteTable)
	janInternetGateway = string(types.ResourceTypeInternetGateway)
	janSubnet          = string(types.ResourceTypeSubnet)
	janVPC             = string(types.ResourceTypeVpc)
)

// janOrder is the deletion order (cloud.md §4.3): whatever uses a resource
// comes before it, and the VPC, which everything else lives in, last.
var janOrder = []string{
	janInstance, janVolume, janKeyPair, janPlacementGroup, janSecurityGroup,
	janRouteTable, janInternetGateway, janSubnet, janVPC,
}

// janRank is a type's place in janOrder (-1 for a type the janitor does
// not handle).
func janRank(typ string) int { return slices.Index(janOrder, typ) }

// janSort puts rs in deletion order; within a type by run, then id,
// so that a listing reads the same every time.
func janSort(rs []infra.Resource) {
	slices.SortStableFunc(rs, func(a, b infra.Resource) int {
		return cmp.Or(cmp.Compare(janRank(a.Type), janRank(b.Type)), cmp.Compare(a.RunID, b.RunID), cmp.Compare(a.ID, b.ID))
	})
}

// janItem is one resource as a Describe call gave it.
type janItem struct {
	id, zone string
	tags     []types.Tag
	// skip, when set, says why the janitor leaves this one to its VPC (a
	// main route table, a default security group) even if it is tagged.
	skip string
}

// janLister lists one type's resources that match the filters.
type janLister func(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error)

// janListers are the per-type Describe calls. DescribeTags is never used:
// it keeps the tags of deleted resources (cloud.md §9, moto and AWS).
var janListers = map[string]janLister{
	janInstance:        listInstances,
	janVolume:          listVolumes,
	janKeyPair:         listKeyPairs,
	janPlacementGroup:  listPlacementGroups,
	janSecurityGroup:   listSecurityGroups,
	janRouteTable:      listRouteTables,
	janInternetGateway: listInternetGateways,
	janSubnet:          listSubnets,
	janVPC:             listVPCs,
}

// List returns the resources of ybbench in the janitor's region that f
// selects (one run's, else those expired at f.Now; the current time when
// f.Now is zero), in deletion order. Each type is asked with filters on
// ybbench's tags, and every answer is checked again here: a resource
// without ybbench:managed=true is never listed, one whose ybbench tags are
// damaged is left alone with a warning. When some types cannot be listed,
// what the others gave is returned with an error naming them (exit 3);
// placement groups the API does not implement (moto) are only a warning.
func (j *Janitor) List(ctx context.Context, f infra.JanitorFilter) ([]infra.Resource, error) {
	out, damaged, err := j.list(ctx, f)
	for _, d := range damaged {
		j.log.Warn("not listed: its ybbench tags are damaged", "region", j.region, "err", d)
	}
	return out, err
}

// list is List, with the resources whose ybbench tags are damaged (of
// the run, when f names one) returned as errors naming them instead of
// logged: Destroy cannot call a run's teardown verified while one remains.
func (j *Janitor) list(ctx context.Context, f infra.JanitorFilter) (out []infra.Resource, damaged []error, err error) {
	now := f.Now
	if now.IsZero() {
		now = time.Now()
	}
	filters := janTagFilters(f.RunID)
	var errs []error
	for _, typ := range janOrder {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		items, err := janListers[typ](ctx, j.ec2, filters)
		if err != nil {
			if typ == janPlacementGroup && janNotImplemented(err) {
				j.log.Warn("cannot list placement groups: the EC2 endpoint failed DescribePlacementGroups with a server error (moto does not implement it); none is listed or deleted", "region", j.region, "err", err)
				continue
			}
			errs = append(errs, fmt.Errorf("listing %ss: %w", typ, err))
			continue
		}
		found, bad := j.pick(typ, items, f.RunID, now)
		out, damaged = append(out, found...), append(damaged, bad...)
	}
	janSort(out)
	if len(errs) > 0 {
		return out, damaged, exitcode.Wrap(exitcode.Infra, fmt.Errorf("aws janitor, region %s: %w", j.region, errors.Join(errs...)))
	}
	return out, damaged, nil
}

// janTagFilters select ybbench's resources, of one run when runID is set.
func janTagFilters(runID string) []types.Filter {
	fs := []types.Filter{{Name: awssdk.String("tag:" + cloudtag.TagManaged), Values: []string{"true"}}}
	if runID != "" {
		fs = append(fs, types.Filter{Name: awssdk.String("tag:" + cloudtag.TagRunID), Values: []string{runID}})
	}
	return fs
}

// pick keeps the items whose own tags say they are ybbench's and selected:
// of run runID when it is set, else expired at now. An item marked managed
// whose other tags cannot be read comes back as an error naming it, when
// runID is not set or is the run its run-id tag names.
func (j *Janitor) pick(typ string, items []janItem, runID string, now time.Time) (out []infra.Resource, damaged []error) {
	for _, it := range items {
		tags := tagMap(it.tags)
		found, err := cloudtag.ParseAWSTags(tags)
		if errors.Is(err, cloudtag.ErrUnmanaged) {
			continue
		}
		if err != nil {
			if runID == "" || tags[cloudtag.TagRunID] == runID {
				damaged = append(damaged, fmt.Errorf("%s %s: %w", typ, it.id, err))
			}
			continue
		}
		selected := found.Expired(now)
		if runID != "" {
			selected = found.Of(runID)
		}
		if !selected {
			continue
		}
		if it.skip != "" {
			j.log.Info("not listed: "+it.skip, "type", typ, "id", it.id, "run", found.Run)
			continue
		}
		out = append(out, infra.Resource{Type: typ, ID: it.id, Region: j.region, Zone: it.zone, RunID: found.Run, Expires: found.Expires})
	}
	return out, damaged
}

// tagMap turns EC2's tag list into a map.
func tagMap(tags []types.Tag) map[string]string {
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
	}
	return m
}

// janNotImplemented reports whether err is an endpoint's answer that it does
// not implement the call: moto answers DescribePlacementGroups with an
// HTTP 500 page (cloud.md §6.4); AWS implements it.
func janNotImplemented(err error) bool {
	var re *awshttp.ResponseError
	return errors.As(err, &re) && (re.HTTPStatusCode() == http.StatusInternalServerError || re.HTTPStatusCode() == http.StatusNotImplemented)
}

// janFilterWith is filters plus one more.
func janFilterWith(filters []types.Filter, name string, values ...string) []types.Filter {
	return append(slices.Clone(filters), types.Filter{Name: awssdk.String(name), Values: values})
}

// janLiveInstanceStates are the states of an instance not yet terminated.
var janLiveInstanceStates = []string{
	string(types.InstanceStateNamePending), string(types.InstanceStateNameRunning), string(types.InstanceStateNameShuttingDown),
	string(types.InstanceStateNameStopping), string(types.InstanceStateNameStopped),
}

// listInstances lists the instances not yet terminated: a terminated one
// stays visible for about an hour and is gone already.
func listInstances(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	in := &ec2.DescribeInstancesInput{Filters: janFilterWith(filters, "instance-state-name", janLiveInstanceStates...)}
	var out []janItem
	for p := ec2.NewDescribeInstancesPaginator(c, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				if i.State != nil && i.State.Name == types.InstanceStateNameTerminated {
					continue
				}
				it := janItem{id: awssdk.ToString(i.InstanceId), tags: i.Tags}
				if i.Placement != nil {
					it.zone = awssdk.ToString(i.Placement.AvailabilityZone)
				}
				out = append(out, it)
			}
		}
	}
	return out, nil
}

// janLiveVolumeStates are the states of a volume not on its way out.
var janLiveVolumeStates = []string{
	string(types.VolumeStateCreating), string(types.VolumeStateAvailable), string(types.VolumeStateInUse), string(types.VolumeStateError),
}

// listVolumes lists the volumes not being deleted. One attached to an
// instance of the run goes with it when it is delete-on-termination; the
// janitor's DeleteVolume then finds it gone.
func listVolumes(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	in := &ec2.DescribeVolumesInput{Filters: janFilterWith(filters, "status", janLiveVolumeStates...)}
	var out []janItem
	for p := ec2.NewDescribeVolumesPaginator(c, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range page.Volumes {
			if !slices.Contains(janLiveVolumeStates, string(v.State)) {
				continue
			}
			out = append(out, janItem{id: awssdk.ToString(v.VolumeId), zone: awssdk.ToString(v.AvailabilityZone), tags: v.Tags})
		}
	}
	return out, nil
}

// listKeyPairs lists key pairs by name, which DeleteKeyPair takes on AWS
// and moto alike (moto ignores a KeyPairId there).
func listKeyPairs(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	page, err := c.DescribeKeyPairs(ctx, &ec2.DescribeKeyPairsInput{Filters: filters})
	if err != nil {
		return nil, err
	}
	out := make([]janItem, 0, len(page.KeyPairs))
	for _, k := range page.KeyPairs {
		out = append(out, janItem{id: awssdk.ToString(k.KeyName), tags: k.Tags})
	}
	return out, nil
}

// listPlacementGroups lists placement groups by name (what
// DeletePlacementGroup takes).
func listPlacementGroups(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	page, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{Filters: filters})
	if err != nil {
		return nil, err
	}
	out := make([]janItem, 0, len(page.PlacementGroups))
	for _, g := range page.PlacementGroups {
		out = append(out, janItem{id: awssdk.ToString(g.GroupName), tags: g.Tags})
	}
	return out, nil
}

// listSecurityGroups lists security groups; a VPC's default group cannot
// be deleted and goes with its VPC.
func listSecurityGroups(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	var out []janItem
	for p := ec2.NewDescribeSecurityGroupsPaginator(c, &ec2.DescribeSecurityGroupsInput{Filters: filters}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range page.SecurityGroups {
			it := janItem{id: awssdk.ToString(g.GroupId), tags: g.Tags}
			if awssdk.ToString(g.GroupName) == "default" {
				it.skip = "a VPC's default security group, deleted with its VPC"
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// listRouteTables lists route tables; a VPC's main route table cannot be
// deleted and goes with its VPC.
func listRouteTables(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	var out []janItem
	for p := ec2.NewDescribeRouteTablesPaginator(c, &ec2.DescribeRouteTablesInput{Filters: filters}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range page.RouteTables {
			it := janItem{id: awssdk.ToString(t.RouteTableId), tags: t.Tags}
			if janIsMainRouteTable(t) {
				it.skip = "a VPC's main route table, deleted with its VPC"
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// janIsMainRouteTable reports whether t is its VPC's main route table.
func janIsMainRouteTable(t types.RouteTable) bool {
	return slices.ContainsFunc(t.Associations, func(a types.RouteTableAssociation) bool { return awssdk.ToBool(a.Main) })
}

// listInternetGateways lists internet gateways.
func listInternetGateways(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	var out []janItem
	for p := ec2.NewDescribeInternetGatewaysPaginator(c, &ec2.DescribeInternetGatewaysInput{Filters: filters}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range page.InternetGateways {
			out = append(out, janItem{id: awssdk.ToString(g.InternetGatewayId), tags: g.Tags})
		}
	}
	return out, nil
}

// listSubnets lists subnets with their zones.
func listSubnets(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	var out []janItem
	for p := ec2.NewDescribeSubnetsPaginator(c, &ec2.DescribeSubnetsInput{Filters: filters}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range page.Subnets {
			out = append(out, janItem{id: awssdk.ToString(s.SubnetId), zone: awssdk.ToString(s.AvailabilityZone), tags: s.Tags})
		}
	}
	return out, nil
}

// listVPCs lists VPCs.
func listVPCs(ctx context.Context, c janDescriber, filters []types.Filter) ([]janItem, error) {
	var out []janItem
	for p := ec2.NewDescribeVpcsPaginator(c, &ec2.DescribeVpcsInput{Filters: filters}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range page.Vpcs {
			out = append(out, janItem{id: awssdk.ToString(v.VpcId), tags: v.Tags})
		}
	}
	return out, nil
}
