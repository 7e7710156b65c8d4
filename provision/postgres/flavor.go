// Package postgres is the "postgres" database flavor: Debian's PostgreSQL,
// a primary on the first db host and streaming replicas on the others,
// with commits acknowledged by a quorum of standbys (ANY n/2), the closest
// analogue of YugabyteDB's RF=3 on one primary. The primary is the YSQL
// endpoint. It stands in for YugabyteDB where its tarball cannot be had.
//
// Everything the flavor writes on a host lives in the run's own directory
// under the host's first data directory (or its base when it has none):
// OwnDir(parent)/postgres (data, run, log, pgpass) and OwnDir(parent)/pgs,
// the server's socket directory, 0700 and the service user's. The server
// is closed by default: no trust, the flavor's own scripts reach it as
// postgres only over that socket (peer authentication mapped from the
// service user), and over TCP only the cluster's hosts, each by its /32,
// with SCRAM passwords the orchestrator generated.
package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Defaults of the flavor.
const (
	DefaultPort     = 5433 // YSQL's port: clear of a distribution's cluster on 5432
	DefaultDBUser   = "ybbench"
	DefaultDatabase = "ycsb"
)

// Flavor installs the postgres flavor. Wipe and Stop take the run id from
// the cluster's Name: the pipeline names every cluster after its run.
type Flavor struct {
	// ReadyTimeout bounds the wait for the replicas to stream.
	ReadyTimeout time.Duration
}

var _ provision.Flavor = (*Flavor)(nil)

// Name is the flavor's name in specs and deployment.json.
const Name = "postgres"

// Name is "postgres".
func (f *Flavor) Name() string { return Name }

// FlavorTraits: a PostgreSQL primary with streaming replicas serves YSQL
// clients (the PostgreSQL wire protocol), from the hosts' packages.
func FlavorTraits() provision.FlavorTraits {
	return provision.FlavorTraits{APIs: []provision.API{provision.YSQL}}
}

// Describe: PostgreSQL comes from the db hosts' packages.
func (f *Flavor) Describe(provision.FlavorSpec) string { return "(the db hosts' PostgreSQL packages)" }

// Stop stops every db host's server (idempotent); a run directory another
// run made is refused, not stopped.
func (f *Flavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	if err := checkHosts(c); err != nil {
		return err
	}
	return f.each(ctx, r, c, func(ctx context.Context, h infra.Host) error {
		return runScript(ctx, r, h, "stop", newNode(h, c.Name, ""), "")
	})
}

// Wipe stops the servers and removes the run's own directory on each db
// host (the one the flavor claimed), nothing else: a directory another
// run or a user made stays, and is reported.
func (f *Flavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	if err := f.Stop(ctx, r, c); err != nil {
		return err
	}
	return f.each(ctx, r, c, func(ctx context.Context, h infra.Host) error {
		return provision.Release(ctx, r, h, c.Name, []string{parent(h)})
	})
}

func checkHosts(c *infra.Cluster) error {
	if problems := provision.CheckDBHosts(c.ByRole(infra.RoleDB)); len(problems) > 0 {
		return exitcode.Errorf(exitcode.Config, "postgres: refusing the db hosts:\n  %s", strings.Join(problems, "\n  "))
	}
	if c.Name == "" {
		return exitcode.Errorf(exitcode.Tool, "postgres: the cluster has no name (its run's id)")
	}
	return nil
}

func (f *Flavor) each(ctx context.Context, r provision.Runner, c *infra.Cluster, fn func(context.Context, infra.Host) error) error {
	_, err := provision.Parallel(ctx, c.ByRole(infra.RoleDB), provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		return struct{}{}, fn(ctx, h)
	})
	return exitcode.Wrap(exitcode.Provision, err)
}
