//go:build integration

package gcp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ybbench/ybbench/infra/cloudtest"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/testenv"
)

// TestIntegrationPlanWithRealGoogleProvider: terraform/gcp planned with
// the real Google provider (built from source by the test environment)
// through the gcp provider's own code: its check against the fixture
// server, its run state, user data and variables, its Stack's init and
// plan. The test's override file gives the provider a static token and
// the fixture server as its Compute endpoint. The plan makes the run's
// network, subnetwork, two firewalls and four n1-standard-16 hosts with
// two local SSDs on each db host. Planning new resources asks the API
// nothing (the fixture server records no request then; one to a Google
// address would fail, the network being closed), so the check's fixtures
// are all the plan needs.
func TestIntegrationPlanWithRealGoogleProvider(t *testing.T) {
	b := testenv.ProviderBuildsFor(t)
	t.Setenv("TF_CLI_CONFIG_FILE", b.CLIConfig)
	api := newAPIServer(t)
	mod, err := cloudtest.GCPModule(map[string]string{"zz_test_override.tf": fmt.Sprintf(`# The test's: a static token, the fixture server for Compute.
provider "google" {
  access_token            = "ybbench-test-token"
  compute_custom_endpoint = "%s/compute/v1/"
}
`, api.srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	p := New(ClientOptions(api.options()...), TerraformBinary(testenv.TerraformFor(t)), Module(mod))
	ctx := context.Background()
	w, err := p.prepare(ctx, testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	checked := len(api.paths())
	if err := w.stack.Init(ctx); err != nil {
		t.Fatal(err)
	}
	changes, err := w.stack.Plan(ctx)
	if err != nil || !changes {
		t.Fatalf("plan: changes %v, %v", changes, err)
	}
	if asked := api.paths()[checked:]; len(asked) != 0 {
		t.Logf("requests while planning (answered by the fixtures): %v", asked)
	}

	tf, err := tfexec.NewTerraform(w.stack.WorkDir(), testenv.TerraformFor(t))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tf.ShowPlanFile(ctx, filepath.Join(w.stack.WorkDir(), terraform.PlanFileName))
	if err != nil {
		t.Fatal(err)
	}
	var made []string
	for _, rc := range plan.ResourceChanges {
		if !rc.Change.Actions.Create() {
			t.Errorf("%s: %v, want create", rc.Address, rc.Change.Actions)
		}
		made = append(made, rc.Type)
		if rc.Type != "google_compute_instance" {
			continue
		}
		after, _ := rc.Change.After.(map[string]any)
		ssds, _ := after["scratch_disk"].([]any)
		name, _ := rc.Index.(string)
		wantSSDs := 2
		if strings.HasPrefix(name, "client") {
			wantSSDs = 0
		}
		if after["machine_type"] != "n1-standard-16" || after["zone"] != w.facts.zone || len(ssds) != wantSSDs {
			t.Errorf("%s: %v in %v with %d local SSDs, want n1-standard-16 in %s with %d", rc.Address, after["machine_type"], after["zone"], len(ssds), w.facts.zone, wantSSDs)
		}
	}
	slices.Sort(made)
	want := []string{"google_compute_firewall", "google_compute_firewall", "google_compute_instance", "google_compute_instance",
		"google_compute_instance", "google_compute_instance", "google_compute_network", "google_compute_subnetwork"}
	if !slices.Equal(made, want) {
		t.Errorf("the plan makes %v, want %v", made, want)
	}
}
