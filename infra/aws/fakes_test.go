package aws

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// staticConfig is a ConfigFunc for an endpoint that takes any
// credentials (moto, or fakeEC2 below).
func staticConfig(url string) ConfigFunc {
	return func(ctx context.Context, region string) (aws.Config, error) {
		return config.LoadDefaultConfig(ctx, config.WithRegion(region), config.WithBaseEndpoint(url),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("testing", "testing", "")))
	}
}

// fakeEC2 is an EC2 endpoint that answers every call with an empty
// result (no resources) and records the actions asked for.
type fakeEC2 struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []string
}

func newFakeEC2(t *testing.T) *fakeEC2 {
	f := &fakeEC2{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		action := r.Form.Get("Action")
		f.mu.Lock()
		f.got = append(f.got, action)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<%sResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>fake</requestId></%sResponse>`, action, action)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEC2) actions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

// fakeTerraformScript stands in for terraform: it records each call (its
// arguments, working directory, the environment that matters here, and
// the modes of the working directory and of the variables file), and
// answers as Terraform would, writing its plan and state readable by all
// as Terraform 1.5.7 does. A file fail-<command> in its directory makes
// that command fail; leave-<command> is a command to run before it
// answers (a destroy that leaves something behind).
const fakeTerraformScript = `#!/bin/sh
umask 022
dir=@DIR@
{
  echo "--- call"
  echo "cwd $PWD"
  for a in "$@"; do echo "arg $a"; done
  env | LC_ALL=C sort | grep -E '^(TF_[A-Z_]*|CHECKPOINT_DISABLE|AWS_[A-Z_]*|YBBENCH_[A-Z_]*)=' | sed 's/^/env /'
  echo "mode . $(stat -c %a .)"
  [ -f terraform.tfvars.json ] && echo "mode terraform.tfvars.json $(stat -c %a terraform.tfvars.json)"
} >>"$dir/calls"
if [ "$1" = version ]; then
  echo '{"terraform_version":"1.5.7","platform":"linux_amd64","provider_selections":{},"terraform_outdated":false}'
  exit 0
fi
[ -f "$dir/leave-$1" ] && sh "$dir/leave-$1"
if [ -f "$dir/fail-$1" ]; then cat "$dir/fail-$1" >&2; exit 1; fi
case $1 in
init) echo "Terraform has been successfully initialized!" ;;
plan)
  for a in "$@"; do case $a in -out=*) echo "fake plan" >"${a#-out=}" ;; esac; done
  exit 2 ;;
apply) echo '{"version":4}' >terraform.tfstate ;;
output) cat "$dir/output.json" ;;
destroy) cp terraform.tfstate terraform.tfstate.backup; echo '{"version":4,"resources":[]}' >terraform.tfstate ;;
*) echo "fake terraform: unexpected command $1" >&2; exit 1 ;;
esac
`

// fakeTerraform is the fake's directory and binary.
type fakeTerraform struct{ dir, bin string }

func newFakeTerraform(t *testing.T) *fakeTerraform {
	t.Helper()
	dir := t.TempDir()
	f := &fakeTerraform{dir: dir, bin: filepath.Join(dir, "terraform")}
	if err := os.WriteFile(f.bin, []byte(strings.ReplaceAll(fakeTerraformScript, "@DIR@", dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	f.write(t, "output.json", fakeHostsOutput)
	return f
}

func (f *fakeTerraform) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tfCall is one recorded call.
type tfCall struct {
	cwd   string
	args  []string
	env   map[string]string
	modes map[string]string
}

func (f *fakeTerraform) calls(t *testing.T) []tfCall {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []tfCall
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if k == "---" {
			calls = append(calls, tfCall{env: map[string]string{}, modes: map[string]string{}})
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
			file, mode, _ := strings.Cut(v, " ")
			c.modes[file] = mode
		default:
			t.Fatalf("calls: unexpected line %q", line)
		}
	}
	return calls
}

// fakeHostsOutput is what terraform/aws's hosts output looks like for
// the c5 setup.
const fakeHostsOutput = `{
  "hosts": {
    "sensitive": false,
    "type": ["list", ["object", {"name": "string"}]],
    "value": [
      {"name": "db-1", "role": "db", "public_ip": "198.51.100.11", "private_ip": "10.42.1.11", "zone": "us-west-2a", "provider_id": "i-0000000000000000a", "instance_type": "c5.4xlarge"},
      {"name": "db-2", "role": "db", "public_ip": "198.51.100.12", "private_ip": "10.42.1.12", "zone": "us-west-2a", "provider_id": "i-0000000000000000b", "instance_type": "c5.4xlarge"},
      {"name": "db-3", "role": "db", "public_ip": "198.51.100.13", "private_ip": "10.42.1.13", "zone": "us-west-2a", "provider_id": "i-0000000000000000c", "instance_type": "c5.4xlarge"},
      {"name": "client-1", "role": "client", "public_ip": "198.51.100.14", "private_ip": "10.42.1.14", "zone": "us-west-2a", "provider_id": "i-0000000000000000d", "instance_type": "c5.4xlarge"}
    ]
  }
}`
