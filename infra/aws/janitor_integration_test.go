//go:build integration

package aws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/internal/testenv"
)

// janMotoConfig is an AWS configuration for the moto server in region.
func janMotoConfig(t *testing.T, url, region string) awssdk.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(region), config.WithBaseEndpoint(url),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("testing", "testing", "")))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// janMoto makes resources in one region of the moto server with the SDK,
// and says, by its own Describe calls, whether they are still there.
type janMoto struct {
	t      *testing.T
	c      *ec2.Client
	region string
	image  string
	made   []infra.Resource
}

func newJanMoto(t *testing.T, cfg awssdk.Config) *janMoto {
	t.Helper()
	c := ec2.NewFromConfig(cfg)
	// One of moto's default images, found by a narrow filter: the whole
	// list takes seconds to describe.
	imgs, err := c.DescribeImages(context.Background(), &ec2.DescribeImagesInput{Owners: []string{"amazon"},
		Filters: []types.Filter{{Name: awssdk.String("name"), Values: []string{"al2023-ami-2023*-x86_64"}}}})
	if err != nil || len(imgs.Images) == 0 {
		t.Fatalf("moto's images: %v (%d)", err, len(imgs.Images))
	}
	return &janMoto{t: t, c: c, region: cfg.Region, image: awssdk.ToString(imgs.Images[0].ImageId)}
}

func janSpec(typ types.ResourceType, tags map[string]string) []types.TagSpecification {
	return []types.TagSpecification{{ResourceType: typ, Tags: janEC2Tags(tags)}}
}

// note records a made resource as the janitor would list it (run and
// expiry from its tags, when they are ybbench's) and returns its id.
func (m *janMoto) note(typ types.ResourceType, id, zone string, tags map[string]string) string {
	m.t.Helper()
	if id == "" {
		m.t.Fatalf("made a %s without an id", typ)
	}
	r := infra.Resource{Type: string(typ), ID: id, Region: m.region, Zone: zone, RunID: tags[cloudtag.TagRunID]}
	if f, err := cloudtag.ParseAWSTags(tags); err == nil {
		r.Expires = f.Expires
	}
	m.made = append(m.made, r)
	return id
}

// network makes a VPC with a subnet in zone a, a security group, and, when
// routed, an attached internet gateway and a route table associated with
// the subnet. It returns the subnet and the security group.
func (m *janMoto) network(ctx context.Context, tags map[string]string, cidr string, routed bool) (subnet, group string) {
	m.t.Helper()
	zone := m.region + "a"
	vpc, err := m.c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String(cidr), TagSpecifications: janSpec(types.ResourceTypeVpc, tags)})
	if err != nil {
		m.t.Fatal(err)
	}
	vpcID := m.note(types.ResourceTypeVpc, awssdk.ToString(vpc.Vpc.VpcId), "", tags)
	sn, err := m.c.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: &vpcID, CidrBlock: awssdk.String(strings.Replace(cidr, ".0.0/16", ".1.0/24", 1)),
		AvailabilityZone: &zone, TagSpecifications: janSpec(types.ResourceTypeSubnet, tags)})
	if err != nil {
		m.t.Fatal(err)
	}
	subnet = m.note(types.ResourceTypeSubnet, awssdk.ToString(sn.Subnet.SubnetId), zone, tags)
	name := "ybbench-" + subnet
	groupID := ""
	sg, err := m.c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: &vpcID, GroupName: awssdk.String(name),
		Description: awssdk.String("janitor test"), TagSpecifications: janSpec(types.ResourceTypeSecurityGroup, tags)})
	var apiErr smithy.APIError
	switch {
	case err == nil:
		groupID = awssdk.ToString(sg.GroupId)
	case errors.As(err, &apiErr) && apiErr.ErrorCode() == "InvalidGroup.Duplicate":
		// The SDK retried a create whose answer was lost on a busy moto
		// (seen once): the group the first attempt made is this one.
		out, derr := m.c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
			{Name: awssdk.String("vpc-id"), Values: []string{vpcID}}, {Name: awssdk.String("group-name"), Values: []string{name}}}})
		if derr != nil || len(out.SecurityGroups) != 1 {
			m.t.Fatalf("%v; looking it up: %v", err, derr)
		}
		groupID = awssdk.ToString(out.SecurityGroups[0].GroupId)
	default:
		m.t.Fatal(err)
	}
	group = m.note(types.ResourceTypeSecurityGroup, groupID, "", tags)
	if !routed {
		return subnet, group
	}
	igw, err := m.c.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{TagSpecifications: janSpec(types.ResourceTypeInternetGateway, tags)})
	if err != nil {
		m.t.Fatal(err)
	}
	igwID := m.note(types.ResourceTypeInternetGateway, awssdk.ToString(igw.InternetGateway.InternetGatewayId), "", tags)
	if _, err := m.c.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: &igwID, VpcId: &vpcID}); err != nil {
		m.t.Fatal(err)
	}
	rt, err := m.c.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: &vpcID, TagSpecifications: janSpec(types.ResourceTypeRouteTable, tags)})
	if err != nil {
		m.t.Fatal(err)
	}
	rtID := m.note(types.ResourceTypeRouteTable, awssdk.ToString(rt.RouteTable.RouteTableId), "", tags)
	if _, err := m.c.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: &rtID, DestinationCidrBlock: awssdk.String("0.0.0.0/0"), GatewayId: &igwID}); err != nil {
		m.t.Fatal(err)
	}
	if _, err := m.c.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: &rtID, SubnetId: &subnet}); err != nil {
		m.t.Fatal(err)
	}
	return subnet, group
}

// keyPair makes a key pair named name.
func (m *janMoto) keyPair(ctx context.Context, name string, tags map[string]string) {
	m.t.Helper()
	if _, err := m.c.CreateKeyPair(ctx, &ec2.CreateKeyPairInput{KeyName: &name, TagSpecifications: janSpec(types.ResourceTypeKeyPair, tags)}); err != nil {
		m.t.Fatal(err)
	}
	m.note(types.ResourceTypeKeyPair, name, "", tags)
}

// instances starts n instances in the subnet and group, terminated by a
// shutdown as the module's are.
func (m *janMoto) instances(ctx context.Context, n int32, subnet, group string, tags map[string]string) {
	m.t.Helper()
	out, err := m.c.RunInstances(ctx, &ec2.RunInstancesInput{ImageId: &m.image, InstanceType: types.InstanceTypeT3Micro, MinCount: &n, MaxCount: &n,
		SubnetId: &subnet, SecurityGroupIds: []string{group}, InstanceInitiatedShutdownBehavior: types.ShutdownBehaviorTerminate,
		TagSpecifications: janSpec(types.ResourceTypeInstance, tags)})
	if err != nil {
		m.t.Fatal(err)
	}
	for _, i := range out.Instances {
		m.note(types.ResourceTypeInstance, awssdk.ToString(i.InstanceId), awssdk.ToString(i.Placement.AvailabilityZone), tags)
	}
}

// volume makes a detached volume in zone a.
func (m *janMoto) volume(ctx context.Context, tags map[string]string) {
	m.t.Helper()
	zone := m.region + "a"
	v, err := m.c.CreateVolume(ctx, &ec2.CreateVolumeInput{AvailabilityZone: &zone, Size: awssdk.Int32(1), VolumeType: types.VolumeTypeGp3,
		TagSpecifications: janSpec(types.ResourceTypeVolume, tags)})
	if err != nil {
		m.t.Fatal(err)
	}
	m.note(types.ResourceTypeVolume, awssdk.ToString(v.VolumeId), zone, tags)
}

// exists asks moto, by a Describe call of the resource's own type and id,
// whether it is still there (an instance: not terminated).
func (m *janMoto) exists(ctx context.Context, r infra.Resource) bool {
	m.t.Helper()
	var n int
	var err error
	switch r.Type {
	case janInstance:
		var out *ec2.DescribeInstancesOutput
		if out, err = m.c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{r.ID}}); err == nil {
			for _, res := range out.Reservations {
				for _, i := range res.Instances {
					if i.State.Name != types.InstanceStateNameTerminated {
						n++
					}
				}
			}
		}
	case janVolume:
		var out *ec2.DescribeVolumesOutput
		if out, err = m.c.DescribeVolumes(ctx, &ec2.DescribeVolumesInput{VolumeIds: []string{r.ID}}); err == nil {
			n = len(out.Volumes)
		}
	case janKeyPair:
		var out *ec2.DescribeKeyPairsOutput
		if out, err = m.c.DescribeKeyPairs(ctx, &ec2.DescribeKeyPairsInput{KeyNames: []string{r.ID}}); err == nil {
			n = len(out.KeyPairs)
		}
	case janSecurityGroup:
		var out *ec2.DescribeSecurityGroupsOutput
		if out, err = m.c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{r.ID}}); err == nil {
			n = len(out.SecurityGroups)
		}
	case janRouteTable:
		var out *ec2.DescribeRouteTablesOutput
		if out, err = m.c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{r.ID}}); err == nil {
			n = len(out.RouteTables)
		}
	case janInternetGateway:
		var out *ec2.DescribeInternetGatewaysOutput
		if out, err = m.c.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{InternetGatewayIds: []string{r.ID}}); err == nil {
			n = len(out.InternetGateways)
		}
	case janSubnet:
		var out *ec2.DescribeSubnetsOutput
		if out, err = m.c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{r.ID}}); err == nil {
			n = len(out.Subnets)
		}
	case janVPC:
		var out *ec2.DescribeVpcsOutput
		if out, err = m.c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{r.ID}}); err == nil {
			n = len(out.Vpcs)
		}
	default:
		m.t.Fatalf("no check for %s", r.Type)
	}
	if janIsGone(err) {
		return false
	}
	if err != nil {
		m.t.Fatalf("describing %s: %v", r, err)
	}
	return n > 0
}

// TestIntegrationJanitorOnMoto: a fake account holds an expired run of
// ours (VPC, subnet, gateway, route table, security group, key pair,
// three instances, a spare volume), a live run of ours, expired resources
// that are not ours (no ybbench:managed, or managed=false), and the expired
// run's resources in another region. The dry run lists exactly the first
// set and deletes nothing; --run lists the live run; Delete removes
// exactly the first set, in dependency order; moto's own Describe calls
// say what is left.
func TestIntegrationJanitorOnMoto(t *testing.T) {
	moto := testenv.MotoFor(t)
	ctx := context.Background()
	westCfg, eastCfg := janMotoConfig(t, moto.URL, "us-west-2"), janMotoConfig(t, moto.URL, "us-east-1")
	west, east := newJanMoto(t, westCfg), newJanMoto(t, eastCfg)
	now := time.Now().UTC().Truncate(time.Second)
	expiredTags := janRunTags(t, "r-expired", now.Add(-time.Hour))

	subnet, group := west.network(ctx, expiredTags, "10.1.0.0/16", true)
	west.keyPair(ctx, "ybbench-r-expired", expiredTags)
	west.instances(ctx, 3, subnet, group, expiredTags)
	west.volume(ctx, expiredTags)
	expired := west.made
	west.made = nil

	liveTags := janRunTags(t, "r-live", now.Add(2*time.Hour))
	subnet, group = west.network(ctx, liveTags, "10.2.0.0/16", false)
	west.keyPair(ctx, "ybbench-r-live", liveTags)
	west.instances(ctx, 1, subnet, group, liveTags)
	live := west.made
	west.made = nil

	noMark := janRunTags(t, "r-nomark", now.Add(-time.Hour))
	delete(noMark, cloudtag.TagManaged)
	notOurs := janRunTags(t, "r-notours", now.Add(-time.Hour))
	notOurs[cloudtag.TagManaged] = "false"
	for i, tags := range []map[string]string{noMark, notOurs} {
		subnet, group = west.network(ctx, tags, fmt.Sprintf("10.%d.0.0/16", 3+i), true)
		west.keyPair(ctx, "other-"+tags[cloudtag.TagRunID], tags)
		west.instances(ctx, 1, subnet, group, tags)
		west.volume(ctx, tags)
	}
	others := west.made

	subnet, group = east.network(ctx, expiredTags, "10.1.0.0/16", true)
	east.keyPair(ctx, "ybbench-r-expired", expiredTags)
	east.instances(ctx, 1, subnet, group, expiredTags)

	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	defer func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	}()
	j, err := NewJanitor(ctx, "us-west-2", JanitorConfig(westCfg), JanitorLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.List(ctx, infra.JanitorFilter{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	janSort(expired)
	janSameResources(t, "dry run", got, expired)
	if !strings.Contains(logs.String(), "cannot list placement groups") {
		t.Errorf("moto's missing placement groups were not warned about:\n%s", logs.String())
	}
	for _, m := range []*janMoto{west, east} {
		for _, r := range append(append(append([]infra.Resource(nil), expired...), live...), m.made...) {
			if r.Region == m.region && !m.exists(ctx, r) {
				t.Errorf("after the dry run, %s is gone", r)
			}
		}
	}

	runOnly, err := j.List(ctx, infra.JanitorFilter{RunID: "r-live", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	janSort(live)
	janSameResources(t, "--run r-live", runOnly, live)

	rec := &janRecorder{janitorEC2: ec2.NewFromConfig(westCfg)}
	jd, err := NewJanitor(ctx, "us-west-2", withJanitorEC2(rec), JanitorLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	left, err := jd.Delete(ctx, got)
	if err != nil || left != nil {
		t.Fatalf("left %v: %v", left, err)
	}
	// moto has no placement groups, so none is deleted here.
	order := []string{"TerminateInstances", "DeleteVolume", "DeleteKeyPair", "DeleteSecurityGroup", "DisassociateRouteTable",
		"DeleteRouteTable", "DetachInternetGateway", "DeleteInternetGateway", "DeleteSubnet", "DeleteVpc"}
	if err := janOpsInOrder(rec.log(), order...); err != nil {
		t.Error(err)
	}
	for _, r := range expired {
		if west.exists(ctx, r) {
			t.Errorf("after Delete, %s is still there", r)
		}
	}
	for _, r := range append(live, others...) {
		if !west.exists(ctx, r) {
			t.Errorf("after Delete, %s is gone", r)
		}
	}
	for _, r := range east.made {
		if !east.exists(ctx, r) {
			t.Errorf("after Delete, %s (us-east-1) is gone", r)
		}
	}
	if again, err := j.List(ctx, infra.JanitorFilter{Now: now}); err != nil || len(again) != 0 {
		t.Errorf("listed after Delete: %v, %v", again, err)
	}
}
