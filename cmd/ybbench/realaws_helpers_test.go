//go:build integration || e2e

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// realAWS is the real AWS provider, built from its source by the test
// environment, aimed at the test environment's moto server: this
// process's environment (and so every ybbench the test runs) has moto's
// endpoint and static credentials for the SDK and the provider alike,
// the test environment's terraform, and the CLI configuration whose
// dev_overrides install the provider build. Nothing else is changed:
// the module, the variables and the state are ybbench's own.
// testSSHCIDR is the address the runs' SSH rule admits (TEST-NET-3).
const testSSHCIDR = "203.0.113.7/32"

type realAWS struct {
	ec     *ec2.Client
	moto   *testenv.Moto
	builds *testenv.ProviderBuilds
}

func realAWSEnv(t *testing.T) *realAWS {
	t.Helper()
	b := testenv.ProviderBuildsFor(t)
	m := testenv.MotoFor(t)
	ec := aimAtMoto(t, m)
	t.Setenv("TF_CLI_CONFIG_FILE", b.CLIConfig)
	return &realAWS{ec: ec, moto: m, builds: b}
}

// aimAtMoto points every AWS call of this process, and of the ybbench and
// Terraform it starts, at moto with static credentials and no shared
// files, profile or instance metadata; it sets the test environment's
// terraform, and returns an EC2 client of moto's for the test's own look.
func aimAtMoto(t *testing.T, m *testenv.Moto) *ec2.Client {
	t.Helper()
	testenv.AimAtMoto(t, m)
	t.Setenv("YBBENCH_TERRAFORM", testenv.TerraformFor(t))
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"), config.WithBaseEndpoint(m.URL),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("testing", "testing", "")))
	if err != nil {
		t.Fatal(err)
	}
	return ec2.NewFromConfig(cfg)
}

// canonicalAMI is one of moto's Canonical images, as a user would name
// it with --image.
func (r *realAWS) canonicalAMI(t *testing.T) string {
	t.Helper()
	imgs, err := r.ec.DescribeImages(context.Background(), &ec2.DescribeImagesInput{Owners: []string{"099720109477"},
		Filters: []types.Filter{{Name: aws.String("architecture"), Values: []string{"x86_64"}}}})
	if err != nil || len(imgs.Images) == 0 {
		t.Fatalf("moto's Canonical images: %v", err)
	}
	return aws.ToString(imgs.Images[0].ImageId)
}

// motoRun is what moto holds of one run, found by the run's id tag (and,
// for what carries no tag of its own, by the run's subnet). Placement
// groups are not among them: moto 5.2.5 implements neither
// CreatePlacementGroup nor DescribePlacementGroups, so the module's
// placement_group stays off (its default) here and each instance's
// placement is checked instead.
type motoRun struct {
	instances []types.Instance // not terminated
	volumes   []types.Volume
	groups    []types.SecurityGroup
	rules     []types.SecurityGroupRule
	keys      []types.KeyPairInfo
	vpcs      []types.Vpc
	subnets   []types.Subnet
	enis      []types.NetworkInterface
}

func (r *realAWS) run(t *testing.T, id string, subnetIDs ...string) motoRun {
	t.Helper()
	ctx := context.Background()
	byRun := []types.Filter{{Name: aws.String("tag:ybbench:run-id"), Values: []string{id}}}
	var m motoRun
	inst, err := r.ec.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: append(byRun,
		types.Filter{Name: aws.String("instance-state-name"), Values: []string{"pending", "running", "stopping", "stopped", "shutting-down"}})})
	must(t, err)
	for _, res := range inst.Reservations {
		m.instances = append(m.instances, res.Instances...)
	}
	vols, err := r.ec.DescribeVolumes(ctx, &ec2.DescribeVolumesInput{})
	must(t, err)
	ids := map[string]bool{}
	for _, i := range m.instances {
		ids[aws.ToString(i.InstanceId)] = true
	}
	for _, v := range vols.Volumes {
		attachedToRun := false
		for _, a := range v.Attachments {
			attachedToRun = attachedToRun || ids[aws.ToString(a.InstanceId)]
		}
		if attachedToRun || hasTag(v.Tags, "ybbench:run-id", id) {
			m.volumes = append(m.volumes, v)
		}
	}
	sgs, err := r.ec.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: byRun})
	must(t, err)
	m.groups = sgs.SecurityGroups
	for _, g := range m.groups {
		rules, err := r.ec.DescribeSecurityGroupRules(ctx, &ec2.DescribeSecurityGroupRulesInput{Filters: []types.Filter{
			{Name: aws.String("group-id"), Values: []string{aws.ToString(g.GroupId)}}}})
		must(t, err)
		m.rules = append(m.rules, rules.SecurityGroupRules...)
	}
	keys, err := r.ec.DescribeKeyPairs(ctx, &ec2.DescribeKeyPairsInput{Filters: byRun})
	must(t, err)
	m.keys = keys.KeyPairs
	vpcs, err := r.ec.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: byRun})
	must(t, err)
	m.vpcs = vpcs.Vpcs
	subnets, err := r.ec.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: byRun})
	must(t, err)
	m.subnets = subnets.Subnets
	for _, s := range m.subnets {
		subnetIDs = append(subnetIDs, aws.ToString(s.SubnetId))
	}
	if len(subnetIDs) > 0 {
		enis, err := r.ec.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{Filters: []types.Filter{
			{Name: aws.String("subnet-id"), Values: subnetIDs}}})
		must(t, err)
		m.enis = enis.NetworkInterfaces
	}
	return m
}

// empty says what of the run moto still holds ("" when nothing).
func (m motoRun) left() map[string]int {
	out := map[string]int{}
	for k, n := range map[string]int{"instances": len(m.instances), "volumes": len(m.volumes), "security groups": len(m.groups),
		"key pairs": len(m.keys), "vpcs": len(m.vpcs), "subnets": len(m.subnets),
		"network interfaces": len(m.enis)} {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

// userData is an instance's user data as moto returns it, decoded.
func (r *realAWS) userData(t *testing.T, instanceID string) string {
	t.Helper()
	out, err := r.ec.DescribeInstanceAttribute(context.Background(), &ec2.DescribeInstanceAttributeInput{
		InstanceId: aws.String(instanceID), Attribute: types.InstanceAttributeNameUserData})
	must(t, err)
	if out.UserData == nil {
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(aws.ToString(out.UserData.Value))
	must(t, err)
	return string(b)
}

func hasTag(tags []types.Tag, k, v string) bool {
	for _, tg := range tags {
		if aws.ToString(tg.Key) == k && aws.ToString(tg.Value) == v {
			return true
		}
	}
	return false
}

func tagMap(tags []types.Tag) map[string]string {
	out := map[string]string{}
	for _, tg := range tags {
		out[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// clusterOf reads a run's cluster.json.
func clusterOf(t *testing.T, runDir string) infra.Cluster {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, "cluster.json"))
	must(t, err)
	var c infra.Cluster
	must(t, json.Unmarshal(b, &c))
	return c
}

// checkGone: moto holds nothing of the run, the janitor finds nothing,
// and Terraform's state holds no resource.
func checkGone(t *testing.T, r *realAWS, runs, id string, subnets []string) {
	t.Helper()
	after := r.run(t, id, subnets...)
	after.enis = launchENIsGap(t, r, after.enis)
	if left := after.left(); len(left) > 0 {
		t.Errorf("after down, moto still holds of the run: %v", left)
	}
	// The janitor, in this process: its JSON on stdout, its warnings apart.
	var stdout, stderr bytes.Buffer
	root := newRootWith(&stdout, &stderr, parts.Builtin())
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs([]string{"janitor", "--provider", "aws", "--region", "us-east-1", "--run", id, "-o", "json"})
	jerr := root.Execute()
	var jan struct {
		Found []json.RawMessage `json:"found"`
	}
	if jerr != nil || json.Unmarshal(stdout.Bytes(), &jan) != nil || len(jan.Found) != 0 {
		t.Errorf("janitor after down: %v\n%s%s", jerr, stdout.String(), stderr.String())
	}
	st, err := os.ReadFile(filepath.Join(runs, id, "terraform", "terraform.tfstate"))
	must(t, err)
	var state struct {
		Resources []json.RawMessage `json:"resources"`
	}
	must(t, json.Unmarshal(st, &state))
	if len(state.Resources) != 0 {
		t.Errorf("Terraform's state still lists %d resources after down", len(state.Resources))
	}
}

// launchENIsGap drops from enis the interfaces moto (5.2.5) keeps after
// their instance is terminated: the primary interface an instance was
// launched with, which AWS deletes with the instance and moto marks
// DeleteOnTermination=false and keeps. What it returns is left for
// another reason.
func launchENIsGap(t *testing.T, r *realAWS, enis []types.NetworkInterface) []types.NetworkInterface {
	t.Helper()
	var ids []string
	for _, n := range enis {
		if n.Attachment != nil {
			ids = append(ids, aws.ToString(n.Attachment.InstanceId))
		}
	}
	terminated := map[string]bool{}
	if len(ids) > 0 {
		out, err := r.ec.DescribeInstances(context.Background(), &ec2.DescribeInstancesInput{InstanceIds: ids})
		must(t, err)
		for _, res := range out.Reservations {
			for _, i := range res.Instances {
				terminated[aws.ToString(i.InstanceId)] = i.State != nil && i.State.Name == types.InstanceStateNameTerminated
			}
		}
	}
	var other []types.NetworkInterface
	for _, n := range enis {
		a := n.Attachment
		if a != nil && aws.ToInt32(a.DeviceIndex) == 0 && terminated[aws.ToString(a.InstanceId)] {
			continue
		}
		other = append(other, n)
	}
	return other
}
