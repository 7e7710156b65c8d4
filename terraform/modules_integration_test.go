//go:build integration

package terraform_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// fmtCheck runs `terraform fmt -check -recursive -diff` on dir.
func fmtCheck(t *testing.T, dir string) (string, error) {
	t.Helper()
	out, err := exec.Command(testenv.TerraformFor(t), "fmt", "-check", "-recursive", "-diff", dir).CombinedOutput()
	return string(out), err
}

// Every module is formatted as the test environment's Terraform 1.5.7
// formats it.
func TestIntegrationModulesFormatted(t *testing.T) {
	out, err := fmtCheck(t, filepath.Join(testenv.RepoRoot(), "terraform"))
	if err != nil {
		t.Fatalf("terraform fmt -check: %v\n%s", err, out)
	}
}

// The check fails on a file Terraform would reformat, so the test above
// can fail.
func TestIntegrationModulesFormattedCheckFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte("locals {\n  a = 1\n  bb = 2\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := fmtCheck(t, dir)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("terraform fmt -check passed a misaligned file: %v\n%s", err, out)
	}
}

// tflint runs the test environment's tflint, with its bundled terraform
// ruleset (recommended preset) and no configuration, on one module.
func tflint(t *testing.T, dir string) (string, error) {
	t.Helper()
	cmd := exec.Command(testenv.TFLintFor(t), "--chdir", dir, "--format", "compact", "--no-color")
	// No user configuration or plugin directory may change what it checks.
	cmd.Env = append(os.Environ(), "TFLINT_CONFIG_FILE=", "TFLINT_PLUGIN_DIR="+t.TempDir(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// tflint finds nothing in any module.
func TestIntegrationModulesLint(t *testing.T) {
	for _, dir := range []string{"local", "aws", "gcp"} {
		out, err := tflint(t, filepath.Join(testenv.RepoRoot(), "terraform", dir))
		if err != nil || out != "" {
			t.Errorf("tflint terraform/%s: %v\n%s", dir, err, out)
		}
	}
}

// tflint reports an unused variable, so the test above can fail.
func TestIntegrationModulesLintFails(t *testing.T) {
	dir := t.TempDir()
	src := "variable \"unused\" {\n  type = string\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := tflint(t, dir)
	if err == nil || !strings.Contains(out, "terraform_unused_declarations") {
		t.Fatalf("tflint passed a module with an unused variable: %v\n%s", err, out)
	}
}
