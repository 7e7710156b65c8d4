//go:build e2e

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	awsinfra "github.com/ybbench/ybbench/infra/aws"
	"github.com/ybbench/ybbench/infra/cloudtest"
	"github.com/ybbench/ybbench/infra/local"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// cloudShapedSubnet is the local hosts' subnet in this test, apart from
// every other test's.
const cloudShapedSubnet = "10.213.9.0/24"

// cloudShapedRegistry is the built-in registry whose aws provider is the
// real one (its module, its Terraform, the real AWS provider against
// moto) with each host mapped onto a local host (infra/cloudtest): the
// test's seam, which neither the command line nor a spec reaches.
func cloudShapedRegistry(t *testing.T) *parts.Registry {
	t.Helper()
	tf := os.Getenv("YBBENCH_TERRAFORM")
	reg := parts.Builtin()
	for i := range reg.Providers {
		if reg.Providers[i].Name != awsinfra.ProviderName {
			continue
		}
		// The mapped hosts are up when Create returns.
		reg.Providers[i].Traits.Running = true
		reg.Providers[i].New = func(o parts.ProviderOptions) (infra.Provider, error) {
			return &cloudtest.Mapped{
				Cloud:  awsinfra.New(awsinfra.Logger(o.Log), awsinfra.TerraformBinary(tf)),
				Local:  local.New(local.Logger(o.Log), local.TerraformBinary(tf)),
				Subnet: cloudShapedSubnet,
			}, nil
		}
	}
	return reg
}

// TestE2ECloudShapedRun: the whole pipeline on a cloud-shaped run. `up`
// applies terraform/aws with the real AWS provider against moto, then
// each of moto's hosts is mapped onto a local host; preflight, install,
// bench, collect, report and down run as on any run. The run says aws,
// c5.4xlarge and moto's instance ids and addresses; afterwards moto holds
// nothing of it and no local host is left.
func TestE2ECloudShapedRun(t *testing.T) {
	bin := binaries(t)
	r := realAWSEnv(t)
	runs := runsDir(t)
	ami := r.canonicalAMI(t)
	code, out := ybbenchWithRegistry(t, cloudShapedRegistry(t), "run", "ycsb-ysql", "--provider", "aws", "--image", ami,
		"--ssh-cidr", testSSHCIDR, "--runs-dir", runs, "--flavor", "postgres", "--agent", filepath.Join(bin, "ybload"),
		"--workloads", "workloadc", "--records", "2000", "--operations", "20000", "--duration", "10s", "--threads", "4", "--load-threads", "2")
	t.Logf("ybbench run (cloud-shaped) → exit %d\n%s", code, tail(out, 40))
	if code != 0 {
		// The whole log: a teardown that left resources says why
		// terraform destroy failed only well above its last lines.
		t.Fatalf("the cloud-shaped run: exit %d; its log:\n%s", code, tail(out, 400))
	}
	entries, _ := os.ReadDir(runs)
	var dir string
	for _, e := range entries {
		if e.IsDir() {
			dir = filepath.Join(runs, e.Name())
		}
	}
	if dir == "" {
		t.Fatal("no run directory")
	}
	id := filepath.Base(dir)

	// cluster.json: the cloud's hosts, reached at the local ones.
	c := readCluster(t, dir)
	if c.Provider != "aws" || len(c.Hosts) != 4 {
		t.Fatalf("cluster: provider %s, %d hosts", c.Provider, len(c.Hosts))
	}
	var ids []string
	for _, h := range c.Hosts {
		if h.Labels[cloudtest.LabelCloud] != "aws" || h.InstanceType != "c5.4xlarge" || !strings.HasPrefix(h.ProviderID, "i-") || h.Labels[cloudtest.LabelCloudPublicIP] == "" ||
			!strings.HasPrefix(h.PublicIP, "10.213.9.") {
			t.Errorf("host %s: cloud %s, type %s, id %s, moto's address %q, reached at %s", h.Name, h.Labels[cloudtest.LabelCloud], h.InstanceType, h.ProviderID,
				h.Labels[cloudtest.LabelCloudPublicIP], h.PublicIP)
		}
		ids = append(ids, h.ProviderID)
	}
	inst, err := r.ec.DescribeInstances(context.Background(), &ec2.DescribeInstancesInput{InstanceIds: ids})
	must(t, err)
	n := 0
	for _, res := range inst.Reservations {
		for _, i := range res.Instances {
			n++
			for _, h := range c.Hosts {
				// Terminated by now: moto keeps the private address only.
				if h.ProviderID == aws.ToString(i.InstanceId) && (h.Labels[cloudtest.LabelCloudPrivateIP] != aws.ToString(i.PrivateIpAddress) ||
					string(i.InstanceType) != h.InstanceType || i.State.Name != types.InstanceStateNameTerminated) {
					t.Errorf("%s: moto's %s at %s, %s; the run's %s at %s", h.Name, i.InstanceType, aws.ToString(i.PrivateIpAddress), i.State.Name,
						h.InstanceType, h.Labels[cloudtest.LabelCloudPrivateIP])
				}
			}
		}
	}
	if n != 4 {
		t.Errorf("moto knows %d of the run's 4 instances", n)
	}

	// The stages after up ran on the mapped hosts: results and reports.
	res := readResult(t, dir)
	if len(res.Workloads) != 1 || len(res.Workloads[0].Phases) != 2 || res.Workloads[0].Phases[1].Ops <= 0 {
		t.Fatalf("result.json: %+v", res.Workloads)
	}
	for _, f := range []string{"report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}

	// Torn down: nothing of the run in moto, no local host.
	checkGone(t, r, runs, id, nil)
	if br := c.Meta["cloudtest.local.bridge"]; br == "" || exec.Command("ip", "link", "show", br).Run() == nil {
		t.Errorf("the local hosts' bridge %q remains (or is not recorded)", br)
	}
	assertNothingRemains(t, dir, "10.213.9.")
}
