//go:build integration

package aws

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
)

// TestIntegrationCreateRetriesItsOwnDuplicate: an apply refused a
// security group as a duplicate of one named after the run (the provider
// sent its create twice and moto had done the first, as a busy moto has
// made happen) is applied once more after the run's own group, which the
// state does not record, is deleted from moto. A duplicate named after
// another run is refused as it came (one apply), and that run's group,
// tagged as its own, is left in moto.
func TestIntegrationCreateRetriesItsOwnDuplicate(t *testing.T) {
	m := motoFor(t)
	ami := m.ubuntuAMI(t, "us-west-2")
	image := m.putImageParameter(t, "us-west-2", ami)
	client := ec2.NewFromConfig(m.config(t, "us-west-2"))
	group := func(runID string) string {
		t.Helper()
		name := "ybbench-" + runID
		_, err := client.CreateSecurityGroup(context.Background(), &ec2.CreateSecurityGroupInput{GroupName: aws.String(name),
			Description:       aws.String("the first copy of a create sent twice"),
			TagSpecifications: janSpec(types.ResourceTypeSecurityGroup, janRunTags(t, runID, time.Now().Add(time.Hour)))})
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	exists := func(name string) bool {
		t.Helper()
		out, err := client.DescribeSecurityGroups(context.Background(), &ec2.DescribeSecurityGroupsInput{
			Filters: []types.Filter{{Name: aws.String("group-name"), Values: []string{name}}}})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.SecurityGroups) > 0
	}
	refusal := func(name string) string {
		return "Error: creating Security Group (" + name + "): operation error EC2: CreateSecurityGroup, https response error StatusCode: 400, " +
			"api error InvalidGroup.Duplicate: The security group '" + name + "' already exists\n"
	}
	create := func(runID string, tf *tftest.Fake) (*infra.Cluster, string, error) {
		t.Helper()
		runDir := t.TempDir()
		spec := c5Spec()
		spec.Name, spec.RunDir, spec.Owner = runID, runDir, "ann"
		spec.Region, spec.Zone = "us-west-2", "us-west-2a"
		spec.PrivateKeyFile = filepath.Join(runDir, "ssh", "id_ed25519")
		spec.PublicKey = testRun(t, runDir).pubKey
		spec.Options[infra.OptionImage] = image
		var log bytes.Buffer
		p := New(Config(m.conf), TerraformBinary(tf.Bin), Quota(&fakeQuota{limit: 1024}), Logger(slog.New(slog.NewTextHandler(&log, nil))))
		c, err := p.Create(context.Background(), spec)
		return c, log.String(), err
	}
	applies := func(tf *tftest.Fake) int {
		n := 0
		for _, v := range tftest.Verbs(tf.Calls(t)) {
			if v == "apply" {
				n++
			}
		}
		return n
	}

	// Another run's group: refused as it came, left where it is.
	other := group("r20261207-other")
	tf := newFakeTerraform(t)
	tf.FailOnce(t, "apply", refusal(other))
	if _, _, err := create("r20261207-mine", tf); err == nil || !strings.Contains(err.Error(), "InvalidGroup.Duplicate") {
		t.Errorf("a duplicate named after another run: %v, want the refusal", err)
	}
	if n := applies(tf); n != 1 {
		t.Errorf("a duplicate named after another run: %d applies, want 1", n)
	}
	if !exists(other) {
		t.Errorf("another run's group %s was deleted", other)
	}

	// The run's own: deleted, applied again.
	const mine = "r20261207-dup"
	own := group(mine)
	tf = newFakeTerraform(t)
	tf.FailOnce(t, "apply", refusal(own))
	c, log, err := create(mine, tf)
	if err != nil || len(c.Hosts) != 4 {
		t.Fatalf("Create after its own duplicate: %v", err)
	}
	if n := applies(tf); n != 2 {
		t.Errorf("%d applies, want 2", n)
	}
	if exists(own) {
		t.Errorf("the run's own group %s, which the state does not record, is still in moto", own)
	}
	if !exists(other) {
		t.Errorf("another run's group %s was deleted", other)
	}
	if !strings.Contains(log, "refused a create as a duplicate of the run's own resource") {
		t.Errorf("the log does not say why it applied again:\n%s", log)
	}
}
