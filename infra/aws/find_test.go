package aws

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
)

// taggedEC2 answers each Describe call with one resource of its type,
// tagged as given, and records the filters it was asked with. Calls the
// interface may gain are left unimplemented (nil).
type taggedEC2 struct {
	ec2API
	tags    []types.Tag
	filters [][]types.Filter
	failVPC bool
}

func (f *taggedEC2) seen(fl []types.Filter) { f.filters = append(f.filters, fl) }

func (f *taggedEC2) DescribeInstances(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	f.seen(in.Filters)
	running := types.Instance{InstanceId: aws.String("i-1"), Tags: f.tags, State: &types.InstanceState{Name: types.InstanceStateNameRunning},
		Placement: &types.Placement{AvailabilityZone: aws.String("us-west-2a")}}
	stopping := types.Instance{InstanceId: aws.String("i-2"), Tags: f.tags, State: &types.InstanceState{Name: types.InstanceStateNameShuttingDown}}
	gone := types.Instance{InstanceId: aws.String("i-3"), Tags: f.tags, State: &types.InstanceState{Name: types.InstanceStateNameTerminated}}
	return &ec2.DescribeInstancesOutput{Reservations: []types.Reservation{{Instances: []types.Instance{running, stopping, gone}}}}, nil
}

func (f *taggedEC2) DescribeVolumes(_ context.Context, in *ec2.DescribeVolumesInput, _ ...func(*ec2.Options)) (*ec2.DescribeVolumesOutput, error) {
	f.seen(in.Filters)
	return &ec2.DescribeVolumesOutput{Volumes: []types.Volume{{VolumeId: aws.String("vol-1"), Tags: f.tags, AvailabilityZone: aws.String("us-west-2a")}}}, nil
}

func (f *taggedEC2) DescribeKeyPairs(_ context.Context, in *ec2.DescribeKeyPairsInput, _ ...func(*ec2.Options)) (*ec2.DescribeKeyPairsOutput, error) {
	f.seen(in.Filters)
	return &ec2.DescribeKeyPairsOutput{KeyPairs: []types.KeyPairInfo{{KeyPairId: aws.String("key-1"), Tags: f.tags}}}, nil
}

func (f *taggedEC2) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	f.seen(in.Filters)
	return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: []types.SecurityGroup{{GroupId: aws.String("sg-1"), Tags: f.tags}}}, nil
}

func (f *taggedEC2) DescribeRouteTables(_ context.Context, in *ec2.DescribeRouteTablesInput, _ ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	f.seen(in.Filters)
	return &ec2.DescribeRouteTablesOutput{RouteTables: []types.RouteTable{{RouteTableId: aws.String("rtb-1"), Tags: f.tags}}}, nil
}

func (f *taggedEC2) DescribeInternetGateways(_ context.Context, in *ec2.DescribeInternetGatewaysInput, _ ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error) {
	f.seen(in.Filters)
	return &ec2.DescribeInternetGatewaysOutput{InternetGateways: []types.InternetGateway{{InternetGatewayId: aws.String("igw-1"), Tags: f.tags}}}, nil
}

func (f *taggedEC2) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	f.seen(in.Filters)
	return &ec2.DescribeSubnetsOutput{Subnets: []types.Subnet{{SubnetId: aws.String("subnet-1"), Tags: f.tags, AvailabilityZone: aws.String("us-west-2a")}}}, nil
}

func (f *taggedEC2) DescribeVpcs(_ context.Context, in *ec2.DescribeVpcsInput, _ ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	f.seen(in.Filters)
	if f.failVPC {
		return nil, errors.New("throttled")
	}
	return &ec2.DescribeVpcsOutput{Vpcs: []types.Vpc{{VpcId: aws.String("vpc-1"), Tags: f.tags}}}, nil
}

func tags(m map[string]string) []types.Tag {
	var out []types.Tag
	for k, v := range m {
		out = append(out, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	return out
}

// TestFindTagged: every type is asked with the filters given, the
// resources come in deletion order with their run and expiry, and a
// terminated instance is left out.
func TestFindTagged(t *testing.T) {
	exp := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	f := &taggedEC2{tags: tags(map[string]string{"ybbench:run-id": "r1", "ybbench:managed": "true",
		"ybbench:expires": exp.Format(time.RFC3339), "Name": "ybbench-r1"})}
	got, err := findTagged(context.Background(), f, runFilters("r1"))
	if err != nil {
		t.Fatal(err)
	}
	want := []infra.Resource{
		{Type: TypeInstance, ID: "i-1", Zone: "us-west-2a", RunID: "r1", Expires: exp},
		{Type: TypeInstance, ID: "i-2", RunID: "r1", Expires: exp},
		{Type: TypeVolume, ID: "vol-1", Zone: "us-west-2a", RunID: "r1", Expires: exp},
		{Type: TypeKeyPair, ID: "key-1", RunID: "r1", Expires: exp},
		{Type: TypeSecurityGroup, ID: "sg-1", RunID: "r1", Expires: exp},
		{Type: TypeRouteTable, ID: "rtb-1", RunID: "r1", Expires: exp},
		{Type: TypeInternetGateway, ID: "igw-1", RunID: "r1", Expires: exp},
		{Type: TypeSubnet, ID: "subnet-1", Zone: "us-west-2a", RunID: "r1", Expires: exp},
		{Type: TypeVPC, ID: "vpc-1", RunID: "r1", Expires: exp},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("found:\n got %v\nwant %v", got, want)
	}
	if len(f.filters) != 8 {
		t.Errorf("%d Describe calls, want 8", len(f.filters))
	}
	for _, fl := range f.filters {
		if !reflect.DeepEqual(fl, runFilters("r1")) {
			t.Errorf("asked with filters %v", fl)
		}
	}
}

// TestFindTaggedUnmanagedAndBroken: resources without the managed mark
// are never listed; managed ones whose tags do not parse are named in the
// error, as is a Describe call that failed, and the rest is returned.
func TestFindTaggedUnmanagedAndBroken(t *testing.T) {
	f := &taggedEC2{tags: tags(map[string]string{"ybbench:run-id": "r1", "ybbench:expires": "2026-12-02T00:00:00Z"})}
	got, err := findTagged(context.Background(), f, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("unmanaged: %v %v", got, err)
	}

	f = &taggedEC2{tags: tags(map[string]string{"ybbench:run-id": "r1", "ybbench:managed": "true", "ybbench:expires": "tomorrow"}), failVPC: true}
	got, err = findTagged(context.Background(), f, nil)
	if len(got) != 0 || err == nil {
		t.Fatalf("broken tags: %v %v", got, err)
	}
	for _, want := range []string{`instance i-1: ybbench:expires: "tomorrow" is not an RFC 3339 time`, "listing vpcs: throttled"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
}
