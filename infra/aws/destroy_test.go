package aws

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// destroyCluster is run's cluster as Create leaves it: its Terraform
// directory holds a state and the variables, and tf made it.
func destroyCluster(t *testing.T, run string, tf *tftest.Fake) *infra.Cluster {
	t.Helper()
	runDir := t.TempDir()
	work := filepath.Join(runDir, "terraform")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{terraform.StateFileName, terraform.VarFileName} {
		if err := os.WriteFile(filepath.Join(work, f), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return &infra.Cluster{Name: run, Provider: ProviderName,
		Meta: map[string]string{MetaRunDir: runDir, MetaRegion: janTestRegion, MetaTerraformBinary: tf.Bin}}
}

// TestDestroyChecksWhatRemains: after terraform destroy, Destroy asks the
// account (a fake, through the janitor's listing of the run) what of the
// run is left. A live instance of the run is named in a LeftoverError
// with the janitor command (exit 6); the run's terminated instance, an
// instance with the run's id but no managed mark, a VPC's default group
// and another run's instance are not. A resource of the run whose tags
// the janitor cannot read, or a type that cannot be listed, leaves the
// teardown unverified (exit 6, not the janitor's 3), saying how to look;
// another run's damaged resource does not, nor moto's missing placement
// groups.
func TestDestroyChecksWhatRemains(t *testing.T) {
	const run = "r-gone"
	tags := janRunTags(t, run, janTestNow.Add(time.Hour))
	damaged := maps.Clone(tags)
	damaged[cloudtag.TagExpires] = "soon"
	unmanaged := maps.Clone(tags)
	delete(unmanaged, cloudtag.TagManaged)
	otherDamaged := janRunTags(t, "r-other", janTestNow.Add(time.Hour))
	otherDamaged[cloudtag.TagExpires] = "soon"
	janitor := "ybbench janitor --provider aws --region us-west-2 --run " + run

	for _, tc := range []struct {
		name    string
		setup   func(f *janFakeEC2)
		left    []string // ids in the LeftoverError
		unsure  []string // what the error says of an unverified teardown
		notSaid []string
	}{
		{name: "nothing left", setup: func(f *janFakeEC2) {
			f.add(&janFakeRes{typ: janInstance, id: "i-terminated", state: types.InstanceStateNameTerminated, tags: tags})
			f.add(&janFakeRes{typ: janInstance, id: "i-unmanaged", tags: unmanaged})
			f.add(&janFakeRes{typ: janInstance, id: "i-other", tags: janRunTags(t, "r-other", janTestNow)})
			f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-damaged-other", tags: otherDamaged})
			f.placementGroups = janMotoNotImplemented("DescribePlacementGroups")
		}},
		{name: "an instance left", setup: func(f *janFakeEC2) {
			f.add(&janFakeRes{typ: janInstance, id: "i-left", zone: "us-west-2a", tags: tags})
			f.add(&janFakeRes{typ: janInstance, id: "i-terminated", state: types.InstanceStateNameTerminated, tags: tags})
			f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-default", name: "default", isDefault: true, tags: tags})
			f.add(&janFakeRes{typ: janInstance, id: "i-unmanaged", tags: unmanaged})
		}, left: []string{"i-left"}, notSaid: []string{"i-terminated", "sg-default", "i-unmanaged", "cannot verify"}},
		{name: "damaged tags", setup: func(f *janFakeEC2) {
			f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-damaged", tags: damaged})
			f.add(&janFakeRes{typ: janSecurityGroup, id: "sg-damaged-other", tags: otherDamaged})
		}, unsure: []string{"cannot verify the teardown of run " + run, `security-group sg-damaged: ybbench:expires: "soon" is not an RFC 3339 time`, janitor},
			notSaid: []string{"sg-damaged-other"}},
		{name: "listing refused", setup: func(f *janFakeEC2) {
			f.add(&janFakeRes{typ: janVolume, id: "vol-left", tags: tags})
			f.placementGroups = janAPIErr("UnauthorizedOperation", "You are not authorized to perform this operation.")
		}, left: []string{"vol-left"}, unsure: []string{"cannot verify the teardown of run " + run, "listing placement-groups: api error UnauthorizedOperation", janitor}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newJanFakeEC2()
			tc.setup(f)
			tf := newFakeTerraform(t)
			p := New(TerraformBinary(tf.Bin))
			p.ec2 = &janRecorder{janitorEC2: f}
			err := p.Destroy(context.Background(), destroyCluster(t, run, tf))

			if calls := tf.Calls(t); len(calls) != 3 || calls[1].Args[0] != "show" || calls[2].Args[0] != "destroy" {
				t.Errorf("terraform calls: %v", calls)
			}
			if tc.left == nil && tc.unsure == nil {
				if err != nil {
					t.Fatalf("Destroy: %v", err)
				}
				return
			}
			if exitcode.Of(err) != exitcode.Teardown {
				t.Fatalf("Destroy: %v (exit %d), want exit 6", err, exitcode.Of(err))
			}
			var le *infra.LeftoverError
			var ids []string
			if errors.As(err, &le) {
				for _, r := range le.Resources {
					if r.RunID != run || r.Region != janTestRegion {
						t.Errorf("left over: %+v", r)
					}
					ids = append(ids, r.ID)
				}
				tc.unsure = append(tc.unsure, janitor+" --yes")
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.left) {
				t.Errorf("left over %v, want %v", ids, tc.left)
			}
			for _, s := range tc.unsure {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			for _, s := range tc.notSaid {
				if strings.Contains(err.Error(), s) {
					t.Errorf("the error names %q: %v", s, err)
				}
			}
			if rec := p.ec2.(*janRecorder); len(rec.log()) != 0 {
				t.Errorf("Destroy's check changed something: %v", rec.log())
			}
		})
	}
}
