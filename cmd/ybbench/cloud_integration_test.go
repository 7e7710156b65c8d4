//go:build integration

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
)

// motoEnv points every AWS call of this process at the test environment's
// moto server with its static credentials, and Terraform at a provider
// mirror that is empty, so that `terraform init` fails at once and the
// same way wherever the test runs (the aws provider cannot be downloaded
// here; where it could, the test must not depend on it).
func motoEnv(t *testing.T) *ec2.Client {
	t.Helper()
	ec := aimAtMoto(t, testenv.MotoFor(t))
	dir := t.TempDir()
	cli := filepath.Join(dir, "terraformrc")
	mirror := filepath.Join(dir, "mirror")
	if err := os.Mkdir(mirror, 0o755); err != nil {
		t.Fatal(err)
	}
	rc := "provider_installation {\n  filesystem_mirror {\n    path = \"" + mirror + "\"\n  }\n}\n"
	if err := os.WriteFile(cli, []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", cli)
	return ec
}

// ybbenchCmd runs the built ybbench with this process's environment (the
// test's settings): its exit code, its output, and its stderr as an
// error when it failed.
func ybbenchCmd(t *testing.T, args ...string) (int, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(builtYbbench(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), nil
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), errors.New(stderr.String())
	}
	t.Fatal(err)
	return 0, "", nil
}

// The aws path against moto with no Terraform provider to install (an
// empty mirror): ybbench's aws provider's check refuses a zone without
// the type and an image it cannot resolve, in one error, before a run
// exists; with zone_fallback and an AMI moto has, the check passes, the
// run is made and `up` stops at terraform init (exit 3); `down` then finds
// with the SDK what of the run remains: a VPC tagged with its id, which
// Terraform's state does not record, is removed before destroy, and the
// teardown is complete (exit 0). (realaws_integration_test.go goes on
// with the real provider installed.)
func TestIntegrationAWSUpAgainstMoto(t *testing.T) {
	ec := motoEnv(t)
	runs := t.TempDir()
	ctx := context.Background()

	code, out, err := ybbenchCmd(t, "up", "ycsb-ysql", "--provider", "aws", "--zone", "us-east-1e", "--ssh-cidr", "203.0.113.7/32", "--runs-dir", runs)
	if code != exitcode.Config {
		t.Fatalf("a zone without c5.4xlarge and moto without Canonical's parameter: exit %d: %v\n%s", code, err, out)
	}
	for _, w := range []string{"c5.4xlarge is not offered in us-east-1e", "us-east-1a", "zone_fallback", "image: SSM parameter /aws/service/canonical/"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal lacks %q:\n%v", w, err)
		}
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 {
		t.Fatalf("a refused run left %d entries in %s", len(entries), runs)
	}
	// A zone of another region: the check lists the region's zones.
	code, out, err = ybbenchCmd(t, "up", "ycsb-ysql", "--provider", "aws", "--region", "us-west-2", "--zone", "us-east-1a",
		"--ssh-cidr", "203.0.113.7/32", "--runs-dir", runs)
	if code != exitcode.Config || !strings.Contains(err.Error(), "its zones: us-west-2a, us-west-2b, us-west-2c, us-west-2d") {
		t.Errorf("a zone of another region: exit %d: %v\n%s", code, err, out)
	}

	imgs, err := ec.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"099720109477"}})
	if err != nil || len(imgs.Images) == 0 {
		t.Fatalf("moto's Canonical images: %v (%d)", err, len(imgs.Images))
	}
	ami := aws.ToString(imgs.Images[0].ImageId)
	code, out, err = ybbenchCmd(t, "up", "ycsb-ysql", "--provider", "aws", "--zone", "us-east-1e", "--zone-fallback", "--image", ami,
		"--ssh-cidr", "203.0.113.7/32", "--runs-dir", runs)
	if code != exitcode.Infra || !strings.Contains(out+err.Error(), "terraform init") {
		t.Fatalf("up: exit %d, want 3 at terraform init: %v\n%s", code, err, out)
	}
	entries, _ := os.ReadDir(runs)
	if len(entries) != 1 {
		t.Fatalf("%d runs in %s, want 1", len(entries), runs)
	}
	id := entries[0].Name()
	// The run's zone_fallback choice and image went to the provider: its
	// state records the zone it chose for the hosts.
	st, err := os.ReadFile(filepath.Join(runs, id, "aws", "state.json"))
	if err != nil || !strings.Contains(string(st), `"zone": "us-east-1a"`) || !strings.Contains(string(st), ami) {
		t.Errorf("the provider's state: %v\n%s", err, st)
	}

	vpc, err := ec.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.42.0.0/16"), TagSpecifications: []types.TagSpecification{{
		ResourceType: types.ResourceTypeVpc, Tags: []types.Tag{{Key: aws.String("ybbench:run-id"), Value: aws.String(id)},
			{Key: aws.String("ybbench:managed"), Value: aws.String("true")}, {Key: aws.String("ybbench:owner"), Value: aws.String("test")},
			{Key: aws.String("ybbench:created"), Value: aws.String("2026-12-01T00:00:00Z")}, {Key: aws.String("ybbench:expires"), Value: aws.String("2099-12-01T00:00:00Z")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	// Terraform's state records nothing (init failed): down removes the
	// VPC, which carries the run's id and ybbench's mark, before destroy.
	vpcID := aws.ToString(vpc.Vpc.VpcId)
	if code, out, err = ybbenchCmd(t, "down", "--runs-dir", runs, "--run", id); code != 0 {
		t.Fatalf("down with a VPC of the run the state does not record: exit %d: %v\n%s", code, err, out)
	}
	left, err := ec.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{vpcID}})
	if err == nil && len(left.Vpcs) > 0 {
		t.Errorf("down left the run's VPC %s", vpcID)
	}
	if code, out, err = ybbenchCmd(t, "down", "--runs-dir", runs, "--run", id); code != 0 {
		t.Fatalf("down again, with nothing left: exit %d: %v\n%s", code, err, out)
	}
}
