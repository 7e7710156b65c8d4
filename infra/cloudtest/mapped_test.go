package cloudtest

import (
	"context"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

// fakeProvider records what Destroy was given.
type fakeProvider struct {
	name      string
	destroyed *infra.Cluster
}

func (f *fakeProvider) Name() string         { return f.name }
func (f *fakeProvider) Traits() infra.Traits { return infra.Traits{} }
func (f *fakeProvider) Plan(infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	return nil, "", nil
}
func (f *fakeProvider) Create(context.Context, infra.ClusterSpec) (*infra.Cluster, error) {
	return nil, nil
}
func (f *fakeProvider) Destroy(_ context.Context, c *infra.Cluster) error {
	f.destroyed = c
	return nil
}

func TestMapHosts(t *testing.T) {
	cloud := &infra.Cluster{Name: "r1", Provider: "aws", Meta: map[string]string{"region": "us-east-1"}, Hosts: []infra.Host{
		{Name: "db-1", Roles: []infra.Role{infra.RoleDB}, Cloud: "aws", InstanceType: "c5.4xlarge", ProviderID: "i-1", PublicIP: "54.0.0.1", PrivateIP: "10.42.1.5",
			SSH: infra.SSH{User: "ubuntu", Port: 22}, Base: "/opt/ybbench"},
	}}
	local := &infra.Cluster{Name: "r1", Provider: "local", Meta: map[string]string{"bridge": "ybb0"}, Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}, Cloud: "local", PublicIP: "10.213.9.2", PrivateIP: "10.213.9.2",
			SSH: infra.SSH{User: "root", Port: 22, HostKey: "ssh-ed25519 AAAA"}, Base: "/runs/r1/hosts/db1", Shared: true},
	}}
	m, err := mapHosts(cloud, local)
	if err != nil {
		t.Fatal(err)
	}
	h := m.Hosts[0]
	if h.Name != "db-1" || h.ProviderID != "i-1" || h.InstanceType != "c5.4xlarge" || h.PublicIP != "10.213.9.2" || h.SSH.User != "root" ||
		h.Base != "/runs/r1/hosts/db1" || !h.Shared || h.Cloud != "local" {
		t.Errorf("mapped host: %+v", h)
	}
	if h.Labels[LabelCloud] != "aws" || h.Labels[LabelCloudPublicIP] != "54.0.0.1" || h.Labels[LabelCloudPrivateIP] != "10.42.1.5" {
		t.Errorf("labels: %v", h.Labels)
	}
	if m.Provider != "aws" || m.Meta["region"] != "us-east-1" || m.Meta[simMetaPrefix+"bridge"] != "ybb0" {
		t.Errorf("cluster: %s %v", m.Provider, m.Meta)
	}
	if cloud.Hosts[0].PublicIP != "54.0.0.1" {
		t.Error("mapHosts changed the cloud's cluster")
	}

	// Each side gets its own meta back.
	a, l := &fakeProvider{name: "aws"}, &fakeProvider{name: "local"}
	if err := (&Mapped{Cloud: a, Local: l}).Destroy(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if l.destroyed.Meta["bridge"] != "ybb0" || len(l.destroyed.Meta) != 1 || a.destroyed.Meta["region"] != "us-east-1" || a.destroyed.Meta["bridge"] != "" {
		t.Errorf("destroyed: local %v, cloud %v", l.destroyed.Meta, a.destroyed.Meta)
	}

	// Hosts of different roles in one place are not mapped.
	local.Hosts[0].Roles = []infra.Role{infra.RoleClient}
	if _, err := mapHosts(cloud, local); err == nil || !strings.Contains(err.Error(), "different roles") {
		t.Errorf("roles apart: %v", err)
	}
}

func TestModuleOverlay(t *testing.T) {
	const extra = "zz_override.tf"
	fsys, err := AWSModule(map[string]string{extra: "# a test's"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"main.tf", "versions.tf", extra} {
		if _, err := fsys.Open(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
