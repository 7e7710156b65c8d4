//go:build integration

package aws

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
)

// These tests run the provider's SDK code against the test environment's
// moto server (reset for each test; none runs in parallel). moto answers
// any credentials, has the AWS instance-type offerings and a default list
// of AMIs, no Canonical SSM parameters and no EC2 quota (cloud.md §9).

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// moto is the reset moto server with SDK clients for a region.
type moto struct {
	url  string
	conf ConfigFunc
}

func motoFor(t *testing.T) *moto {
	t.Helper()
	m := testenv.MotoFor(t)
	return &moto{url: m.URL, conf: staticConfig(m.URL)}
}

func (m *moto) config(t *testing.T, region string) aws.Config {
	t.Helper()
	cfg, err := m.conf(context.Background(), region)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ubuntuAMI is an x86_64 Ubuntu image from moto's default list in the
// region, found the way a user would (DescribeImages).
func (m *moto) ubuntuAMI(t *testing.T, region string) string {
	t.Helper()
	out, err := ec2.NewFromConfig(m.config(t, region)).DescribeImages(context.Background(), &ec2.DescribeImagesInput{
		Filters: []types.Filter{
			{Name: aws.String("name"), Values: []string{"ubuntu/images/*"}},
			{Name: aws.String("architecture"), Values: []string{"x86_64"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Images) == 0 {
		t.Fatal("moto has no x86_64 Ubuntu image")
	}
	ids := make([]string, len(out.Images))
	for i, img := range out.Images {
		ids[i] = aws.ToString(img.ImageId)
	}
	slices.Sort(ids)
	return ids[0]
}

// putImageParameter puts an SSM parameter naming ami, outside /aws/ (moto
// refuses that prefix, as AWS does), and returns the image setting.
func (m *moto) putImageParameter(t *testing.T, region, ami string) string {
	t.Helper()
	const path = "/ybbench/test/ubuntu-22.04/ami-id"
	_, err := ssm.NewFromConfig(m.config(t, region)).PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String(path), Value: aws.String(ami), Type: "String", DataType: aws.String("aws:ec2:image")})
	if err != nil {
		t.Fatal(err)
	}
	return ssmPrefix + path
}

// motoProvider is a provider on moto with the test environment's
// terraform and a log the test can read.
func (m *moto) provider(t *testing.T, opts ...Option) (*Provider, *syncBuffer) {
	t.Helper()
	var log syncBuffer
	opts = append([]Option{Config(m.conf), TerraformBinary(testenv.TerraformFor(t)),
		Logger(slog.New(slog.NewTextHandler(&log, nil)))}, opts...)
	return New(opts...), &log
}

// problems lists the problems of a Check error, each with its setting.
func problems(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		if w, ok := e.(interface{ Unwrap() error }); ok && w.Unwrap() != nil && w.Unwrap().Error() == e.Error() {
			walk(w.Unwrap())
			return
		}
		var se *infra.SettingError
		if errors.As(e, &se) {
			out = append(out, se.Setting+": "+se.Err.Error())
			return
		}
		out = append(out, e.Error())
	}
	if err != nil {
		walk(err)
	}
	return out
}

// TestIntegrationCheckPasses: the c5 setup in us-west-2a with its image
// from an SSM parameter passes, and the check learns the account, the AMI
// and the Terraform version.
func TestIntegrationCheckPasses(t *testing.T) {
	m := motoFor(t)
	ami := m.ubuntuAMI(t, "us-west-2")
	spec := c5Spec()
	spec.Region, spec.Zone = "us-west-2", "us-west-2a"
	spec.Options[infra.OptionImage] = m.putImageParameter(t, "us-west-2", ami)
	p, _ := m.provider(t, Quota(&fakeQuota{limit: 1024}))

	f, err := p.check(context.Background(), spec)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	id, err := sts.NewFromConfig(m.config(t, "us-west-2")).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if f.account != aws.ToString(id.Account) || f.arn != aws.ToString(id.Arn) {
		t.Errorf("identity %s %s, STS says %s %s", f.account, f.arn, aws.ToString(id.Account), aws.ToString(id.Arn))
	}
	if f.ami != ami || f.image != spec.Options[infra.OptionImage] || f.zone != "us-west-2a" || f.zoneReason != "as set" {
		t.Errorf("facts: %+v (AMI put: %s)", f, ami)
	}
	if f.terraformVersion != terraform.TestedVersion || f.vcpus != "need 64, free 1024 of 1024" {
		t.Errorf("terraform %q, vcpus %q", f.terraformVersion, f.vcpus)
	}
}

// TestIntegrationZoneNotOffering: c5.4xlarge is not offered in
// us-east-1e; the error names the zones that offer it (as EC2 itself
// lists them) and zone_fallback, and with zone_fallback the check picks
// one of them and says why.
func TestIntegrationZoneNotOffering(t *testing.T) {
	m := motoFor(t)
	out, err := ec2.NewFromConfig(m.config(t, "us-east-1")).DescribeInstanceTypeOfferings(context.Background(),
		&ec2.DescribeInstanceTypeOfferingsInput{LocationType: types.LocationTypeAvailabilityZone,
			Filters: []types.Filter{{Name: aws.String("instance-type"), Values: []string{"c5.4xlarge"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var offering []string
	for _, o := range out.InstanceTypeOfferings {
		offering = append(offering, aws.ToString(o.Location))
	}
	slices.Sort(offering)
	if len(offering) == 0 || slices.Contains(offering, "us-east-1e") {
		t.Fatalf("moto's offerings changed: c5.4xlarge in %v", offering)
	}

	spec := c5Spec()
	spec.Region, spec.Zone = "us-east-1", "us-east-1e"
	spec.Options[infra.OptionImage] = m.ubuntuAMI(t, "us-east-1")
	p, _ := m.provider(t, Quota(&fakeQuota{limit: 1024}))
	_, err = p.check(context.Background(), spec)
	want := "zone: instance type c5.4xlarge is not offered in us-east-1e; zones of us-east-1 that offer it: " +
		strings.Join(offering, ", ") + "; set zone to one of them, or zone_fallback=true"
	if got := problems(err); len(got) != 1 || !strings.HasPrefix(got[0], want) || exitcode.Of(err) != exitcode.Config {
		t.Errorf("check: %q (exit %d), want one problem starting %q", got, exitcode.Of(err), want)
	}

	spec.Options[infra.OptionZoneFallback] = "true"
	f, err := p.check(context.Background(), spec)
	if err != nil {
		t.Fatalf("check with zone_fallback: %v", err)
	}
	if !slices.Contains(offering, f.zone) || !strings.HasPrefix(f.zoneReason, "zone_fallback: c5.4xlarge not offered in us-east-1e; "+f.zone) {
		t.Errorf("zone_fallback chose %s (%s); zones offering c5.4xlarge: %v", f.zone, f.zoneReason, offering)
	}
	if m := f.meta("/runs/r"); m[MetaZone] != f.zone || m[MetaZoneReason] != f.zoneReason {
		t.Errorf("the fallback zone is not recorded: %v", m)
	}
}

// TestIntegrationEveryProblemAtOnce: a mistyped instance type, a missing
// SSM parameter and a zone not in the region are one error naming all
// three, exit 2.
func TestIntegrationEveryProblemAtOnce(t *testing.T) {
	m := motoFor(t)
	spec := c5Spec()
	spec.Region, spec.Zone = "us-west-2", "us-west-2z"
	spec.InstanceType, spec.ClientType = "c5.4xlargee", "c5.4xlargee"
	spec.Options[infra.OptionImage] = "ssm:/ybbench/test/no-such-parameter"
	p, _ := m.provider(t, Quota(&fakeQuota{limit: 1024}))
	_, err := p.check(context.Background(), spec)
	got := problems(err)
	want := []string{
		"instance type c5.4xlargee is not offered in any zone of us-west-2",
		"zone: us-west-2z is not an availability zone of us-west-2; its zones: us-west-2a, us-west-2b, us-west-2c, us-west-2d",
		"image: SSM parameter /ybbench/test/no-such-parameter not found in us-west-2",
	}
	if len(got) != len(want) || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("check: %q (exit %d), want %d problems", got, exitcode.Of(err), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}

// TestIntegrationUnknownRegion: moto answers DescribeRegions for an
// unknown name with nothing; the check says the region is unknown.
func TestIntegrationUnknownRegion(t *testing.T) {
	m := motoFor(t)
	spec := c5Spec()
	spec.Region, spec.Zone = "us-wset-2", "us-wset-2a"
	spec.Options[infra.OptionImage] = "ami-0123456789abcdef0"
	p, _ := m.provider(t, Quota(&fakeQuota{limit: 1024}))
	_, err := p.check(context.Background(), spec)
	got := problems(err)
	if len(got) != 1 || !strings.HasPrefix(got[0], "region: us-wset-2 is not a region of this account's partition; regions: ") ||
		!strings.Contains(got[0], "us-west-2") {
		t.Errorf("check: %q", got)
	}
}

// TestIntegrationNoCredentials: with no credentials anywhere (the SDK's
// default configuration, pointed at moto by AWS_ENDPOINT_URL), the check
// fails within 5 s, naming the sources it tried and how to set one.
func TestIntegrationNoCredentials(t *testing.T) {
	m := motoFor(t)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "no-credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "no-config"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ENDPOINT_URL", m.url)
	p := New(TerraformBinary(testenv.TerraformFor(t)), Quota(&fakeQuota{limit: 1024}))

	spec := c5Spec()
	start := time.Now()
	err := p.Check(context.Background(), spec)
	took := time.Since(start)
	if took >= 5*time.Second {
		t.Errorf("the check took %v; want under 5 s", took)
	}
	got := problems(err)
	if len(got) != 1 || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("check: %q (exit %d), want one problem", got, exitcode.Of(err))
	}
	for _, want := range []string{"no AWS credentials found", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (not set)",
		`profile "default" in ` + filepath.Join(dir, "no-credentials") + " and " + filepath.Join(dir, "no-config"),
		"SSO", "instance metadata service (disabled by AWS_EC2_METADATA_DISABLED)", "set one: export AWS_ACCESS_KEY_ID", "aws sso login"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("the error does not say %q: %s", want, got[0])
		}
	}
}

// TestIntegrationQuotaUnknown: moto has no EC2 quota (Service Quotas
// answers NoSuchResourceException, its defaults an error); the check
// passes with the warning "vCPU quota unknown", logged and recorded.
func TestIntegrationQuotaUnknown(t *testing.T) {
	m := motoFor(t)
	spec := c5Spec()
	spec.Options[infra.OptionImage] = m.ubuntuAMI(t, DefaultRegion)
	p, log := m.provider(t) // the real quota source, on moto
	f, err := p.check(context.Background(), spec)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if len(f.warnings) != 1 || !strings.HasPrefix(f.warnings[0], "vCPU quota unknown in "+DefaultRegion) ||
		!strings.HasPrefix(f.meta("/runs/r")[MetaWarnings], "vCPU quota unknown") || !strings.HasPrefix(f.vcpus, "unknown") {
		t.Errorf("warnings %q, vcpus %q", f.warnings, f.vcpus)
	}
	if !strings.Contains(log.String(), `level=WARN msg="vCPU quota unknown in `+DefaultRegion) {
		t.Errorf("no warning logged:\n%s", log.String())
	}
}

// TestIntegrationCreate makes the c5 setup with moto behind the check and
// a fake terraform: the cluster records what the check learned, and a
// second Create of the run (resumed) checks and keeps the AMI it has.
func TestIntegrationCreate(t *testing.T) {
	m := motoFor(t)
	ami := m.ubuntuAMI(t, "us-west-2")
	tf := newFakeTerraform(t)
	runDir := t.TempDir()
	spec := c5Spec()
	spec.Name, spec.RunDir, spec.Owner = "r20261201-a1", runDir, "ann"
	spec.Region, spec.Zone = "us-west-2", "us-west-2a" // not the default region
	spec.PrivateKeyFile = filepath.Join(runDir, "ssh", "id_ed25519")
	spec.PublicKey = testRun(t, runDir).pubKey
	spec.Options[infra.OptionImage] = m.putImageParameter(t, "us-west-2", ami)
	p := New(Config(m.conf), TerraformBinary(tf.Bin), Quota(&fakeQuota{limit: 1024}))

	before := time.Now().UTC().Truncate(time.Second)
	c, err := p.Create(context.Background(), spec)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if c.Meta[MetaAMI] != ami || c.Meta[MetaImage] != spec.Options[infra.OptionImage] || c.Meta[MetaAccount] != "123456789012" ||
		c.Meta[MetaZone] != "us-west-2a" || c.Meta[MetaRegion] != "us-west-2" || c.Meta[infra.MetaTerraformVersion] != "1.5.7" {
		t.Errorf("meta: %v", c.Meta)
	}
	if c.CreatedAt.Before(before) || !c.ExpiresAt.Equal(c.CreatedAt.Add(spec.Lifetime)) || len(c.Hosts) != 4 {
		t.Errorf("created %v, expires %v, %d hosts", c.CreatedAt, c.ExpiresAt, len(c.Hosts))
	}
	varFile := filepath.Join(runDir, "terraform", terraform.VarFileName)
	vars, err := os.ReadFile(varFile)
	if err != nil || !strings.Contains(string(vars), `"ami": "`+ami+`"`) {
		t.Fatalf("variables: the AMI %s is not passed (%v)", ami, err)
	}

	// The parameter now names another image: the resumed run keeps its own.
	other := ""
	out, err := ec2.NewFromConfig(m.config(t, "us-west-2")).DescribeImages(context.Background(), &ec2.DescribeImagesInput{
		Filters: []types.Filter{{Name: aws.String("architecture"), Values: []string{"x86_64"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range out.Images {
		if id := aws.ToString(img.ImageId); id != ami {
			other = id
			break
		}
	}
	m.putImageParameterOverwrite(t, "us-west-2", other)
	again, err := p.Create(context.Background(), spec)
	if err != nil {
		t.Fatalf("resumed Create: %v", err)
	}
	if again.Meta[MetaAMI] != ami || !again.CreatedAt.Equal(c.CreatedAt) {
		t.Errorf("the resumed run moved to AMI %s, created %v", again.Meta[MetaAMI], again.CreatedAt)
	}
	if after, _ := os.ReadFile(varFile); !bytes.Equal(after, vars) {
		t.Error("the resumed Create changed the module's variables")
	}
}

func (m *moto) putImageParameterOverwrite(t *testing.T, region, ami string) {
	t.Helper()
	_, err := ssm.NewFromConfig(m.config(t, region)).PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String("/ybbench/test/ubuntu-22.04/ami-id"), Value: aws.String(ami), Type: "String",
		DataType: aws.String("aws:ec2:image"), Overwrite: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIntegrationDestroyLeftover: a fake terraform whose destroy leaves
// an instance of the run: Destroy exits 6 naming it and the janitor
// command. The run's terminated instance and an instance with the run's
// id but without ybbench's managed mark are not named; a volume of the
// run whose expiry tag is damaged is, as what leaves the teardown
// unverified.
func TestIntegrationDestroyLeftover(t *testing.T) {
	m := motoFor(t)
	const runID = "r20261201-left"
	c := ec2.NewFromConfig(m.config(t, "us-west-2"))
	ami := m.ubuntuAMI(t, "us-west-2")
	expires := time.Now().UTC().Add(time.Hour).Truncate(time.Second).Format(time.RFC3339)
	launch := func(tags map[string]string) string {
		t.Helper()
		spec := types.TagSpecification{ResourceType: types.ResourceTypeInstance}
		for k, v := range tags {
			spec.Tags = append(spec.Tags, types.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		out, err := c.RunInstances(context.Background(), &ec2.RunInstancesInput{ImageId: aws.String(ami),
			InstanceType: types.InstanceTypeC54xlarge, MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
			TagSpecifications: []types.TagSpecification{spec}})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.Instances[0].InstanceId)
	}
	ours := map[string]string{"ybbench:run-id": runID, "ybbench:managed": "true", "ybbench:expires": expires,
		"ybbench:created": time.Now().UTC().Truncate(time.Second).Format(time.RFC3339), "ybbench:owner": "ann"}
	left := launch(ours)
	gone := launch(ours)
	if _, err := c.TerminateInstances(context.Background(), &ec2.TerminateInstancesInput{InstanceIds: []string{gone}}); err != nil {
		t.Fatal(err)
	}
	launch(map[string]string{"ybbench:run-id": runID, "ybbench:expires": expires}) // not ours to report
	damaged := maps.Clone(ours)
	damaged["ybbench:expires"] = "tomorrow"
	vol, err := c.CreateVolume(context.Background(), &ec2.CreateVolumeInput{AvailabilityZone: aws.String("us-west-2a"), Size: aws.Int32(10),
		VolumeType: types.VolumeTypeGp3, TagSpecifications: janSpec(types.ResourceTypeVolume, damaged)})
	if err != nil {
		t.Fatal(err)
	}

	tf := newFakeTerraform(t)
	cluster := destroyCluster(t, runID, tf) // in us-west-2, made by tf
	err = New(Config(m.conf)).Destroy(context.Background(), cluster)

	if exitcode.Of(err) != exitcode.Teardown {
		t.Fatalf("Destroy: %v (exit %d), want exit 6", err, exitcode.Of(err))
	}
	calls := tf.Calls(t) // version; show (fails: the fake has no state to show, so nothing is removed first); destroy
	if len(calls) != 3 || calls[1].Args[0] != "show" || calls[2].Args[0] != "destroy" {
		t.Errorf("terraform calls: %v", calls)
	}
	var le *infra.LeftoverError
	if !errors.As(err, &le) || len(le.Resources) != 1 {
		t.Fatalf("Destroy: %v, want one resource left", err)
	}
	r := le.Resources[0]
	if r.Type != "instance" || r.ID != left || r.RunID != runID || r.Region != "us-west-2" || r.Expires.Format(time.RFC3339) != expires {
		t.Errorf("left over: %+v, want instance %s", r, left)
	}
	for _, want := range []string{left, "ybbench janitor --provider aws --region us-west-2 --run " + runID + " --yes",
		"cannot verify the teardown of run " + runID, "volume " + aws.ToString(vol.VolumeId) + `: ybbench:expires: "tomorrow" is not an RFC 3339 time`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q: %v", want, err)
		}
	}
}

// TestIntegrationJanitorListsOneRun makes one resource of every type
// moto has that a run leaves (no placement groups), tagged as the module
// tags them, plus an untagged VPC, and the janitor's listing of the run
// (what Destroy checks with) finds exactly the tagged ones, by moto's tag
// filters on each Describe call; another run's finds nothing.
func TestIntegrationJanitorListsOneRun(t *testing.T) {
	m := motoFor(t)
	ctx := context.Background()
	c := ec2.NewFromConfig(m.config(t, "us-west-2"))
	const runID = "r20261201-find"
	exp := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	spec := func(rt types.ResourceType) []types.TagSpecification {
		return []types.TagSpecification{{ResourceType: rt, Tags: janEC2Tags(map[string]string{
			"ybbench:run-id": runID, "ybbench:managed": "true", "ybbench:expires": exp.Format(time.RFC3339)})}}
	}
	want := map[string]string{}
	vpc, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String(vpcCIDR), TagSpecifications: spec(types.ResourceTypeVpc)})
	if err != nil {
		t.Fatal(err)
	}
	want[janVPC] = aws.ToString(vpc.Vpc.VpcId)
	if _, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.43.0.0/16")}); err != nil {
		t.Fatal(err)
	}
	sub, err := c.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: aws.String(subnetCIDR),
		AvailabilityZone: aws.String("us-west-2a"), TagSpecifications: spec(types.ResourceTypeSubnet)})
	if err != nil {
		t.Fatal(err)
	}
	want[janSubnet] = aws.ToString(sub.Subnet.SubnetId)
	igw, err := c.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{TagSpecifications: spec(types.ResourceTypeInternetGateway)})
	if err != nil {
		t.Fatal(err)
	}
	want[janInternetGateway] = aws.ToString(igw.InternetGateway.InternetGatewayId)
	rt, err := c.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: vpc.Vpc.VpcId, TagSpecifications: spec(types.ResourceTypeRouteTable)})
	if err != nil {
		t.Fatal(err)
	}
	want[janRouteTable] = aws.ToString(rt.RouteTable.RouteTableId)
	sg, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("ybbench-" + runID), Description: aws.String("test"),
		VpcId: vpc.Vpc.VpcId, TagSpecifications: spec(types.ResourceTypeSecurityGroup)})
	if err != nil {
		t.Fatal(err)
	}
	want[janSecurityGroup] = aws.ToString(sg.GroupId)
	key, err := c.ImportKeyPair(ctx, &ec2.ImportKeyPairInput{KeyName: aws.String("ybbench-" + runID),
		PublicKeyMaterial: []byte(testRun(t, t.TempDir()).pubKey), TagSpecifications: spec(types.ResourceTypeKeyPair)})
	if err != nil {
		t.Fatal(err)
	}
	want[janKeyPair] = aws.ToString(key.KeyName) // what DeleteKeyPair takes
	vol, err := c.CreateVolume(ctx, &ec2.CreateVolumeInput{AvailabilityZone: aws.String("us-west-2a"), Size: aws.Int32(10),
		VolumeType: types.VolumeTypeGp3, TagSpecifications: spec(types.ResourceTypeVolume)})
	if err != nil {
		t.Fatal(err)
	}
	want[janVolume] = aws.ToString(vol.VolumeId)

	j, err := NewJanitor(ctx, "us-west-2", JanitorConfig(m.config(t, "us-west-2")))
	if err != nil {
		t.Fatal(err)
	}
	found, err := j.List(ctx, infra.JanitorFilter{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range found {
		if _, dup := got[r.Type]; dup || r.RunID != runID || !r.Expires.Equal(exp) || r.Region != "us-west-2" {
			t.Errorf("found %+v", r)
		}
		got[r.Type] = r.ID
	}
	if len(found) != len(want) || !maps.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	if none, err := j.List(ctx, infra.JanitorFilter{RunID: "another-run"}); err != nil || len(none) != 0 {
		t.Errorf("another run: %v %v", none, err)
	}
}

// TestIntegrationQuotaShort: with a quota of 32 vCPUs the c5 setup (64)
// does not fit: exit 3, need and free named.
func TestIntegrationQuotaShort(t *testing.T) {
	m := motoFor(t)
	spec := c5Spec()
	spec.Options[infra.OptionImage] = m.ubuntuAMI(t, DefaultRegion)
	p, _ := m.provider(t, Quota(&fakeQuota{limit: 32}))
	err := p.Check(context.Background(), spec)
	if got := problems(err); len(got) != 1 || exitcode.Of(err) != exitcode.Infra ||
		!strings.HasPrefix(got[0], "vCPU quota short in "+DefaultRegion+": need 64 vCPUs, free 32") {
		t.Errorf("check: %q (exit %d)", got, exitcode.Of(err))
	}
}
