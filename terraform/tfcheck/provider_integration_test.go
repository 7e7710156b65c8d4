//go:build integration

package tfcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ybbench/ybbench/internal/testenv"
)

// What only a provider sees. The schema check knows each argument of each
// resource, but not the provider's rules between arguments or on their
// values; `terraform validate` with the real provider (built from source
// by the test environment, installed from its mirror) applies them.

// egressTo is the egress rule's destination; brokenEgress gives the rule
// a second one. Both arguments exist in the schema, and the policy has
// nothing against an egress rule to everywhere, but the provider takes
// exactly one of cidr_ipv4, cidr_ipv6, prefix_list_id and
// referenced_security_group_id. (Literals: validate knows no variable's
// or resource's value, and the provider's check skips unknown ones.)
const (
	egressTo     = `  cidr_ipv4         = "0.0.0.0/0"`
	brokenEgress = egressTo + "\n  cidr_ipv6         = \"::/0\""
)

// copyModuleTo copies terraform/<name>'s .tf files into a directory of
// the test's, with edit applied to main.tf.
func copyModuleTo(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	src := filepath.Join(testenv.RepoRoot(), "terraform", name)
	dst := t.TempDir()
	files, err := filepath.Glob(filepath.Join(src, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("module %s: %v", src, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if filepath.Base(f) == "main.tf" && edit != nil {
			text = edit(text)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// validate runs terraform init and validate in dir with the provider
// builds, and returns validate's error.
func validate(t *testing.T, dir string) error {
	t.Helper()
	b := testenv.ProviderBuildsFor(t)
	tf, err := tfexec.NewTerraform(dir, testenv.TerraformFor(t))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TF_CLI_CONFIG_FILE": b.CLIConfig, "CHECKPOINT_DISABLE": "1"}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := env[k]; !ok && !strings.HasPrefix(k, "TF_") {
			env[k] = v
		}
	}
	if err := tf.SetEnv(env); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tf.Init(ctx); err != nil {
		t.Fatalf("terraform init of %s with the provider builds: %v", dir, err)
	}
	out, err := tf.Validate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Valid {
		return nil
	}
	var msgs []string
	for _, d := range out.Diagnostics {
		msgs = append(msgs, d.Summary+": "+d.Detail)
	}
	return &validateError{msgs}
}

type validateError struct{ diags []string }

func (e *validateError) Error() string { return strings.Join(e.diags, "; ") }

// Both modules, as shipped, pass the real providers' validation.
func TestIntegrationModulesValidateWithRealProviders(t *testing.T) {
	for _, name := range []string{"aws", "gcp"} {
		t.Run(name, func(t *testing.T) {
			if err := validate(t, copyModuleTo(t, name, nil)); err != nil {
				t.Errorf("terraform validate of terraform/%s with the real provider: %v", name, err)
			}
		})
	}
}

// A module the schema check and the policy accept, and the real provider
// refuses: the new tier sees what the old one could not.
func TestIntegrationProviderRefusesWhatSchemaAccepts(t *testing.T) {
	dir := copyModuleTo(t, "aws", func(s string) string {
		if strings.Count(s, egressTo) != 1 {
			t.Fatalf("terraform/aws/main.tf no longer has the egress rule's line %q", egressTo)
		}
		return strings.Replace(s, egressTo, brokenEgress, 1)
	})
	m, err := ParseModule(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f := CheckSchema(m, schemas(t)); len(f) != 0 {
		t.Fatalf("the schema check refuses the broken module (%v): it is not the case this test is about", f)
	}
	if f := CheckPolicy(m, "aws"); len(f) != 0 {
		t.Fatalf("the policy refuses the broken module (%v): it is not the case this test is about", f)
	}
	err = validate(t, dir)
	if err == nil || !strings.Contains(err.Error(), "Invalid Attribute Combination") || !strings.Contains(err.Error(), "cidr_ipv6") {
		t.Errorf("the real provider's validate: %v; want it to refuse the second destination", err)
	}
}
