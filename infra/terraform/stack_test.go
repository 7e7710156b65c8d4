package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// newFake is a fake terraform of that version (tftest) whose hosts output
// is cannedOutput.
func newFake(t *testing.T, version string) *tftest.Fake {
	t.Helper()
	f := tftest.New(t, tftest.Version(version))
	f.SetOutput(t, cannedOutput)
	return f
}

const cannedOutput = `{
  "hosts": {
    "sensitive": false,
    "type": ["list", ["object", {"name": "string"}]],
    "value": [
      {"name": "db-1", "role": "db", "public_ip": "10.9.0.2", "private_ip": "10.9.0.2", "zone": "local"},
      {"name": "client-1", "role": "client", "public_ip": "10.9.0.3", "private_ip": "10.9.0.3", "zone": "local"}
    ]
  }
}`

var testModule = fstest.MapFS{
	"main.tf":           {Data: []byte("resource \"terraform_data\" \"x\" {}\n")},
	"outputs.tf":        {Data: []byte("output \"hosts\" { value = [] }\n")},
	"README.md":         {Data: []byte("a module\n")},
	"scripts/a.sh":      {Data: []byte("#!/bin/sh\n")},
	".terraform/junk":   {Data: []byte("not copied\n")},
	"terraform.tfstate": {Data: []byte("not copied\n")},
}

var testVars = map[string]any{
	"run_id": "r1",
	"hosts":  []map[string]string{{"name": "db-1", "role": "db"}},
	"subnet": "10.9.0.0/24",
}

// TestStackCalls runs the whole life of a stack against the fake and checks
// every Terraform call: order, arguments, working directory and environment,
// the variables file, the copied module and the log.
func TestStackCalls(t *testing.T) {
	f := newFake(t, TestedVersion)
	runDir := t.TempDir()
	// Variables and flags from the environment must not reach Terraform, nor
	// a data dir that would move .terraform out of the run.
	t.Setenv("TF_VAR_subnet", "192.168.0.0/16")
	t.Setenv("TF_CLI_ARGS_plan", "-var=subnet=192.168.0.0/16")
	t.Setenv("TF_DATA_DIR", "/tmp/elsewhere")
	t.Setenv("CHECKPOINT_DISABLE", "")
	ctx := context.Background()

	s, err := New(ctx, testModule, runDir, Binary(f.Bin), Vars(testVars))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version() != TestedVersion || s.BinaryPath() != f.Bin {
		t.Errorf("version %q binary %q", s.Version(), s.BinaryPath())
	}
	hosts, err := s.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}

	wd := filepath.Join(runDir, "terraform")
	plan := filepath.Join(wd, PlanFileName)
	varFile := filepath.Join(wd, VarFileName)
	want := [][]string{
		{"version", "-json"},
		{"init", "-no-color", "-input=false", "-backend=true", "-get=true", "-upgrade=false"},
		{"plan", "-no-color", "-input=false", "-detailed-exitcode", "-lock-timeout=0s", "-out=" + plan,
			"-var-file=" + varFile, "-lock=true", "-parallelism=10", "-refresh=true"},
		{"apply", "-no-color", "-auto-approve", "-input=false", "-lock=true",
			"-parallelism=10", "-refresh=true", plan},
		{"output", "-no-color", "-json"},
		{"destroy", "-no-color", "-auto-approve", "-input=false", "-lock-timeout=0s", "-var-file=" + varFile,
			"-lock=true", "-parallelism=10", "-refresh=true"},
	}
	calls := f.Calls(t)
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, c := range calls {
		if !reflect.DeepEqual(c.Args, want[i]) {
			t.Errorf("call %d:\n got %q\nwant %q", i, c.Args, want[i])
		}
		if c.Cwd != wd {
			t.Errorf("call %d (%s) ran in %s, want %s", i, c.Args[0], c.Cwd, wd)
		}
		for _, a := range c.Args {
			if a == "-var" || strings.HasPrefix(a, "-var=") {
				t.Errorf("call %d passes a variable on the command line: %q", i, c.Args)
			}
		}
		if c.Env["CHECKPOINT_DISABLE"] != "1" || c.Env["TF_IN_AUTOMATION"] != "1" {
			t.Errorf("call %d: env %v, want CHECKPOINT_DISABLE=1 and TF_IN_AUTOMATION=1", i, c.Env)
		}
		for _, k := range []string{"TF_VAR_subnet", "TF_CLI_ARGS_plan", "TF_DATA_DIR"} {
			if v, ok := c.Env[k]; ok {
				t.Errorf("call %d: %s=%s reached Terraform", i, k, v)
			}
		}
	}

	// The variables file holds the variables, and only it.
	b, err := os.ReadFile(varFile)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	wantVars := map[string]any{
		"run_id": "r1",
		"hosts":  []any{map[string]any{"name": "db-1", "role": "db"}},
		"subnet": "10.9.0.0/24",
	}
	if !reflect.DeepEqual(got, wantVars) {
		t.Errorf("variables file: got %v, want %v", got, wantVars)
	}
	if st, _ := os.Stat(varFile); st.Mode().Perm() != 0o600 {
		t.Errorf("variables file mode %v, want 0600", st.Mode().Perm())
	}

	// The module was copied, without Terraform's working files.
	for _, name := range []string{"main.tf", "outputs.tf", "README.md", "scripts/a.sh"} {
		if _, err := os.Stat(filepath.Join(wd, name)); err != nil {
			t.Errorf("module file %s not copied: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(wd, ".terraform", "junk")); err == nil {
		t.Error(".terraform/ was copied from the module")
	}
	if b, _ := os.ReadFile(filepath.Join(wd, StateFileName)); string(b) == "not copied\n" {
		t.Error("the module's state file was copied over the run's")
	}

	wantHosts := []infra.Host{
		{Name: "db-1", Roles: []infra.Role{infra.RoleDB}, PublicIP: "10.9.0.2", PrivateIP: "10.9.0.2", Zone: "local"},
		{Name: "client-1", Roles: []infra.Role{infra.RoleClient}, PublicIP: "10.9.0.3", PrivateIP: "10.9.0.3", Zone: "local"},
	}
	if !reflect.DeepEqual(hosts, wantHosts) {
		t.Errorf("hosts:\n got %+v\nwant %+v", hosts, wantHosts)
	}

	// Terraform's output went to the run's log, each command under a header.
	log, err := os.ReadFile(filepath.Join(runDir, "logs", "terraform.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"terraform init (", "Terraform has been successfully initialized!",
		"terraform plan (", "Plan: 4 to add", "running Terraform command: " + f.Bin + " plan",
		"Apply complete!", "\"db-1\"", "Destroy complete!", "terraform destroy done in",
	} {
		if !strings.Contains(string(log), want) {
			t.Errorf("terraform.log lacks %q:\n%s", want, log)
		}
	}
}

// TestStackFailureSurfacesStderr checks that a failing command's error is
// Terraform's own message, classified as an infrastructure failure, and that
// the whole output is in the log.
func TestStackFailureSurfacesStderr(t *testing.T) {
	f := newFake(t, TestedVersion)
	// What Terraform prints when a local-exec provisioner fails: a warning
	// first, then the diagnostic wrapped at 78 columns.
	f.Fail(t, "apply", `
Warning: Unable to open CLI configuration file

The CLI configuration file at "/root/.terraformrc" does not exist.

Error: local-exec provisioner error

  with terraform_data.network,
  on main.tf line 40, in resource "terraform_data" "network":
  40:   provisioner "local-exec" {

Error running command 'exec /bin/bash "$SCRIPT" up': exit status 2. Output:
hosts.sh: error: subnet 192.0.2.0/25 overlaps routes of this machine:
192.0.2.0/24 dev eth0 (unicast, table main)
`)
	runDir := t.TempDir()
	ctx := context.Background()
	s, err := New(ctx, testModule, runDir, Binary(f.Bin), Vars(testVars))
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
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("error %T is not a *terraform.Error: %v", err, err)
	}
	if te.Command != "apply" {
		t.Errorf("command %q, want apply", te.Command)
	}
	if got := exitcode.Of(err); got != exitcode.Infra {
		t.Errorf("exit code %d, want %d", got, exitcode.Infra)
	}
	msg := err.Error()
	t.Logf("the error: %s", msg)
	for _, want := range []string{
		"terraform apply: exit status 1: Error: local-exec provisioner error",
		"hosts.sh: error: subnet 192.0.2.0/25 overlaps routes of this machine: 192.0.2.0/24 dev eth0",
		filepath.Join(runDir, "logs", "terraform.log"),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "terraformrc") {
		t.Errorf("error repeats the warning before the error:\n%s", msg)
	}
	log, _ := os.ReadFile(filepath.Join(runDir, "logs", "terraform.log"))
	for _, want := range []string{"apply output before the failure", "overlaps routes of this machine:", "terraform apply failed after"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("terraform.log lacks %q:\n%s", want, log)
		}
	}
}

func TestDestroyWithoutStateRunsNothing(t *testing.T) {
	f := newFake(t, TestedVersion)
	ctx := context.Background()
	s, err := New(ctx, nil, t.TempDir(), Binary(f.Bin))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if calls := f.Calls(t); len(calls) != 1 || calls[0].Args[0] != "version" {
		t.Errorf("calls %+v, want only the version check", calls)
	}
}

func TestInitNeedsAModule(t *testing.T) {
	f := newFake(t, TestedVersion)
	ctx := context.Background()
	s, err := New(ctx, fstest.MapFS{"README.md": {Data: []byte("x")}}, t.TempDir(), Binary(f.Bin))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(ctx); err == nil || !strings.Contains(err.Error(), "no .tf files") {
		t.Errorf("Init of a module without .tf files: %v", err)
	}
}

// TestVersions: the modules' required_version is ">= 1.5.0", so every
// release from 1.5.0 on is accepted (and reported as it is) and anything
// older, a pre-release of 1.5.0 included, is refused with exit 2.
func TestVersions(t *testing.T) {
	for _, tt := range []struct {
		version string
		ok      bool
	}{
		{"1.4.7", false}, {"1.5.0-beta1", false}, {"0.15.5", false},
		{"1.5.0", true}, {"1.5.7", true}, {"1.6.0", true}, {"1.11.4", true}, {"2.0.0", true},
	} {
		t.Run(tt.version, func(t *testing.T) {
			f := newFake(t, tt.version)
			s, err := New(context.Background(), testModule, t.TempDir(), Binary(f.Bin))
			if tt.ok {
				if err != nil {
					t.Fatalf("terraform %s refused: %v", tt.version, err)
				}
				if s.Version() != tt.version {
					t.Errorf("Version() = %q, want the binary's %q", s.Version(), tt.version)
				}
				return
			}
			if err == nil {
				t.Fatalf("terraform %s accepted", tt.version)
			}
			for _, want := range []string{"is version " + tt.version, "needs 1.5.0 or later", "go install github.com/hashicorp/terraform@v1.5.7"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
			}
		})
	}
}

// TestCheckBinary: the check made before a run is created accepts and
// refuses what New does, and reports the version the binary gave.
func TestCheckBinary(t *testing.T) {
	for _, tt := range []struct {
		version string
		ok      bool
	}{{"1.4.7", false}, {"1.5.0-beta1", false}, {"1.5.0", true}, {"1.11.4", true}} {
		f := newFake(t, tt.version)
		v, err := CheckBinary(context.Background(), f.Bin)
		if tt.ok != (err == nil) || v != tt.version {
			t.Errorf("terraform %s: version %q, error %v (want ok %v)", tt.version, v, err, tt.ok)
		}
		if err != nil && (exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "needs 1.5.0 or later")) {
			t.Errorf("terraform %s: exit %d: %v", tt.version, exitcode.Of(err), err)
		}
	}
	if _, err := CheckBinary(context.Background(), filepath.Join(t.TempDir(), "terraform")); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a missing binary: exit %d: %v", exitcode.Of(err), err)
	}
}

func TestFindBinary(t *testing.T) {
	f := newFake(t, TestedVersion)
	empty := t.TempDir()
	notExec := filepath.Join(empty, "terraform-not-exec")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		explicit  string
		env, path string
		want      string // the path found, or
		wantErr   string // a piece of the error
	}{
		{name: "explicit wins", explicit: f.Bin, env: "/nonexistent/terraform", path: empty, want: f.Bin},
		{name: "environment", env: f.Bin, path: empty, want: f.Bin},
		{name: "PATH", path: f.Dir, want: f.Bin},
		{name: "explicit missing", explicit: "/nonexistent/terraform", path: f.Dir,
			wantErr: "terraform not found at /nonexistent/terraform (the explicit path): no such file or directory"},
		{name: "environment missing", env: "/nonexistent/tf", path: f.Dir, wantErr: "(" + "$" + EnvBinary + ")"},
		{name: "not executable", explicit: notExec, wantErr: "is not an executable file"},
		{name: "nowhere", path: empty, wantErr: "terraform not found on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvBinary, tt.env)
			t.Setenv("PATH", tt.path)
			got, err := FindBinary(tt.explicit)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("found %q, want an error", got)
			}
			for _, want := range []string{tt.wantErr, "go install github.com/hashicorp/terraform@v1.5.7", "scripts/testenv/tools.sh up .testenv"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
			}
		})
	}
}

// TestUpStopsAtAFailure: a plan that fails stops Up before apply and
// output, with Terraform's own complaint.
func TestUpStopsAtAFailure(t *testing.T) {
	f := newFake(t, TestedVersion)
	f.Fail(t, "plan", "Error: Invalid reference")
	s, err := New(context.Background(), testModule, t.TempDir(), Binary(f.Bin), Vars(testVars))
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := s.Up(context.Background())
	if err == nil || hosts != nil || !strings.Contains(err.Error(), "Error: Invalid reference") {
		t.Fatalf("Up: %v, %v; want plan's failure", hosts, err)
	}
	if verbs, want := tftest.Verbs(f.Calls(t)), []string{"version", "init", "plan"}; !reflect.DeepEqual(verbs, want) {
		t.Errorf("calls %v, want %v", verbs, want)
	}
}

// TestRunBinary: the configured terraform wins; else the one recorded
// with the run while it is still a file; else none (New's own search).
func TestRunBinary(t *testing.T) {
	f := newFake(t, TestedVersion)
	for _, tt := range []struct{ name, configured, recorded, want string }{
		{"configured wins", "/opt/terraform", f.Bin, "/opt/terraform"},
		{"recorded", "", f.Bin, f.Bin},
		{"recorded is gone", "", filepath.Join(f.Dir, "gone"), ""},
		{"recorded is a directory", "", f.Dir, ""},
		{"nothing", "", "", ""},
	} {
		if got := RunBinary(tt.configured, tt.recorded); got != tt.want {
			t.Errorf("%s: RunBinary(%q, %q) = %q, want %q", tt.name, tt.configured, tt.recorded, got, tt.want)
		}
	}
}

func TestParseHosts(t *testing.T) {
	out := func(value string) map[string]tfexec.OutputMeta {
		return map[string]tfexec.OutputMeta{"hosts": {Value: json.RawMessage(value)}}
	}
	tests := []struct {
		name    string
		outputs map[string]tfexec.OutputMeta
		errs    [][]string // per host, pieces of its Errors
		wantErr string
	}{
		{name: "good", outputs: out(`[{"name":"a","role":"db","public_ip":"10.0.0.2","private_ip":"10.1.0.2","zone":"z"}]`),
			errs: [][]string{nil}},
		{name: "cloud", outputs: out(`[{"name":"a","role":"db","public_ip":"198.51.100.7","private_ip":"10.42.1.5","zone":"us-west-2a","provider_id":"i-0123456789abcdef0","instance_type":"c5.4xlarge"}]`),
			errs: [][]string{nil}},
		{name: "no output", outputs: map[string]tfexec.OutputMeta{}, wantErr: `no "hosts" output`},
		{name: "not a list", outputs: out(`{"name":"a"}`), wantErr: "is not a list"},
		{name: "defects", outputs: out(`[
			{"name":"","role":"db","public_ip":"10.0.0.2","private_ip":"10.0.0.2"},
			{"name":"b","role":"master","public_ip":"10.0.0.300","private_ip":"10.0.0.3"},
			{"name":"b","role":"client","public_ip":"10.0.0.4","private_ip":""}]`),
			errs: [][]string{{"has no name"}, {`role "master"`, `public_ip "10.0.0.300"`}, {"given twice", `private_ip ""`}}},
		{name: "unsafe name", outputs: out(`[{"name":"../db 1","role":"db","public_ip":"10.0.0.2","private_ip":"10.1.0.2"}]`),
			errs: [][]string{{`name "../db 1": want 1 to 63 letters`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, err := parseHosts(tt.outputs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(hosts) != len(tt.errs) {
				t.Fatalf("%d hosts, want %d", len(hosts), len(tt.errs))
			}
			for i, h := range hosts {
				if len(h.Errors) != len(tt.errs[i]) {
					t.Errorf("host %d errors %q, want %d", i, h.Errors, len(tt.errs[i]))
					continue
				}
				for j, want := range tt.errs[i] {
					if !strings.Contains(h.Errors[j], want) {
						t.Errorf("host %d error %q lacks %q", i, h.Errors[j], want)
					}
				}
			}
			if tt.name == "good" {
				want := infra.Host{Name: "a", Roles: []infra.Role{infra.RoleDB}, PublicIP: "10.0.0.2", PrivateIP: "10.1.0.2", Zone: "z"}
				if !reflect.DeepEqual(hosts[0], want) {
					t.Errorf("got %+v, want %+v", hosts[0], want)
				}
			}
			// The cloud modules' optional keys reach the host.
			if tt.name == "cloud" {
				want := infra.Host{Name: "a", Roles: []infra.Role{infra.RoleDB}, PublicIP: "198.51.100.7", PrivateIP: "10.42.1.5",
					Zone: "us-west-2a", ProviderID: "i-0123456789abcdef0", InstanceType: "c5.4xlarge"}
				if !reflect.DeepEqual(hosts[0], want) {
					t.Errorf("got %+v, want %+v", hosts[0], want)
				}
			}
		})
	}
}

func TestDiagnostics(t *testing.T) {
	long := "Error: " + strings.Repeat("x ", maxDiagnostics)
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain failure\n", "plain failure"},
		{"Warning: w\n\n╷\n│ Error: bad thing\n│ \n│   on main.tf line 1\n╵\n", "Error: bad thing on main.tf line 1"},
		{"noise\nError: a\nwrapped\nmessage\nError: b\n", "Error: a wrapped message Error: b"},
	}
	for _, tt := range tests {
		if got := diagnostics(tt.in); got != tt.want {
			t.Errorf("diagnostics(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := diagnostics(long); len([]rune(got)) != maxDiagnostics+1 || !strings.HasPrefix(got, "…") {
		t.Errorf("a long message is not cut to its end: %d runes", len([]rune(got)))
	}
}

func TestEnvironmentDropsYBBenchSettings(t *testing.T) {
	env := environment([]string{"PATH=/usr/bin", "YBBENCH_YB_TARBALL=https://h/x.tgz?token=SECRET", "YBBENCH_TERRAFORM=/bin/terraform", "TF_DATA_DIR=/x"})
	for k, v := range env {
		if strings.HasPrefix(k, "YBBENCH_") || strings.Contains(v, "SECRET") {
			t.Errorf("Terraform's environment keeps %s=%s", k, v)
		}
	}
	if env["PATH"] != "/usr/bin" || env["CHECKPOINT_DISABLE"] != "1" {
		t.Errorf("environment %v", env)
	}
}
