//go:build integration

package terraform

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
)

// A module of terraform_data resources only, shaped like the real ones: a
// host per element of var.hosts whose provisioners leave and remove a marker
// file, and the hosts output of the contract.
const integrationModule = `
variable "hosts" {
  type = list(object({ name = string, role = string }))
}
variable "marker_dir" {
  type = string
}
variable "fail" {
  type    = bool
  default = false
}

resource "terraform_data" "host" {
  for_each = { for i, h in var.hosts : h.name => merge(h, { address = cidrhost("10.77.0.0/24", i + 2) }) }
  input    = merge(each.value, { marker = "${var.marker_dir}/${each.key}", fail = var.fail })

  provisioner "local-exec" {
    command     = "if [ \"$FAIL\" = true ]; then echo \"made-up failure: host $MARKER cannot be made\" >&2; exit 3; fi; touch \"$MARKER\""
    environment = { MARKER = self.input.marker, FAIL = self.input.fail }
  }
  provisioner "local-exec" {
    when        = destroy
    command     = "rm -f \"$MARKER\""
    environment = { MARKER = self.input.marker }
  }
}

output "hosts" {
  value = [for h in var.hosts : {
    name       = h.name
    role       = h.role
    public_ip  = terraform_data.host[h.name].output.address
    private_ip = terraform_data.host[h.name].output.address
    zone       = "test"
  }]
}
`

func TestIntegrationStack(t *testing.T) {
	bin := testenv.TerraformFor(t)
	t.Setenv("CHECKPOINT_DISABLE", "1")
	moduleDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(moduleDir, "main.tf"), []byte(integrationModule), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	markers := t.TempDir()
	vars := map[string]any{
		"hosts": []map[string]string{
			{"name": "db-1", "role": "db"}, {"name": "db-2", "role": "db"}, {"name": "client-1", "role": "client"},
		},
		"marker_dir": markers,
	}
	ctx := context.Background()
	s, err := New(ctx, os.DirFS(moduleDir), runDir, Binary(bin), Vars(vars))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version() != "1.5.7" {
		t.Fatalf("version %s", s.Version())
	}
	if err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	hosts, err := s.Hosts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []infra.Host{
		{Name: "db-1", Roles: []infra.Role{infra.RoleDB}, PublicIP: "10.77.0.2", PrivateIP: "10.77.0.2", Zone: "test"},
		{Name: "db-2", Roles: []infra.Role{infra.RoleDB}, PublicIP: "10.77.0.3", PrivateIP: "10.77.0.3", Zone: "test"},
		{Name: "client-1", Roles: []infra.Role{infra.RoleClient}, PublicIP: "10.77.0.4", PrivateIP: "10.77.0.4", Zone: "test"},
	}
	if !reflect.DeepEqual(hosts, want) {
		t.Errorf("hosts:\n got %+v\nwant %+v", hosts, want)
	}
	for _, h := range want {
		if _, err := os.Stat(filepath.Join(markers, h.Name)); err != nil {
			t.Errorf("the create provisioner of %s did not run: %v", h.Name, err)
		}
	}
	wd := filepath.Join(runDir, "terraform")
	for _, f := range []string{StateFileName, PlanFileName, VarFileName, "main.tf"} {
		if _, err := os.Stat(filepath.Join(wd, f)); err != nil {
			t.Errorf("%s is not in the run directory: %v", f, err)
		}
	}
	// Terraform writes its plan and state 0644; a cloud module's hold
	// the hosts' private keys, so the Stack keeps them 0600 in a 0700
	// directory.
	for f, want := range map[string]os.FileMode{".": 0o700, StateFileName: 0o600, PlanFileName: 0o600, VarFileName: 0o600} {
		if st, err := os.Stat(filepath.Join(wd, f)); err == nil && st.Mode().Perm() != want {
			t.Errorf("%s is mode %04o, want %04o", f, st.Mode().Perm(), want)
		}
	}
	ids := stateIDs(t, wd)
	if len(ids) != 3 {
		t.Fatalf("state has %d resources, want 3", len(ids))
	}

	// Idempotent: the same stack applied again changes nothing.
	if err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if again := stateIDs(t, wd); !reflect.DeepEqual(again, ids) {
		t.Errorf("a second apply replaced resources: %v, then %v", ids, again)
	}

	// Destroy from a fresh Stack without a module, as `ybbench down` does from
	// the run directory alone.
	d, err := New(ctx, nil, runDir, Binary(bin))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if left := stateIDs(t, wd); len(left) != 0 {
		t.Errorf("resources left in the state: %v", left)
	}
	for _, h := range want {
		if _, err := os.Stat(filepath.Join(markers, h.Name)); !os.IsNotExist(err) {
			t.Errorf("the destroy provisioner of %s did not run (%v)", h.Name, err)
		}
	}
	log, err := os.ReadFile(filepath.Join(runDir, "logs", "terraform.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Apply complete! Resources: 3 added", "Apply complete! Resources: 0 added", "Destroy complete! Resources: 3 destroyed"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("terraform.log lacks %q", want)
		}
	}
}

// TestIntegrationStackFailure: a failing provisioner's own message comes back
// in the error.
func TestIntegrationStackFailure(t *testing.T) {
	bin := testenv.TerraformFor(t)
	t.Setenv("CHECKPOINT_DISABLE", "1")
	moduleDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(moduleDir, "main.tf"), []byte(integrationModule), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := New(ctx, os.DirFS(moduleDir), t.TempDir(), Binary(bin), Vars(map[string]any{
		"hosts":      []map[string]string{{"name": "db-1", "role": "db"}},
		"marker_dir": t.TempDir(),
		"fail":       true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	err = s.Apply(ctx)
	if err == nil {
		t.Fatal("apply succeeded")
	}
	t.Logf("the error: %v", err)
	for _, want := range []string{"terraform apply: exit status 1", "Error: local-exec provisioner error", "made-up failure: host", "cannot be made"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// stateIDs returns the ids of the resource instances in the state file.
func stateIDs(t *testing.T, wd string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wd, StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Instances []struct {
				Attributes struct {
					ID string `json:"id"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range st.Resources {
		for _, i := range r.Instances {
			ids = append(ids, i.Attributes.ID)
		}
	}
	return ids
}
