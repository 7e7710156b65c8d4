//go:build integration

package gcp

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/ybbench/ybbench/infra/cloudtag"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/testenv"
	modules "github.com/ybbench/ybbench/terraform"
)

// TestIntegrationCheckRecordsTerraform: the check runs the test
// environment's real Terraform and keeps its version for the cluster.
func TestIntegrationCheckRecordsTerraform(t *testing.T) {
	bin := testenv.TerraformFor(t)
	api := newAPIServer(t)
	f, err := New(ClientOptions(api.options()...), TerraformBinary(bin)).check(context.Background(), testSpec(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if f.terraformVersion != terraform.TestedVersion {
		t.Errorf("terraform version %q, want %s", f.terraformVersion, terraform.TestedVersion)
	}
}

// TestIntegrationModuleVariablesInTerraform: real Terraform (1.5.7)
// evaluates terraform/gcp's variables, with their validations, and its
// locals with the variables Create gives, in a configuration of the
// module's variables.tf and locals block alone (no provider, so nothing to
// download): the labels and description it computes are cloudtag's, and a
// value the module refuses is refused. This is the same contract
// TestModuleMarksAreCloudtags checks with hcl and stand-ins for
// Terraform's functions.
func TestIntegrationModuleVariablesInTerraform(t *testing.T) {
	bin := testenv.TerraformFor(t)
	dir := t.TempDir()
	m := modules.GCP()
	vtf, err := fs.ReadFile(m, "variables.tf")
	if err != nil {
		t.Fatal(err)
	}
	main, err := fs.ReadFile(m, "main.tf")
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(main, "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var locals string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "locals" {
			r := b.Range()
			locals += string(main[r.Start.Byte:r.End.Byte]) + "\n"
		}
	}
	if locals == "" {
		t.Fatal("main.tf has no locals block")
	}
	files := map[string]string{
		"variables.tf": string(vtf),
		"locals.tf":    locals,
		"outputs.tf":   "output \"labels\" {\n  value = local.labels\n}\n\noutput \"description\" {\n  value = local.description\n}\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// tfrun runs terraform in dir: its stdout, and stdout and stderr
	// together for messages.
	tfrun := func(args ...string) (stdout, all string, err error) {
		var o, a strings.Builder
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&o, &a), &a
		err = cmd.Run()
		return o.String(), a.String(), err
	}
	if _, out, err := tfrun("init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}

	vars, meta, _ := testVars(t)
	writeVars := func(v map[string]any) string {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "run.tfvars.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, out, err := tfrun("apply", "-auto-approve", "-input=false", "-no-color", "-var-file="+writeVars(vars)); err != nil {
		t.Fatalf("terraform apply refused Create's variables: %v\n%s", err, out)
	}
	out, all, err := tfrun("output", "-json")
	if err != nil {
		out = all
		t.Fatalf("terraform output: %v\n%s", err, out)
	}
	var outputs struct {
		Labels      struct{ Value map[string]string }
		Description struct{ Value string }
	}
	if err := json.Unmarshal([]byte(out), &outputs); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	labels, err := cloudtag.GCPLabels(meta)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := cloudtag.GCPDescription(meta)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(outputs.Labels.Value, labels) || outputs.Description.Value != desc {
		t.Errorf("Terraform computed labels %v, description %q;\ncloudtag's %v, %q", outputs.Labels.Value, outputs.Description.Value, labels, desc)
	}

	// The validations run: an owner not in label syntax and an open
	// ssh_cidr are refused, each by its own message.
	bad := maps.Clone(vars)
	bad["owner"], bad["ssh_cidr"] = "Alice Smith", "0.0.0.0/0"
	_, out, err = tfrun("apply", "-auto-approve", "-input=false", "-no-color", "-var-file="+writeVars(bad))
	if err == nil {
		t.Fatalf("terraform accepted an owner and ssh_cidr the module refuses:\n%s", out)
	}
	for _, want := range []string{"owner: a label value", "ssh_cidr: an IPv4 CIDR with a prefix of /16 or longer"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("terraform's refusal does not say %q:\n%s", want, out)
		}
	}
}
