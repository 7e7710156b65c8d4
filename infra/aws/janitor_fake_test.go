package aws

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// janFakeEC2 is an account's EC2 in one region as the janitor sees it, with
// the dependency rules AWS enforces and moto does not (cloud.md §9): a
// security group, subnet or placement group is in use while an instance
// not yet terminated uses it; a route table while it has associations; a
// gateway while attached; a VPC while anything but its defaults is in it.
// It also has the placement groups moto lacks. Describe calls honour the
// filters the janitor sends and fail on any other, so a filter the fake
// does not know cannot pass unseen.
type janFakeEC2 struct {
	mu  sync.Mutex
	res map[string]*janFakeRes
	// refuse makes the next n calls of "Op id" fail with code (n < 0:
	// always), before the fake looks at anything else.
	refuse map[string]*janFakeRefusal
	// pollsToTerminate is how many DescribeInstances calls see a
	// terminated instance still shutting-down.
	pollsToTerminate int
	// placementGroups is the answer to DescribePlacementGroups when it is
	// not nil: moto's HTTP 500, AWS's access denied.
	placementGroups error
	// ignoreFilters makes Describe calls return every resource of the
	// type, as a careless endpoint would: the janitor's own checks must
	// still select.
	ignoreFilters bool
}

type janFakeRefusal struct {
	code string
	n    int
}

// janFakeRes is one resource; the fields used depend on its type.
type janFakeRes struct {
	typ, id, name, zone string
	tags                map[string]string
	// instance: where it is and what it uses; polls counts down to
	// terminated.
	vpc, subnet, group, placement string
	state                         types.InstanceStateName
	polls                         int
	// volume: the instance it is attached to.
	attachedTo string
	// route table: main, and its associations (id → subnet).
	main   bool
	assocs map[string]string
	// internet gateway: the VPC it is attached to; security group: its
	// VPC's default.
	attachedVPC string
	isDefault   bool
}

func newJanFakeEC2() *janFakeEC2 {
	return &janFakeEC2{res: map[string]*janFakeRes{}, refuse: map[string]*janFakeRefusal{}}
}

// add puts a resource in the fake.
func (f *janFakeEC2) add(r *janFakeRes) *janFakeRes {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.typ == janInstance && r.state == "" {
		r.state = types.InstanceStateNameRunning
	}
	f.res[r.id] = r
	return r
}

// has reports whether the resource is there (an instance: not terminated).
func (f *janFakeEC2) has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.res[id]
	return ok && !(r.typ == janInstance && r.state == types.InstanceStateNameTerminated)
}

// refuseWith makes the next n calls of op on id fail with code.
func (f *janFakeEC2) refuseWith(op, id, code string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse[op+" "+id] = &janFakeRefusal{code: code, n: n}
}

func janAPIErr(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// janMotoNotImplemented is what aws-sdk-go-v2 makes of moto's HTTP 500 page.
func janMotoNotImplemented(op string) error {
	return &smithy.OperationError{ServiceID: "EC2", OperationName: op, Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: http.StatusInternalServerError}},
			Err:      errors.New("api error UnknownError: Internal Server Error"),
		},
	}}
}

// refused answers a refusal queued for "op id" (f.mu held).
func (f *janFakeEC2) refused(op, id string) error {
	if r := f.refuse[op+" "+id]; r != nil && r.n != 0 {
		r.n--
		return janAPIErr(r.code, "%s %s refused (fake)", op, id)
	}
	return nil
}

// get returns the resource id of type typ, or the API's not-found error.
func (f *janFakeEC2) get(typ, id string) (*janFakeRes, error) {
	r, ok := f.res[id]
	if ok && r.typ == typ && !(typ == janInstance && r.state == types.InstanceStateNameTerminated) {
		return r, nil
	}
	codes := map[string]string{
		janInstance: "InvalidInstanceID.NotFound", janVolume: "InvalidVolume.NotFound", janPlacementGroup: "InvalidPlacementGroup.Unknown",
		janSecurityGroup: "InvalidGroup.NotFound", janRouteTable: "InvalidRouteTableID.NotFound",
		janInternetGateway: "InvalidInternetGatewayID.NotFound", janSubnet: "InvalidSubnetID.NotFound", janVPC: "InvalidVpcID.NotFound",
	}
	return nil, janAPIErr(codes[typ], "%s %s does not exist", typ, id)
}

// janLive reports whether an instance is using what it refers to.
func janLive(r *janFakeRes) bool {
	return r.typ == janInstance && r.state != types.InstanceStateNameTerminated
}

// inUse reports whether any resource matching pred exists.
func (f *janFakeEC2) inUse(pred func(r *janFakeRes) bool) bool {
	return slices.ContainsFunc(slices.Collect(maps.Values(f.res)), pred)
}

// matching returns the resources of type typ the filters select, by id.
func (f *janFakeEC2) matching(typ string, filters []types.Filter) ([]*janFakeRes, error) {
	var out []*janFakeRes
	for _, id := range slices.Sorted(maps.Keys(f.res)) {
		r := f.res[id]
		if r.typ != typ {
			continue
		}
		ok := true
		for _, fl := range filters {
			name := awssdk.ToString(fl.Name)
			var v string
			switch {
			case strings.HasPrefix(name, "tag:"):
				var has bool
				if v, has = r.tags[strings.TrimPrefix(name, "tag:")]; !has {
					ok = false
					continue
				}
			case name == "instance-state-name" && typ == janInstance:
				v = string(r.state)
			case name == "instance-id" && typ == janInstance:
				v = r.id
			case name == "status" && typ == janVolume:
				v = "available"
				if r.attachedTo != "" {
					v = "in-use"
				}
			default:
				return nil, janAPIErr("InvalidParameterValue", "the fake does not know filter %q for %s", name, typ)
			}
			ok = ok && slices.Contains(fl.Values, v)
		}
		if ok || f.ignoreFilters {
			out = append(out, r)
		}
	}
	return out, nil
}

func janEC2Tags(m map[string]string) []types.Tag {
	var out []types.Tag
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, types.Tag{Key: awssdk.String(k), Value: awssdk.String(m[k])})
	}
	return out
}

func (f *janFakeEC2) DescribeInstances(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(in.InstanceIds) > 0 {
		return nil, janAPIErr("InvalidParameterValue", "the janitor must describe instances by filter")
	}
	rs, err := f.matching(janInstance, in.Filters)
	if err != nil {
		return nil, err
	}
	var res types.Reservation
	for _, r := range rs {
		if r.state == types.InstanceStateNameShuttingDown {
			if r.polls--; r.polls < 0 {
				f.terminated(r)
			}
		}
		res.Instances = append(res.Instances, types.Instance{
			InstanceId: awssdk.String(r.id), State: &types.InstanceState{Name: r.state},
			Placement: &types.Placement{AvailabilityZone: awssdk.String(r.zone)}, Tags: janEC2Tags(r.tags),
		})
	}
	return &ec2.DescribeInstancesOutput{Reservations: []types.Reservation{res}}, nil
}

// terminated ends an instance: its volumes go with it (all are
// delete-on-termination here).
func (f *janFakeEC2) terminated(r *janFakeRes) {
	r.state = types.InstanceStateNameTerminated
	for id, v := range f.res {
		if v.typ == janVolume && v.attachedTo == r.id {
			delete(f.res, id)
		}
	}
}

func (f *janFakeEC2) TerminateInstances(_ context.Context, in *ec2.TerminateInstancesInput, _ ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("TerminateInstances", strings.Join(in.InstanceIds, ",")); err != nil {
		return nil, err
	}
	// AWS terminates none when one id is bad.
	for _, id := range in.InstanceIds {
		if r, ok := f.res[id]; !ok || r.typ != janInstance {
			return nil, janAPIErr("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
		}
	}
	for _, id := range in.InstanceIds {
		r := f.res[id]
		if r.state == types.InstanceStateNameTerminated {
			continue
		}
		r.state, r.polls = types.InstanceStateNameShuttingDown, f.pollsToTerminate
		if r.polls == 0 {
			f.terminated(r)
		}
	}
	return &ec2.TerminateInstancesOutput{}, nil
}

func (f *janFakeEC2) DescribeVolumes(_ context.Context, in *ec2.DescribeVolumesInput, _ ...func(*ec2.Options)) (*ec2.DescribeVolumesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, err := f.matching(janVolume, in.Filters)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeVolumesOutput{}
	for _, r := range rs {
		state := types.VolumeStateAvailable
		if r.attachedTo != "" {
			state = types.VolumeStateInUse
		}
		out.Volumes = append(out.Volumes, types.Volume{VolumeId: awssdk.String(r.id), AvailabilityZone: awssdk.String(r.zone), State: state, Tags: janEC2Tags(r.tags)})
	}
	return out, nil
}

func (f *janFakeEC2) DeleteVolume(_ context.Context, in *ec2.DeleteVolumeInput, _ ...func(*ec2.Options)) (*ec2.DeleteVolumeOutput, error) {
	id := awssdk.ToString(in.VolumeId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteVolume", id); err != nil {
		return nil, err
	}
	r, err := f.get(janVolume, id)
	if err != nil {
		return nil, err
	}
	if r.attachedTo != "" {
		return nil, janAPIErr(janCodeVolumeInUse, "Volume %s is currently attached to %s", id, r.attachedTo)
	}
	delete(f.res, id)
	return &ec2.DeleteVolumeOutput{}, nil
}

func (f *janFakeEC2) DescribeKeyPairs(_ context.Context, in *ec2.DescribeKeyPairsInput, _ ...func(*ec2.Options)) (*ec2.DescribeKeyPairsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, err := f.matching(janKeyPair, in.Filters)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeKeyPairsOutput{}
	for _, r := range rs {
		out.KeyPairs = append(out.KeyPairs, types.KeyPairInfo{KeyName: awssdk.String(r.id), KeyPairId: awssdk.String("key-" + r.id), Tags: janEC2Tags(r.tags)})
	}
	return out, nil
}

// DeleteKeyPair deletes by name and, as AWS does, answers success for a
// name it does not have.
func (f *janFakeEC2) DeleteKeyPair(_ context.Context, in *ec2.DeleteKeyPairInput, _ ...func(*ec2.Options)) (*ec2.DeleteKeyPairOutput, error) {
	id := awssdk.ToString(in.KeyName)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteKeyPair", id); err != nil {
		return nil, err
	}
	if r, ok := f.res[id]; ok && r.typ == janKeyPair {
		delete(f.res, id)
	}
	return &ec2.DeleteKeyPairOutput{}, nil
}

func (f *janFakeEC2) DescribePlacementGroups(_ context.Context, in *ec2.DescribePlacementGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.placementGroups != nil {
		return nil, f.placementGroups
	}
	rs, err := f.matching(janPlacementGroup, in.Filters)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribePlacementGroupsOutput{}
	for _, r := range rs {
		out.PlacementGroups = append(out.PlacementGroups, types.PlacementGroup{GroupName: awssdk.String(r.id), Strategy: types.PlacementStrategyCluster, Tags: janEC2Tags(r.tags)})
	}
	return out, nil
}

func (f *janFakeEC2) DeletePlacementGroup(_ context.Context, in *ec2.DeletePlacementGroupInput, _ ...func(*ec2.Options)) (*ec2.DeletePlacementGroupOutput, error) {
	id := awssdk.ToString(in.GroupName)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeletePlacementGroup", id); err != nil {
		return nil, err
	}
	if _, err := f.get(janPlacementGroup, id); err != nil {
		return nil, err
	}
	if f.inUse(func(r *janFakeRes) bool { return janLive(r) && r.placement == id }) {
		return nil, janAPIErr(janCodePlacementGroupInUse, "The placement group '%s' is in use", id)
	}
	delete(f.res, id)
	return &ec2.DeletePlacementGroupOutput{}, nil
}

func (f *janFakeEC2) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, err := f.matching(janSecurityGroup, in.Filters)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeSecurityGroupsOutput{}
	for _, r := range rs {
		out.SecurityGroups = append(out.SecurityGroups, types.SecurityGroup{GroupId: awssdk.String(r.id), GroupName: awssdk.String(r.name), VpcId: awssdk.String(r.vpc), Tags: janEC2Tags(r.tags)})
	}
	return out, nil
}

func (f *janFakeEC2) DeleteSecurityGroup(_ context.Context, in *ec2.DeleteSecurityGroupInput, _ ...func(*ec2.Options)) (*ec2.DeleteSecurityGroupOutput, error) {
	id := awssdk.ToString(in.GroupId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteSecurityGroup", id); err != nil {
		return nil, err
	}
	r, err := f.get(janSecurityGroup, id)
	if err != nil {
		return nil, err
	}
	if r.isDefault {
		return nil, janAPIErr("CannotDelete", "the default security group cannot be deleted")
	}
	if f.inUse(func(r *janFakeRes) bool { return janLive(r) && r.group == id }) {
		return nil, janAPIErr(janCodeDependencyViolation, "resource %s has a dependent object", id)
	}
	delete(f.res, id)
	return &ec2.DeleteSecurityGroupOutput{}, nil
}

func (f *janFakeEC2) DescribeRouteTables(_ context.Context, in *ec2.DescribeRouteTablesInput, _ ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rs []*janFakeRes
	if len(in.RouteTableIds) > 0 {
		for _, id := range in.RouteTableIds {
			r, err := f.get(janRouteTable, id)
			if err != nil {
				return nil, err
			}
			rs = append(rs, r)
		}
	} else {
		var err error
		if rs, err = f.matching(janRouteTable, in.Filters); err != nil {
			return nil, err
		}
	}
	out := &ec2.DescribeRouteTablesOutput{}
	for _, r := range rs {
		t := types.RouteTable{RouteTableId: awssdk.String(r.id), VpcId: awssdk.String(r.vpc), Tags: janEC2Tags(r.tags)}
		if r.main {
			t.Associations = append(t.Associations, types.RouteTableAssociation{Main: awssdk.Bool(true), RouteTableAssociationId: awssdk.String("rtbassoc-main-" + r.id)})
		}
		for _, a := range slices.Sorted(maps.Keys(r.assocs)) {
			t.Associations = append(t.Associations, types.RouteTableAssociation{Main: awssdk.Bool(false), RouteTableAssociationId: awssdk.String(a), SubnetId: awssdk.String(r.assocs[a])})
		}
		out.RouteTables = append(out.RouteTables, t)
	}
	return out, nil
}

func (f *janFakeEC2) DisassociateRouteTable(_ context.Context, in *ec2.DisassociateRouteTableInput, _ ...func(*ec2.Options)) (*ec2.DisassociateRouteTableOutput, error) {
	id := awssdk.ToString(in.AssociationId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DisassociateRouteTable", id); err != nil {
		return nil, err
	}
	for _, r := range f.res {
		if _, ok := r.assocs[id]; ok {
			delete(r.assocs, id)
			return &ec2.DisassociateRouteTableOutput{}, nil
		}
	}
	return nil, janAPIErr("InvalidAssociationID.NotFound", "Association ID '%s' not found", id)
}

func (f *janFakeEC2) DeleteRouteTable(_ context.Context, in *ec2.DeleteRouteTableInput, _ ...func(*ec2.Options)) (*ec2.DeleteRouteTableOutput, error) {
	id := awssdk.ToString(in.RouteTableId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteRouteTable", id); err != nil {
		return nil, err
	}
	r, err := f.get(janRouteTable, id)
	if err != nil {
		return nil, err
	}
	if r.main || len(r.assocs) > 0 {
		return nil, janAPIErr(janCodeDependencyViolation, "The routeTable '%s' has dependencies and cannot be deleted", id)
	}
	delete(f.res, id)
	return &ec2.DeleteRouteTableOutput{}, nil
}

func (f *janFakeEC2) DescribeInternetGateways(_ context.Context, in *ec2.DescribeInternetGatewaysInput, _ ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rs []*janFakeRes
	if len(in.InternetGatewayIds) > 0 {
		for _, id := range in.InternetGatewayIds {
			r, err := f.get(janInternetGateway, id)
			if err != nil {
				return nil, err
			}
			rs = append(rs, r)
		}
	} else {
		var err error
		if rs, err = f.matching(janInternetGateway, in.Filters); err != nil {
			return nil, err
		}
	}
	out := &ec2.DescribeInternetGatewaysOutput{}
	for _, r := range rs {
		g := types.InternetGateway{InternetGatewayId: awssdk.String(r.id), Tags: janEC2Tags(r.tags)}
		if r.attachedVPC != "" {
			g.Attachments = []types.InternetGatewayAttachment{{VpcId: awssdk.String(r.attachedVPC), State: types.AttachmentStatusAttached}}
		}
		out.InternetGateways = append(out.InternetGateways, g)
	}
	return out, nil
}

func (f *janFakeEC2) DetachInternetGateway(_ context.Context, in *ec2.DetachInternetGatewayInput, _ ...func(*ec2.Options)) (*ec2.DetachInternetGatewayOutput, error) {
	id := awssdk.ToString(in.InternetGatewayId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DetachInternetGateway", id); err != nil {
		return nil, err
	}
	r, err := f.get(janInternetGateway, id)
	if err != nil {
		return nil, err
	}
	if r.attachedVPC == "" || r.attachedVPC != awssdk.ToString(in.VpcId) {
		return nil, janAPIErr("Gateway.NotAttached", "%s is not attached to %s", id, awssdk.ToString(in.VpcId))
	}
	r.attachedVPC = ""
	return &ec2.DetachInternetGatewayOutput{}, nil
}

func (f *janFakeEC2) DeleteInternetGateway(_ context.Context, in *ec2.DeleteInternetGatewayInput, _ ...func(*ec2.Options)) (*ec2.DeleteInternetGatewayOutput, error) {
	id := awssdk.ToString(in.InternetGatewayId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteInternetGateway", id); err != nil {
		return nil, err
	}
	r, err := f.get(janInternetGateway, id)
	if err != nil {
		return nil, err
	}
	if r.attachedVPC != "" {
		return nil, janAPIErr(janCodeDependencyViolation, "%s is being utilized by %s", id, r.attachedVPC)
	}
	delete(f.res, id)
	return &ec2.DeleteInternetGatewayOutput{}, nil
}

func (f *janFakeEC2) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, err := f.matching(janSubnet, in.Filters)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeSubnetsOutput{}
	for _, r := range rs {
		out.Subnets = append(out.Subnets, types.Subnet{SubnetId: awssdk.String(r.id), VpcId: awssdk.String(r.vpc), AvailabilityZone: awssdk.String(r.zone), Tags: janEC2Tags(r.tags)})
	}
	return out, nil
}

func (f *janFakeEC2) DeleteSubnet(_ context.Context, in *ec2.DeleteSubnetInput, _ ...func(*ec2.Options)) (*ec2.DeleteSubnetOutput, error) {
	id := awssdk.ToString(in.SubnetId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteSubnet", id); err != nil {
		return nil, err
	}
	if _, err := f.get(janSubnet, id); err != nil {
		return nil, err
	}
	if f.inUse(func(r *janFakeRes) bool { return janLive(r) && r.subnet == id }) {
		return nil, janAPIErr(janCodeDependencyViolation, "The subnet '%s' has dependencies and cannot be deleted", id)
	}
	delete(f.res, id)
	return &ec2.DeleteSubnetOutput{}, nil
}

func (f *janFakeEC2) DescribeVpcs(_ context.Context, in *ec2.DescribeVpcsInput, _ ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, err := f.matching(janVPC, in.Filters)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeVpcsOutput{}
	for _, r := range rs {
		out.Vpcs = append(out.Vpcs, types.Vpc{VpcId: awssdk.String(r.id), Tags: janEC2Tags(r.tags)})
	}
	return out, nil
}

// DeleteVpc refuses while anything but the VPC's own defaults (default
// security group, main route table) is in it or attached to it; those go
// with it.
func (f *janFakeEC2) DeleteVpc(_ context.Context, in *ec2.DeleteVpcInput, _ ...func(*ec2.Options)) (*ec2.DeleteVpcOutput, error) {
	id := awssdk.ToString(in.VpcId)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused("DeleteVpc", id); err != nil {
		return nil, err
	}
	if _, err := f.get(janVPC, id); err != nil {
		return nil, err
	}
	if f.inUse(func(r *janFakeRes) bool {
		switch r.typ {
		case janInstance:
			return janLive(r) && r.vpc == id
		case janSecurityGroup:
			return r.vpc == id && !r.isDefault
		case janRouteTable:
			return r.vpc == id && !r.main
		case janSubnet:
			return r.vpc == id
		case janInternetGateway:
			return r.attachedVPC == id
		}
		return false
	}) {
		return nil, janAPIErr(janCodeDependencyViolation, "The vpc '%s' has dependencies and cannot be deleted", id)
	}
	for rid, r := range f.res {
		if r.vpc == id && (r.isDefault || r.main) {
			delete(f.res, rid)
		}
	}
	delete(f.res, id)
	return &ec2.DeleteVpcOutput{}, nil
}
