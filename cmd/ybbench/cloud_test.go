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
	"github.com/ybbench/ybbench/internal/parts"
	"github.com/ybbench/ybbench/internal/pipeline"
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
		pl.Stages[0].What != "port 22 from "+pipeline.PlanAddress || p.checked != 0 {
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
