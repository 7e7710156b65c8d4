package cloudtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// Label keys a mapped host carries: what the cloud gave it, kept beside
// the local host's addresses that the stages use.
const (
	LabelCloudPublicIP  = "cloudtest.cloud_public_ip"
	LabelCloudPrivateIP = "cloudtest.cloud_private_ip"
	LabelCloud          = "cloudtest.cloud"
)

// simMetaPrefix prefixes the local cluster's meta inside the mapped
// cluster's, so that Destroy can give the local provider its own back.
const simMetaPrefix = "cloudtest.local."

// SimHostsDir is the directory, inside the run directory, of the local
// hosts the cloud hosts are mapped onto (their Terraform state, keys and
// logs apart from the cloud's).
const SimHostsDir = "simhosts"

// Mapped is a cloud provider whose hosts are each mapped onto a host of
// the local provider (a network namespace with its own sshd): Create
// makes the cloud's hosts with the real module and provider, then as
// many local hosts, and returns the cloud's hosts with the local hosts'
// addresses, SSH settings and directories. Destroy removes both. The
// cloud's instances (moto's) run nothing; this is what lets preflight,
// install, bench and collect run on a cloud-shaped run.
type Mapped struct {
	Cloud infra.Provider
	Local infra.Provider
	// Subnet is the local hosts' subnet (the local provider's option).
	Subnet string
}

var _ infra.Provider = (*Mapped)(nil)

// Name is the cloud's: the run, its cluster.json and its teardown say aws.
func (m *Mapped) Name() string { return m.Cloud.Name() }

// Traits are the cloud's, but the hosts are up when Create returns.
func (m *Mapped) Traits() infra.Traits {
	t := m.Cloud.Traits()
	t.Running = true
	return t
}

// Plan is the cloud's.
func (m *Mapped) Plan(spec infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	return m.Cloud.Plan(spec)
}

// Check is the cloud's, when it has one.
func (m *Mapped) Check(ctx context.Context, spec infra.ClusterSpec) error {
	if c, ok := m.Cloud.(infra.Checker); ok {
		return c.Check(ctx, spec)
	}
	return nil
}

// Create makes the cloud's hosts, then the local ones, and maps them in
// order.
func (m *Mapped) Create(ctx context.Context, spec infra.ClusterSpec) (*infra.Cluster, error) {
	cloud, err := m.Cloud.Create(ctx, spec)
	if err != nil {
		return nil, err
	}
	local, err := m.Local.Create(ctx, localSpec(spec, m.Subnet))
	if err != nil {
		return nil, fmt.Errorf("cloudtest: the local hosts the cloud's are mapped onto: %w", err)
	}
	return mapHosts(cloud, local)
}

func localSpec(spec infra.ClusterSpec, subnet string) infra.ClusterSpec {
	l := spec
	l.RunDir = filepath.Join(spec.RunDir, SimHostsDir)
	l.InstanceType, l.ClientType, l.Region, l.Zone = "", "", "", ""
	l.Disks = infra.Disks{}
	l.Options = map[string]string{}
	if subnet != "" {
		l.Options["subnet"] = subnet
	}
	return l
}

// mapHosts gives each cloud host the local host of its place: the
// addresses the orchestrator dials and the hosts use, SSH, directories.
// The cloud's identity stays: name, roles, region, zone, instance type and
// id; its addresses and its cloud are kept as labels (Host.Cloud is the
// local host's: it did not boot from the cloud's user data).
func mapHosts(cloud, local *infra.Cluster) (*infra.Cluster, error) {
	if len(cloud.Hosts) != len(local.Hosts) {
		return nil, fmt.Errorf("cloudtest: %d cloud hosts, %d local hosts to map them onto", len(cloud.Hosts), len(local.Hosts))
	}
	out := *cloud
	out.Hosts = make([]infra.Host, len(cloud.Hosts))
	out.Meta = maps.Clone(cloud.Meta)
	if out.Meta == nil {
		out.Meta = map[string]string{}
	}
	for k, v := range local.Meta {
		out.Meta[simMetaPrefix+k] = v
	}
	for i, h := range cloud.Hosts {
		l := local.Hosts[i]
		if !slices.Equal(h.Roles, l.Roles) {
			return nil, fmt.Errorf("cloudtest: cloud host %s (%v) and local host %s (%v) have different roles", h.Name, h.Roles, l.Name, l.Roles)
		}
		h.Labels = maps.Clone(h.Labels)
		if h.Labels == nil {
			h.Labels = map[string]string{}
		}
		h.Labels[LabelCloudPublicIP], h.Labels[LabelCloudPrivateIP] = h.PublicIP, h.PrivateIP
		h.PublicIP, h.PrivateIP = l.PublicIP, l.PrivateIP
		// The local host did not boot from the run's user data: the
		// preflight must not wait for its cloud-init or demand its data
		// disks' mounts, which only a real cloud host has.
		h.Labels[LabelCloud], h.Cloud = h.Cloud, l.Cloud
		h.SSH, h.Base, h.DataDirs, h.ServiceUser, h.Shared = l.SSH, l.Base, l.DataDirs, l.ServiceUser, l.Shared
		out.Hosts[i] = h
	}
	return &out, nil
}

// Destroy removes the local hosts, then the cloud's, and reports both.
func (m *Mapped) Destroy(ctx context.Context, c *infra.Cluster) error {
	local := &infra.Cluster{Name: c.Name, Provider: m.Local.Name(), Meta: map[string]string{}}
	cloud := *c
	cloud.Meta = map[string]string{}
	for k, v := range c.Meta {
		if name, ok := strings.CutPrefix(k, simMetaPrefix); ok {
			local.Meta[name] = v
		} else {
			cloud.Meta[k] = v
		}
	}
	if len(local.Meta) == 0 && c.Meta[infra.MetaRunDir] != "" {
		// Stopped during Create: the local hosts, if any were begun, are
		// in their directory of the run's.
		dir := filepath.Join(c.Meta[infra.MetaRunDir], SimHostsDir)
		if _, err := os.Stat(dir); err == nil {
			local.Meta[infra.MetaRunDir] = dir
		}
	}
	var errs []error
	if len(local.Meta) > 0 {
		if err := m.Local.Destroy(ctx, local); err != nil {
			errs = append(errs, fmt.Errorf("cloudtest: the local hosts: %w", err))
		}
	}
	if err := m.Cloud.Destroy(ctx, &cloud); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
