package provision

import (
	"context"
	"log/slog"

	"github.com/ybbench/ybbench/infra"
)

// Flavor installs, starts and removes one database on a cluster's db hosts.
// Install covers install, configure, start and a real readiness check;
// everything it writes on a host stays under that host's Base (and
// DataDirs), and on Shared hosts it installs no packages and adds no users.
type Flavor interface {
	Name() string
	// Describe says where the software of an install with s would come
	// from, for `ybbench plan` (no secret of s.Source in it).
	Describe(s FlavorSpec) string
	Install(ctx context.Context, r Runner, c *infra.Cluster, s FlavorSpec) (*Deployment, error)
	// Stop stops the servers (idempotent).
	Stop(ctx context.Context, r Runner, c *infra.Cluster) error
	// Wipe stops the servers and removes everything the flavor wrote. The
	// run whose own directories it releases is c.Name: the pipeline names
	// every cluster after its run (FlavorSpec.RunID at Install).
	Wipe(ctx context.Context, r Runner, c *infra.Cluster) error
}

// API is a client protocol a deployment serves; its values are the
// profiles' bindings.
type API string

// The APIs.
const (
	YSQL API = "ysql" // PostgreSQL wire protocol
	YCQL API = "ycql" // CQL wire protocol
)

// FlavorTraits are what a flavor is, known without making one or
// installing anything: the run's settings are validated and its default
// flavor chosen from them instead of from the flavor's name.
type FlavorTraits struct {
	// APIs are the protocols its deployments serve; a profile whose
	// binding is not among them cannot run on it.
	APIs []API
	// Tarball: it installs from a release tarball (the yb_tarball
	// setting), which it needs; a run given a tarball and no flavor uses
	// it, and no run picks it by default without one.
	Tarball bool
}

// Serves reports whether the flavor's deployments serve api.
func (t FlavorTraits) Serves(api API) bool {
	for _, a := range t.APIs {
		if a == api {
			return true
		}
	}
	return false
}

// FlavorSpec is what a flavor is asked to install.
type FlavorSpec struct {
	// Version of the database (recorded; the flavor may check it).
	Version string
	// Source is where the software comes from: a release tarball URL or
	// local path (yugabyte), an artifact cache directory (cassandra), or
	// empty for the OS packages (postgres).
	Source string
	// SHA256 of the source tarball, when known.
	SHA256 string
	// RF is the replication factor.
	RF int
	// Settings override flavor defaults (server flags, configuration).
	Settings map[string]string
	// SecretsDir is a 0700 directory on the orchestrator for credentials.
	SecretsDir string
	// Parallel bounds fan-out over hosts (0: all at once).
	Parallel int
	Logger   *slog.Logger
	// RunID is the run installing (it marks the directories the run owns;
	// Wipe gets it as the cluster's Name) and ToolVersion ybbench's version.
	RunID, ToolVersion string
	// NoAuth asks for the seeds' unauthenticated setup (--db-auth=off);
	// by default every flavor generates credentials and allows no trust.
	NoAuth bool
}

// Endpoint is one database address.
type Endpoint struct {
	Host string `json:"host"` // the host's name in the cluster
	Addr string `json:"addr"` // address clients use
	Port int    `json:"port"`
}

// Deployment is what Install produced: runs/<id>/deployment.json.
type Deployment struct {
	Flavor  string     `json:"flavor"`
	Version string     `json:"version"`
	YSQL    []Endpoint `json:"ysql,omitempty"` // PostgreSQL wire protocol
	YCQL    []Endpoint `json:"ycql,omitempty"` // CQL wire protocol
	// User and PasswordFile are the database credentials clients use; the
	// password lives only in the 0600 file on the orchestrator.
	User         string `json:"user,omitempty"`
	PasswordFile string `json:"password_file,omitempty"`
	Database     string `json:"database,omitempty"`
	// Settings record everything that shapes a number (flags, config).
	Settings map[string]string `json:"settings,omitempty"`
	// Processes are the server processes per host, for CPU accounting and stop.
	Processes []Process `json:"processes,omitempty"`
	// HostChanges are what Install changed on each host outside the run's
	// own directories (host name → human-readable changes such as
	// "apt-get install postgresql" or "useradd ybbench"), so that the
	// ledger can record them with the step that made them.
	HostChanges map[string][]string `json:"host_changes,omitempty"`
}

// Process is one database server process on a host.
type Process struct {
	Host    string `json:"host"`
	Name    string `json:"name"`     // yb-master, yb-tserver, postgres, cassandra
	PIDFile string `json:"pid_file"` // path on the host
}
