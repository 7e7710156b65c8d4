package aws

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// showWith is `terraform show -json` of a state that records an instance
// (with its root volume nested in it) and the VPC.
const showWith = `{"format_version":"1.0","terraform_version":"1.5.7","values":{"root_module":{"resources":[
 {"address":"aws_vpc.run","type":"aws_vpc","name":"run","values":{"id":"vpc-known","cidr_block":"10.42.0.0/16"}},
 {"address":"aws_instance.host[\"db-1\"]","type":"aws_instance","name":"host","values":{"id":"i-known",
  "root_block_device":[{"volume_id":"vol-known","volume_size":64}]}}]}}}`

// TestDestroyRemovesWhatTheStateDoesNotRecord: an apply killed before it
// wrote everything down leaves resources of the run the state does not
// know. Destroy deletes those (the subnet, the group) before terraform
// destroy, and none that the state records, nested ones included (the
// instance's volume): those are Terraform's to destroy, and here, where
// the fake destroy removes nothing, they are what remains (exit 6).
func TestDestroyRemovesWhatTheStateDoesNotRecord(t *testing.T) {
	const run = "r-killed"
	tags := janRunTags(t, run, janTestNow.Add(time.Hour))
	f := newJanFakeEC2()
	vpc := f.add(&janFakeRes{typ: janVPC, id: "vpc-known", tags: tags})
	f.add(&janFakeRes{typ: janInstance, id: "i-known", tags: tags})
	f.add(&janFakeRes{typ: janVolume, id: "vol-known", tags: tags})
	f.add(&janFakeRes{typ: janSubnet, id: "subnet-untracked", vpc: vpc.id, tags: tags})
	f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-untracked", vpc: vpc.id, tags: tags})
	f.add(&janFakeRes{typ: janSubnet, id: "subnet-other", tags: janRunTags(t, "r-other", janTestNow.Add(time.Hour))})
	tf := newFakeTerraform(t)
	tf.SetShow(t, showWith)
	p := New(TerraformBinary(tf.Bin))
	rec := &janRecorder{janitorEC2: f}
	p.ec2 = rec

	err := p.Destroy(context.Background(), destroyCluster(t, run, tf))

	deleted := strings.Join(rec.log(), "\n")
	for _, id := range []string{"subnet-untracked", "sg-untracked"} {
		if !strings.Contains(deleted, id) {
			t.Errorf("%s, which the state does not record, was not deleted:\n%s", id, deleted)
		}
	}
	for _, id := range []string{"vpc-known", "i-known", "vol-known", "subnet-other"} {
		if strings.Contains(deleted, id) {
			t.Errorf("%s was deleted: the state records it, or it is another run's:\n%s", id, deleted)
		}
	}
	if calls := tf.Calls(t); len(calls) != 3 || calls[1].Args[0] != "show" || calls[2].Args[0] != "destroy" {
		t.Errorf("terraform calls: %v", calls)
	}
	var le *infra.LeftoverError
	if exitcode.Of(err) != exitcode.Teardown || !errors.As(err, &le) {
		t.Fatalf("Destroy: %v (exit %d), want exit 6 naming what the fake destroy left", err, exitcode.Of(err))
	}
	var left []string
	for _, r := range le.Resources {
		left = append(left, r.ID)
	}
	slices.Sort(left)
	if want := []string{"i-known", "vol-known", "vpc-known"}; !slices.Equal(left, want) {
		t.Errorf("left: %v, want %v", left, want)
	}
}

// Without a readable state, nothing is deleted before destroy.
func TestDestroyDeletesNothingWithoutState(t *testing.T) {
	const run = "r-unread"
	tags := janRunTags(t, run, janTestNow.Add(time.Hour))
	f := newJanFakeEC2()
	f.add(&janFakeRes{typ: janSubnet, id: "subnet-1", tags: tags})
	tf := newFakeTerraform(t) // show fails: no SetShow
	p := New(TerraformBinary(tf.Bin))
	rec := &janRecorder{janitorEC2: f}
	p.ec2 = rec
	err := p.Destroy(context.Background(), destroyCluster(t, run, tf))
	if got := rec.log(); len(got) != 0 {
		t.Errorf("deleted with no readable state: %v", got)
	}
	if exitcode.Of(err) != exitcode.Teardown || !strings.Contains(err.Error(), "subnet-1") {
		t.Errorf("Destroy: %v, want exit 6 naming subnet-1", err)
	}
}
