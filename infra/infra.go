// Package infra describes the machines a run uses, whatever made them:
// a Terraform module on AWS or GCP, network namespaces on this machine, or
// an on-prem inventory file. Every Provider yields the same Cluster, which
// the run keeps in runs/<id>/cluster.json.
package infra

import (
	"context"
	"fmt"
	"regexp"
	"time"
)

// Role is what a host is for.
type Role string

// The roles.
const (
	RoleDB     Role = "db"     // runs the database servers
	RoleClient Role = "client" // runs the load agents
)

// SSH is how the orchestrator reaches a host.
type SSH struct {
	User string `json:"user"`
	Port int    `json:"port"`
	// KeyFile is the private key to log in with (the run's own key, or the
	// inventory's).
	KeyFile string `json:"key_file"`
	// HostKey is the host's public key in authorized_keys format (several
	// keys, one a line, when the host is known by more than one): the pin
	// every connection must match. Empty: the key offered at first contact
	// is pinned in the run's known-hosts file.
	HostKey string `json:"host_key,omitempty"`
	// HostKeySource says where HostKey comes from (an inventory's
	// ssh.host_key, a known_hosts file), or "accepted-on-first-use" when
	// the run was told to trust a host it had no key for.
	HostKeySource string `json:"host_key_source,omitempty"`
}

// Host is one machine, provider-neutral, plain data.
type Host struct {
	Name  string `json:"name"`
	Roles []Role `json:"roles"`
	// PublicIP is the address the orchestrator dials; PrivateIP the one the
	// other hosts use (the same on a flat network).
	PublicIP     string `json:"public_ip"`
	PrivateIP    string `json:"private_ip"`
	Cloud        string `json:"cloud,omitempty"`
	Region       string `json:"region,omitempty"`
	Zone         string `json:"zone,omitempty"`
	InstanceType string `json:"instance_type,omitempty"`
	ProviderID   string `json:"provider_id,omitempty"`
	SSH          SSH    `json:"ssh"`
	// Base is the directory on the host for everything the run writes
	// there (software, configuration, logs, pids, agent files); on a local
	// host, runs/<id>/hosts/<name>. Flavors write nowhere else.
	Base string `json:"base"`
	// DataDirs are where database data goes (Base/data when empty).
	DataDirs []string `json:"data_dirs,omitempty"`
	// ServiceUser is the unprivileged OS user database servers run as.
	ServiceUser string `json:"service_user"`
	// Shared is set on hosts that share one filesystem, /etc/passwd and
	// package database with the orchestrator (local hosts): flavors must not
	// install packages or add users there.
	Shared bool              `json:"shared,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Errors []string          `json:"errors,omitempty"`
}

// The base directory and service user of a host that does not say
// otherwise: an inventory's defaults, and what the cloud providers give
// their hosts (which are not Shared, so the flavors may add the user).
const (
	// DefaultBase is where a run writes on such a host (Host.Base).
	DefaultBase = "/opt/ybbench"
	// DefaultServiceUser is the unprivileged OS user database servers
	// run as there (Host.ServiceUser), made by each flavor's prepare
	// script; never the login user.
	DefaultServiceUser = "ybbench"
)

// hostName is what a host's name may be: it names files (logs, agent
// records) and appears in scripts, so letters, digits and ._- only.
var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// ValidHostName reports whether name is usable as a host's name: 1 to 63
// letters, digits and ._-, starting with a letter or digit.
func ValidHostName(name string) bool { return hostName.MatchString(name) }

// runID is what a run id may be: what pipeline.NewID makes and
// the Terraform modules' run_id variables accept. It ends up in file
// names, tags, descriptions, shell comments and unit files.
var runID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// RunIDRule says what ValidRunID accepts, for messages that refuse an id.
const RunIDRule = "1-64 letters, digits and ._-, starting with a letter or digit"

// ValidRunID reports whether id is usable as a run id (RunIDRule).
func ValidRunID(id string) bool { return runID.MatchString(id) }

// Has reports whether the host has a role.
func (h *Host) Has(r Role) bool {
	for _, x := range h.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// Addr is the host:port the orchestrator dials for SSH.
func (h *Host) Addr() string { return fmt.Sprintf("%s:%d", h.PublicIP, h.SSH.Port) }

// Cluster is the set of hosts of one run.
type Cluster struct {
	Name      string            `json:"name"`
	Provider  string            `json:"provider"`
	Hosts     []Host            `json:"hosts"`
	CreatedAt time.Time         `json:"created_at"`
	ExpiresAt time.Time         `json:"expires_at,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
}

// MetaTerraformVersion is the Cluster.Meta key under which a provider that
// made the hosts with Terraform records the Terraform version it ran (any
// release from the modules' minimum on is accepted, so the run says which).
const MetaTerraformVersion = "terraform_version"

// MetaTerraformBinary is the Cluster.Meta key under which such a provider
// records the terraform executable it ran, for Destroy to run it again
// (terraform.RunBinary).
const MetaTerraformBinary = "terraform_binary"

// ByRole returns the hosts with a role, in cluster order.
func (c *Cluster) ByRole(r Role) []Host {
	var out []Host
	for _, h := range c.Hosts {
		if h.Has(r) {
			out = append(out, h)
		}
	}
	return out
}

// Host returns the host with a name.
func (c *Cluster) Host(name string) (*Host, bool) {
	for i := range c.Hosts {
		if c.Hosts[i].Name == name {
			return &c.Hosts[i], true
		}
	}
	return nil, false
}

// ClusterSpec says what a run needs.
type ClusterSpec struct {
	// Name is the run id; Create is idempotent by it.
	Name string
	// RunDir is runs/<id>: state, keys and logs live under it.
	RunDir       string
	DBHosts      int
	ClientHosts  int
	InstanceType string // db hosts
	ClientType   string // client hosts
	// Disks are each db host's data disks (cloud providers).
	Disks        Disks
	Region, Zone string
	Owner        string
	Lifetime     time.Duration
	// PublicKey is the run's SSH public key (authorized_keys line) and
	// PrivateKeyFile its private half, for the hosts' SSH settings.
	PublicKey      string
	PrivateKeyFile string
	// Options are provider-specific settings (subnet, inventory path, …).
	Options map[string]string
}

// Traits are what a provider's hosts are like: the pipeline asks these
// instead of matching the provider's name.
type Traits struct {
	// ReusesMachines: the hosts exist before the run and after it (an
	// on-prem inventory). Teardown stops and wipes what the run installed
	// and deletes no machine, so a wipe that fails is a teardown that
	// failed (elsewhere the machines are deleted next, and a failed wipe
	// is only a warning).
	ReusesMachines bool
	// Running: the hosts are up when Create returns, so a refused SSH
	// connection is an answer rather than a machine still booting.
	Running bool
	// NeedsRoot: making the hosts needs root on this machine.
	NeedsRoot bool
	// FromFile: the hosts are listed in an inventory file (the run's
	// inventory setting, which this provider needs and no other takes)
	// rather than made to the run's host counts.
	FromFile bool
	// DBHosts and ClientHosts bound how many hosts of each role the
	// provider makes to the run's counts; a zero Range: the counts do not
	// apply (the hosts are what the inventory lists).
	DBHosts, ClientHosts Range
	// TeardownLimit bounds a teardown of the provider's hosts (stopping
	// what runs on them, then Destroy); zero: the pipeline's default. Cloud
	// deletions wait on the cloud's own operations, which can take many
	// minutes.
	TeardownLimit time.Duration
}

// Range is an inclusive bound on a count; Max 0 means no bound applies.
type Range struct{ Min, Max int }

// Applies reports whether the range bounds anything.
func (r Range) Applies() bool { return r.Max > 0 }

// Holds reports whether n is within the range.
func (r Range) Holds(n int) bool { return n >= r.Min && n <= r.Max }

// PlannedHost is a host as `ybbench plan` shows it before it exists.
type PlannedHost struct {
	Name  string
	Roles []Role
	// Where says what the host is or where it is (a namespace on this
	// machine; an inventory's address and SSH user).
	Where string
}

// Provider makes and removes the hosts of a run.
type Provider interface {
	Name() string
	// Traits says what the provider's hosts are like.
	Traits() Traits
	// Plan says, without changing anything, which hosts Create would
	// return for spec and what Create would do.
	Plan(spec ClusterSpec) (hosts []PlannedHost, create string, err error)
	// Create makes the hosts; it is idempotent by spec.Name.
	Create(ctx context.Context, spec ClusterSpec) (*Cluster, error)
	// Destroy removes them, continuing past errors, and verifies that nothing
	// remains; an error lists what may remain.
	Destroy(ctx context.Context, c *Cluster) error
}

// Checker is a Provider that can say, before anything is made or touched,
// whether Create would accept a spec: its options, its host counts, the
// tools it runs on this machine, the files it reads. The pipeline asks it
// before a run is created, so that bad input leaves no run behind.
type Checker interface {
	Check(ctx context.Context, spec ClusterSpec) error
}

// SettingError is a problem with the value of one of the run's settings
// (Setting: a ClusterSpec option's name, such as "subnet"), so that the
// caller can say where that value came from.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }

// Unwrap returns the problem itself.
func (e *SettingError) Unwrap() error { return e.Err }
