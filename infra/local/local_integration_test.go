//go:build integration

package local

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/internal/testenv"
	modules "github.com/ybbench/ybbench/terraform"
)

// TestIntegrationLocalModule checks terraform/local with the real Terraform
// without making hosts (that needs root: the e2e tier): formatting, `terraform
// validate` (possible here: the module uses built-in resources only), and
// the module's own refusals at plan time, surfaced through the seam.
func TestIntegrationLocalModule(t *testing.T) {
	bin := testenv.TerraformFor(t)
	dir := filepath.Join(testenv.RepoRoot(), "terraform", "local")
	if out, err := exec.Command(bin, "fmt", "-check", "-diff", dir).CombinedOutput(); err != nil {
		t.Errorf("terraform fmt -check %s: %v\n%s", dir, err, out)
	}

	// Every file the module has on disk, its documentation aside, is in the
	// binary: a template or script added to the module but not matched by
	// the embed pattern would be missing where ybbench runs.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if _, err := fs.Stat(modules.Local(), e.Name()); err != nil {
			t.Errorf("terraform/local/%s is not embedded in the binary (terraform/modules.go's pattern): %v", e.Name(), err)
		}
	}

	ctx := context.Background()
	vars := func(hosts []hostVar, subnet string) map[string]any {
		return map[string]any{
			"run_id": "integration-local", "run_dir": "/nonexistent/run", "hosts": hosts, "subnet": subnet,
			"script": "/nonexistent/hosts.sh", "bridge": "ybtestbr", "ssh_public_key": testKey(t),
		}
	}
	runDir := t.TempDir()
	s, err := terraform.New(ctx, modules.Local(), runDir, terraform.Binary(bin), terraform.Vars(vars(hostNames(2, 1), DefaultSubnet)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "validate", "-no-color")
	cmd.Dir = s.WorkDir()
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "The configuration is valid") {
		t.Errorf("terraform validate: %v\n%s", err, out)
	}

	tests := []struct {
		name   string
		hosts  []hostVar
		subnet string
		want   string
	}{
		{"too many hosts", hostNames(2, 1), "10.213.0.0/30", "has room for 1 hosts, not 3"},
		{"bad host name", []hostVar{{Name: "DB_1", Role: "db"}}, DefaultSubnet, "names are 1-32 lowercase letters"},
		{"bad role", []hostVar{{Name: "m-1", Role: "master"}}, DefaultSubnet, "role is db or client"},
		{"duplicate names", []hostVar{{Name: "a", Role: "db"}, {Name: "a", Role: "db"}}, DefaultSubnet, "names must be unique"},
		{"IPv6 subnet", hostNames(1, 0), "fd00::/120", "an IPv4 CIDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := terraform.New(ctx, modules.Local(), t.TempDir(), terraform.Binary(bin), terraform.Vars(vars(tt.hosts, tt.subnet)))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Init(ctx); err != nil {
				t.Fatal(err)
			}
			err = s.Apply(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("apply: %v, want an error with %q", err, tt.want)
			}
		})
	}
}
