package gcp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// fromClusterJSON is the cluster as `ybbench down` reads it back from
// cluster.json: Destroy must need nothing else.
func fromClusterJSON(t *testing.T, c *infra.Cluster) *infra.Cluster {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back infra.Cluster
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestDestroyLeavesSomething: terraform destroy (the fake) succeeds, but
// the API still lists one of the run's instances and its network: exit 6,
// naming exactly those and the janitor command. Another run's instance
// with the same run-id label, an instance without the managed label and a
// firewall named like the run's but not marked as ybbench's are not the
// run's and not named.
func TestDestroyLeavesSomething(t *testing.T) {
	_, tf, api, spec, c := created(t)
	api.answer("projects/ybb-test/aggregated/instances", "instances-left.json")
	api.answer("projects/ybb-test/global/networks/ybb-83e7a2d1b2148bc6-net", "network-ours.json")
	api.answer("projects/ybb-test/global/firewalls/ybb-83e7a2d1b2148bc6-ssh", "firewall-unmarked.json")

	err := New(ClientOptions(api.options()...), TerraformBinary(tf.bin)).Destroy(context.Background(), fromClusterJSON(t, c))
	if exitcode.Of(err) != exitcode.Teardown {
		t.Fatalf("exit %d, want 6: %v", exitcode.Of(err), err)
	}
	var le *infra.LeftoverError
	if !errors.As(err, &le) {
		t.Fatalf("not a LeftoverError: %v", err)
	}
	var got []string
	for _, r := range le.Resources {
		got = append(got, r.Type+" "+r.ID+" "+r.Zone+" "+r.RunID)
	}
	want := []string{
		"instance ybb-83e7a2d1b2148bc6-db-2 us-central1-b kv-ycql-261201-1830-0a1b2c3d",
		"network ybb-83e7a2d1b2148bc6-net  kv-ycql-261201-1830-0a1b2c3d",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("left over:\n%q\nwant\n%q", got, want)
	}
	if le.Provider != "gcp" || le.RunID != testRunID || le.Scope != "--project ybb-test" {
		t.Errorf("leftover error %+v", le)
	}
	if !strings.Contains(err.Error(), "ybbench janitor --provider gcp --project ybb-test --run "+testRunID+" --yes") {
		t.Errorf("no janitor command in: %v", err)
	}

	// What was asked: the run's instances by its labels, its network
	// resources by their names, the subnetwork in the run's region.
	r, ok := api.request("projects/ybb-test/aggregated/instances")
	if wantFilter := `(labels.ybbench-managed = "true") (labels.ybbench-run-id = "kv-ycql-261201-1830-0a1b2c3d")`; !ok || r.Query.Get("filter") != wantFilter {
		t.Errorf("instances listed with filter %q, want %q", r.Query.Get("filter"), wantFilter)
	}
	for _, path := range []string{
		"projects/ybb-test/global/firewalls/ybb-83e7a2d1b2148bc6-ssh",
		"projects/ybb-test/global/firewalls/ybb-83e7a2d1b2148bc6-internal",
		"projects/ybb-test/regions/us-central1/subnetworks/ybb-83e7a2d1b2148bc6-subnet",
		"projects/ybb-test/global/networks/ybb-83e7a2d1b2148bc6-net",
	} {
		if _, ok := api.request(path); !ok {
			t.Errorf("%s was not looked up", path)
		}
	}

	// terraform destroy ran, with the variables Create wrote, in the
	// run's working directory; its state is 0600 after.
	calls := tf.calls(t)
	last := calls[len(calls)-1]
	wd := filepath.Join(spec.RunDir, "terraform")
	wantArgs := []string{"destroy", "-no-color", "-auto-approve", "-input=false", "-lock-timeout=0s",
		"-var-file=" + filepath.Join(wd, "terraform.tfvars.json"), "-lock=true", "-parallelism=10", "-refresh=true"}
	if !reflect.DeepEqual(last.args, wantArgs) || last.cwd != wd || last.varsMode != "600" || last.dirMode != "700" {
		t.Errorf("destroy call %+v\nwant args %q in %s", last, wantArgs, wd)
	}
	if m := mode(t, filepath.Join(wd, "terraform.tfstate")); m != 0o600 {
		t.Errorf("state after destroy: mode %o, want 600", m)
	}
}

// TestDestroyClean: nothing of the run is listed after terraform destroy.
func TestDestroyClean(t *testing.T) {
	_, tf, api, _, c := created(t)
	api.answer("projects/ybb-test/aggregated/instances", "instances-none.json")
	if err := New(ClientOptions(api.options()...), TerraformBinary(tf.bin)).Destroy(context.Background(), fromClusterJSON(t, c)); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
}

// TestDestroyCannotCheck: an API that cannot answer, or a zone it cannot
// reach, is a teardown that cannot be verified (exit 6), with the janitor
// command to finish it.
func TestDestroyCannotCheck(t *testing.T) {
	for fixture, says := range map[string]string{
		"error-403-quota-exceeded.json": "HTTP 403 quotaExceeded",
		"instances-unreachable.json":    "the API could not reach zones/us-central1-f",
	} {
		t.Run(fixture, func(t *testing.T) {
			_, tf, api, _, c := created(t)
			api.answer("projects/ybb-test/aggregated/instances", fixture)
			err := New(ClientOptions(api.options()...), TerraformBinary(tf.bin)).Destroy(context.Background(), fromClusterJSON(t, c))
			if exitcode.Of(err) != exitcode.Teardown || !strings.Contains(err.Error(), says) ||
				!strings.Contains(err.Error(), "ybbench janitor --provider gcp --project ybb-test") {
				t.Errorf("exit %d: %v\nwant exit 6 saying %q and the janitor command", exitcode.Of(err), err, says)
			}
		})
	}
}

func TestDestroyNeedsItsMeta(t *testing.T) {
	err := New().Destroy(context.Background(), &infra.Cluster{Name: testRunID, Provider: "gcp"})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), MetaProject) {
		t.Errorf("exit %d: %v", exitcode.Of(err), err)
	}
}
