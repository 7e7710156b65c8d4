package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// stubCloud stands in for a cloud provider (this version has none yet):
// its plan is pure, its check and create are recorded and refuse.
type stubCloud struct {
	mu      sync.Mutex
	checked int
	created int
}

func (p *stubCloud) Name() string         { return "stub-cloud" }
func (p *stubCloud) Traits() infra.Traits { return infra.Traits{} }
func (p *stubCloud) Plan(s infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	return []infra.PlannedHost{{Name: "db-1", Roles: []infra.Role{infra.RoleDB}, Where: s.InstanceType + " in " + s.Zone},
			{Name: "client-1", Roles: []infra.Role{infra.RoleClient}, Where: s.ClientType + " in " + s.Zone}},
		"port 22 from " + s.Options[infra.OptionSSHCIDR], nil
}
func (p *stubCloud) Check(context.Context, infra.ClusterSpec) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.checked++
	return errors.New("the stub cloud refuses every run")
}
func (p *stubCloud) Create(context.Context, infra.ClusterSpec) (*infra.Cluster, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.created++
	return nil, errors.New("the stub cloud makes nothing")
}
func (p *stubCloud) Destroy(context.Context, *infra.Cluster) error { return nil }

// cloudRoot runs ybbench in this process with p as the aws and gcp
// providers.
func cloudRoot(t *testing.T, p *stubCloud, args ...string) (int, string, error) {
	t.Helper()
	reg := parts.Builtin()
	for i := range reg.Providers {
		if reg.Providers[i].Cloud != nil {
			reg.Providers[i].Planned = false
			reg.Providers[i].New = func(parts.ProviderOptions) (infra.Provider, error) { return p, nil }
		}
	}
	var stdout, stderr bytes.Buffer
	root := newRootWith(&stdout, &stderr, reg)
	root.SetArgs(args)
	err := root.Execute()
	return exitcode.Of(err), stdout.String(), err
}

// plan for a cloud works without the cloud: no check, no lookup; its JSON
// carries the cloud's place and the cost.
func TestCloudPlanCommand(t *testing.T) {
	p := &stubCloud{}
	t.Setenv("YBBENCH_RUNS_DIR", t.TempDir())
	// A lookup URL nothing answers: plan must not ask it.
	code, out, err := cloudRoot(t, p, "plan", "kv-ycql", "--provider", "aws", "--ssh-cidr-lookup-url", "https://127.0.0.1:1/", "-o", "json")
	var pl pipeline.Plan
	if jerr := json.Unmarshal([]byte(out), &pl); code != 0 || jerr != nil {
		t.Fatalf("plan: exit %d (%v), %v:\n%s", code, err, jerr, out)
	}
	if pl.Cloud == nil || pl.Cloud.InstanceType != "i3.4xlarge" || pl.Cloud.SSHFrom != pipeline.PlanAddress || pl.Cost == nil || pl.Cost.UpperBoundUSD == nil ||
		pl.Stages[0].What != "port 22 from " || p.checked != 0 {
		t.Errorf("plan %+v, cost %+v, %d checks", pl.Cloud, pl.Cost, p.checked)
	}
}

// Bad input to a cloud run is refused before the cloud is asked and
// before a run is made; so is a failed address lookup.
func TestCloudBadInputCommand(t *testing.T) {
	runs := t.TempDir()
	p := &stubCloud{}
	code, _, err := cloudRoot(t, p, "up", "ycsb-ysql", "--provider", "gcp", "--runs-dir", runs, "--ssh-cidr", "0.0.0.0/0", "--lifetime", "200h", "--max-cost", "1")
	if code != exitcode.Config {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, w := range []string{"--provider: profile ycsb-ysql has no gcp hardware (it has: aws)", "--ssh-cidr: 0.0.0.0/0", "--lifetime: 200h0m0s",
		"project: the gcp provider needs the project"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	code, _, err = cloudRoot(t, p, "up", "--provider", "aws", "--region", "us-east-1", "--runs-dir", runs, "--ssh-cidr-lookup-url", "https://127.0.0.1:1/")
	if code != exitcode.Config || !strings.Contains(err.Error(), "ssh_cidr: not given, and this machine's public address could not be looked up at https://127.0.0.1:1/") {
		t.Errorf("failed lookup: exit %d: %v", code, err)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 || p.checked != 0 || p.created != 0 {
		t.Errorf("%d runs made, the cloud checked %d times, asked to create %d", len(entries), p.checked, p.created)
	}
	// Settings that pass go to the provider's check, whose refusal is
	// the command's (still no run).
	code, _, err = cloudRoot(t, p, "up", "--provider", "aws", "--region", "us-east-1", "--runs-dir", runs, "--ssh-cidr", "203.0.113.7/32")
	if code != exitcode.Config || !strings.Contains(err.Error(), "the stub cloud refuses every run") || p.checked != 1 {
		t.Errorf("the provider's check: exit %d: %v (%d checks)", code, err, p.checked)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 || p.created != 0 {
		t.Errorf("%d runs made, %d creates", len(entries), p.created)
	}
}

// plan with the real cloud providers needs no credentials and asks no
// API: with every AWS call pointed at a closed port, no AWS or Google
// credentials anywhere, it lists each profile's documented hardware, the
// rules, the lifetime and the cost.
func TestCloudPlanRealProvidersOffline(t *testing.T) {
	t.Setenv("YBBENCH_RUNS_DIR", t.TempDir())
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/ybbench-test")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/ybbench-test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/ybbench-test.json")
	t.Setenv("HOME", t.TempDir()) // no gcloud application default credentials
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"plan", "ycsb-ysql", "--provider", "aws"},
			[]string{"db-3", "c5.4xlarge in us-east-1a, 2 × gp3 250 GB data volumes", "TCP 22 only from", "every other port only from the subnet",
				"lifetime 6h0m0s", "hourly rate 2.90 USD; upper bound 17.39 USD", "excludes: tax"}},
		{[]string{"plan", "kv-ycql", "--provider", "aws", "--ssh-cidr", "198.51.100.0/24", "--lifetime", "2h"},
			[]string{"i3.4xlarge", "TCP 22 only from 198.51.100.0/24", "upper bound 9.98 USD"}},
		{[]string{"plan", "kv-ycql", "--provider", "gcp", "--project", "my-project"},
			[]string{"n1-standard-16", "us-central1-a", "2 × 375 GB local SSD", "ubuntu-os-cloud/ubuntu-2204-lts", "upper bound"}},
	} {
		var stdout, stderr bytes.Buffer
		root := newRootWith(&stdout, &stderr, parts.Builtin())
		root.SetArgs(c.args)
		err := root.Execute()
		if exitcode.Of(err) != 0 {
			t.Errorf("%v: exit %d: %v\n%s", c.args, exitcode.Of(err), err, stderr.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("%v: the plan lacks %q:\n%s", c.args, w, stdout.String())
			}
		}
	}
}
