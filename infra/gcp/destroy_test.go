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
	"github.com/ybbench/ybbench/infra/terraform"
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
// with the same run-id label, an instance without the managed label, a
// firewall named like the run's but not marked as ybbench's, another
// run's network and another run's firewall whose marks are damaged are
// not the run's and not named.
func TestDestroyLeavesSomething(t *testing.T) {
	_, tf, api, spec, c := created(t)
	api.answer("projects/ybb-test/aggregated/instances", "instances-left.json")
	api.answer("projects/ybb-test/global/networks", "networks-left.json")
	api.answer("projects/ybb-test/global/firewalls", "firewalls-left.json")

	err := New(ClientOptions(api.options()...), TerraformBinary(tf.Bin)).Destroy(context.Background(), fromClusterJSON(t, c))
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
	if strings.Contains(err.Error(), "3013a71478e67e8d") || strings.Contains(err.Error(), "cannot verify") {
		t.Errorf("the error names another run's resource, or doubts the check: %v", err)
	}

	// What was asked: the run's instances by its hash label (exact, where
	// the run-id label is cut to fit), the project's firewalls, networks
	// and subnetworks in every region, read by their names and marks.
	r, ok := api.request("projects/ybb-test/aggregated/instances")
	if wantFilter := `(labels.ybbench-managed = "true") (labels.ybbench-run-hash = "83e7a2d1b2148bc6")`; !ok || r.Query.Get("filter") != wantFilter {
		t.Errorf("instances listed with filter %q, want %q", r.Query.Get("filter"), wantFilter)
	}
	for _, path := range []string{"projects/ybb-test/global/firewalls", "projects/ybb-test/aggregated/subnetworks", "projects/ybb-test/global/networks"} {
		if _, ok := api.request(path); !ok {
			t.Errorf("%s was not listed", path)
		}
	}

	// terraform destroy ran, with the variables Create wrote, in the
	// run's working directory; its state is 0600 after.
	calls := tf.Calls(t)
	last := calls[len(calls)-1]
	wd := filepath.Join(spec.RunDir, "terraform")
	wantArgs := []string{"destroy", "-no-color", "-auto-approve", "-input=false", "-lock-timeout=0s",
		"-var-file=" + filepath.Join(wd, "terraform.tfvars.json"), "-lock=true", "-parallelism=10", "-refresh=true"}
	if !reflect.DeepEqual(last.Args, wantArgs) || last.Cwd != wd || last.VarsMode != "600" || last.DirMode != "700" {
		t.Errorf("destroy call %+v\nwant args %q in %s", last, wantArgs, wd)
	}
	if m := mode(t, filepath.Join(wd, "terraform.tfstate")); m != 0o600 {
		t.Errorf("state after destroy: mode %o, want 600", m)
	}
}

// TestDestroyClean: nothing of the run is listed after terraform destroy.
// No terraform is configured, on PATH or in $YBBENCH_TERRAFORM: Destroy
// runs the one that made the run, recorded in cluster.json.
func TestDestroyClean(t *testing.T) {
	_, tf, api, _, c := created(t)
	api.answer("projects/ybb-test/aggregated/instances", "instances-none.json")
	t.Setenv("PATH", t.TempDir())
	t.Setenv(terraform.EnvBinary, "")
	n := len(tf.Calls(t))
	if err := New(ClientOptions(api.options()...)).Destroy(context.Background(), fromClusterJSON(t, c)); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	if calls := tf.Calls(t)[n:]; len(calls) != 2 || calls[1].Args[0] != "destroy" {
		t.Errorf("the run's terraform was called %v, want version and destroy", calls)
	}
}

// TestDestroyCannotCheck: an API that cannot answer, a zone it cannot
// reach, or an instance of the run whose marks cannot be read (the
// janitor leaves it alone) is a teardown that cannot be verified (exit 6,
// not the janitor's 3 for a listing that fails), with the janitor command
// to look.
func TestDestroyCannotCheck(t *testing.T) {
	for fixture, says := range map[string]string{
		"error-403-quota-exceeded.json": "listing instances: HTTP 403 quotaExceeded",
		"instances-unreachable.json":    "the API could not reach zones/us-central1-f",
		"instances-damaged.json":        `instance ybb-83e7a2d1b2148bc6-db-2 in us-central1-b: `,
	} {
		t.Run(fixture, func(t *testing.T) {
			_, tf, api, _, c := created(t)
			api.answer("projects/ybb-test/aggregated/instances", fixture)
			err := New(ClientOptions(api.options()...), TerraformBinary(tf.Bin)).Destroy(context.Background(), fromClusterJSON(t, c))
			if exitcode.Of(err) != exitcode.Teardown || !strings.Contains(err.Error(), says) ||
				!strings.Contains(err.Error(), "cannot verify the teardown of run "+testRunID) ||
				!strings.Contains(err.Error(), "ybbench janitor --provider gcp --project ybb-test --run "+testRunID) {
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
