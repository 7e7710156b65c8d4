package gcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTerraform is a stand-in `terraform`: it records every call (its
// arguments, working directory, the environment Terraform and the google
// provider read, and the modes of the working directory and of the
// variables file as Terraform finds them) and answers as Terraform would:
// version -json 1.5.7, a plan file, a state file (written 0644, as a umask
// of 022 leaves Terraform's), the hosts output from output.json in its
// directory.
const fakeTerraformScript = `#!/bin/sh
dir=@DIR@
{
  echo "--- call"
  echo "cwd $PWD"
  for a in "$@"; do echo "arg $a"; done
  env | LC_ALL=C sort | grep -E '^(TF_[A-Z_]*|CHECKPOINT_DISABLE|GOOGLE_[A-Z_]*|CLOUDSDK_[A-Z_]*|YBBENCH_[A-Z_]*)=' | sed 's/^/env /'
  echo "mode dir $(stat -c %a .)"
  if [ -f terraform.tfvars.json ]; then echo "mode vars $(stat -c %a terraform.tfvars.json)"; fi
} >>"$dir/calls"
case $1 in
version) echo '{"terraform_version":"1.5.7","platform":"linux_amd64","provider_selections":{},"terraform_outdated":false}' ;;
init) echo "Terraform has been successfully initialized!" ;;
plan)
  for a in "$@"; do case $a in -out=*) echo "fake plan" >"${a#-out=}"; chmod 644 "${a#-out=}" ;; esac; done
  echo "Plan: 8 to add, 0 to change, 0 to destroy."
  exit 2 ;;
apply) echo "Apply complete! Resources: 8 added, 0 changed, 0 destroyed."; echo '{}' >terraform.tfstate; chmod 644 terraform.tfstate ;;
output) cat "$dir/output.json" ;;
destroy) echo "Destroy complete! Resources: 8 destroyed."; echo '{}' >terraform.tfstate; chmod 644 terraform.tfstate ;;
*) echo "fake terraform: unexpected command $1" >&2; exit 1 ;;
esac
`

type fakeTF struct{ dir, bin string }

func newFakeTerraform(t *testing.T) *fakeTF {
	t.Helper()
	dir := t.TempDir()
	f := &fakeTF{dir: dir, bin: filepath.Join(dir, "terraform")}
	if err := os.WriteFile(f.bin, []byte(strings.ReplaceAll(fakeTerraformScript, "@DIR@", dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fakeTF) setOutput(t *testing.T, output string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, "output.json"), []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tfCall is one recorded call.
type tfCall struct {
	cwd      string
	args     []string
	env      map[string]string
	dirMode  string
	varsMode string
}

func (f *fakeTF) calls(t *testing.T) []tfCall {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, "calls"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls []tfCall
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if k == "---" {
			calls = append(calls, tfCall{env: map[string]string{}})
			continue
		}
		c := &calls[len(calls)-1]
		switch k {
		case "cwd":
			c.cwd = v
		case "arg":
			c.args = append(c.args, v)
		case "env":
			ek, ev, _ := strings.Cut(v, "=")
			c.env[ek] = ev
		case "mode":
			what, m, _ := strings.Cut(v, " ")
			if what == "dir" {
				c.dirMode = m
			} else {
				c.varsMode = m
			}
		default:
			t.Fatalf("calls: unexpected line %q", line)
		}
	}
	return calls
}
