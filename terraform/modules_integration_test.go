//go:build integration

package terraform_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
