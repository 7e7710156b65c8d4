// Package tftest is a stand-in terraform executable for tests: a shell
// script that records every call and answers as Terraform would, without
// running anything. The Stack's tests and the cloud providers' use it; no
// code outside tests may import it.
package tftest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// script records each call (its arguments, its working directory, the
// environment Terraform and its providers read, and the modes of the
// working directory and of the variables file as Terraform finds them),
// then answers: `version -json` with @VERSION@; init; plan to the -out
// file, with changes (exit 2); apply and destroy writing the state (destroy
// keeping the old one as the backup, as Terraform does), both plan and
// state readable by all, as Terraform 1.5.7 leaves them with a umask of
// 022, so that a test sees the Stack make them private again; output from
// output.json; show -json from show.json (SetShow), else a failure. A file fail-<command> in its directory makes that command
// print a line, then the file to stderr, and exit 1; fail-once-<command>
// does so once, then is removed.
const script = `#!/bin/sh
dir=@DIR@
{
  echo "--- call"
  echo "cwd $PWD"
  for a in "$@"; do echo "arg $a"; done
  env | LC_ALL=C sort | grep -E '^(TF_[A-Z_]*|CHECKPOINT_DISABLE|AWS_[A-Z_]*|GOOGLE_[A-Z_]*|CLOUDSDK_[A-Z_]*|YBBENCH_[A-Z_]*)=' | sed 's/^/env /'
  echo "mode dir $(stat -c %a .)"
  if [ -f terraform.tfvars.json ]; then echo "mode vars $(stat -c %a terraform.tfvars.json)"; fi
} >>"$dir/calls"
if [ "$1" = version ]; then
  echo '{"terraform_version":"@VERSION@","platform":"linux_amd64","provider_selections":{},"terraform_outdated":false}'
  exit 0
fi
if [ -f "$dir/fail-$1" ]; then
  echo "$1 output before the failure"
  cat "$dir/fail-$1" >&2
  exit 1
fi
if [ -f "$dir/fail-once-$1" ]; then
  echo "$1 output before the failure"
  cat "$dir/fail-once-$1" >&2
  rm -f "$dir/fail-once-$1"
  exit 1
fi
case $1 in
init) echo "Terraform has been successfully initialized!" ;;
plan)
  for a in "$@"; do case $a in -out=*) echo "fake plan" >"${a#-out=}"; chmod 644 "${a#-out=}" ;; esac; done
  echo "Plan: 4 to add, 0 to change, 0 to destroy."
  exit 2 ;;
apply) echo "Apply complete! Resources: 4 added, 0 changed, 0 destroyed."; echo '{"version":4}' >terraform.tfstate; chmod 644 terraform.tfstate ;;
output) cat "$dir/output.json" ;;
show)
  if [ -f "$dir/show.json" ]; then cat "$dir/show.json"; else echo "fake terraform: no state to show (SetShow)" >&2; exit 1; fi ;;
destroy)
  if [ -f terraform.tfstate ]; then cp terraform.tfstate terraform.tfstate.backup; chmod 644 terraform.tfstate.backup; fi
  echo "Destroy complete! Resources: 4 destroyed."; echo '{"version":4,"resources":[]}' >terraform.tfstate; chmod 644 terraform.tfstate ;;
*) echo "fake terraform: unexpected command $1" >&2; exit 1 ;;
esac
`

// Fake is one stand-in terraform, in a directory of its own.
type Fake struct {
	// Dir holds the recorded calls and the canned answers.
	Dir string
	// Bin is the executable to give the Stack or a provider.
	Bin string
}

// Option configures New.
type Option func(*options)

type options struct{ version string }

// Version sets what `terraform version` reports (default 1.5.7).
func Version(v string) Option { return func(o *options) { o.version = v } }

// New writes a fake terraform into a temporary directory of t's.
func New(t testing.TB, opts ...Option) *Fake {
	t.Helper()
	o := options{version: "1.5.7"}
	for _, f := range opts {
		f(&o)
	}
	dir := t.TempDir()
	f := &Fake{Dir: dir, Bin: filepath.Join(dir, "terraform")}
	text := strings.NewReplacer("@DIR@", dir, "@VERSION@", o.version).Replace(script)
	if err := os.WriteFile(f.Bin, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// SetShow sets what `terraform show -json` prints (without it, show
// fails, as it would on an unreadable state).
func (f *Fake) SetShow(t testing.TB, showJSON string) { f.write(t, "show.json", showJSON) }

// SetOutput sets what `terraform output -json` prints.
func (f *Fake) SetOutput(t testing.TB, outputJSON string) { f.write(t, "output.json", outputJSON) }

// Fail makes every later call of command fail, with stderr on its
// standard error.
func (f *Fake) Fail(t testing.TB, command, stderr string) { f.write(t, "fail-"+command, stderr) }

// FailOnce makes the next call of command fail with stderr; later calls
// answer as usual.
func (f *Fake) FailOnce(t testing.TB, command, stderr string) {
	f.write(t, "fail-once-"+command, stderr)
}

func (f *Fake) write(t testing.TB, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.Dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Call is one recorded call.
type Call struct {
	Cwd  string
	Args []string
	// Env holds the variables of the environment whose names start with
	// TF_, AWS_, GOOGLE_, CLOUDSDK_ or YBBENCH_, and CHECKPOINT_DISABLE.
	Env map[string]string
	// DirMode is the working directory's mode, VarsMode the variables
	// file's ("" when there is none), in octal as stat prints them.
	DirMode, VarsMode string
}

// Calls returns the calls made so far, in order (none when none was).
func (f *Fake) Calls(t testing.TB) []Call {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.Dir, "calls"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls []Call
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if k == "---" {
			calls = append(calls, Call{Env: map[string]string{}})
			continue
		}
		if len(calls) == 0 {
			t.Fatalf("fake terraform calls: %q before the first call", line)
		}
		c := &calls[len(calls)-1]
		switch k {
		case "cwd":
			c.Cwd = v
		case "arg":
			c.Args = append(c.Args, v)
		case "env":
			ek, ev, _ := strings.Cut(v, "=")
			c.Env[ek] = ev
		case "mode":
			what, m, _ := strings.Cut(v, " ")
			if what == "dir" {
				c.DirMode = m
			} else {
				c.VarsMode = m
			}
		default:
			t.Fatalf("fake terraform calls: unexpected line %q", line)
		}
	}
	return calls
}

// Verbs are the calls' first arguments, in order: "version", "init", ….
func Verbs(calls []Call) []string {
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		if len(c.Args) > 0 {
			out = append(out, c.Args[0])
		}
	}
	return out
}
