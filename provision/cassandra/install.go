package cassandra

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Install installs Cassandra on the cluster's db hosts and starts it:
//
//  1. check the spec, the hosts and the artifact cache (FlavorSpec.Source,
//     default DefaultSource()); build the tarball once on the
//     orchestrator (or reuse it);
//  2. on every db host at once: tools, service user, Java 11 or 17,
//     directories; upload the tarball unless the host already has it,
//     check its sha256, extract it under Base/cassandra/home;
//  3. one host at a time, the seed (the first db host) first: write the
//     node's cassandra.yaml and start it (a node already running with the
//     same configuration is kept), then wait until it has joined.
//
// The Deployment lists a YCQL endpoint per node, the server processes
// with their pid files, and in Settings the yaml keys written, the heap,
// the JVM and what each host did. Errors carry exit code 2 (bad spec,
// hosts or artifact cache) or 4 (provisioning). Nodes started before a
// failure keep running, for inspection; Stop or Wipe removes them.
func (f *Flavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep, err := f.install(ctx, r, c, s)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Provision, err)
	}
	return dep, nil
}

func (f *Flavor) install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	f.via.set(r)
	log := f.cfg.logger
	if s.Logger != nil {
		log = s.Logger
	}
	log = log.With("flavor", Name)
	start := time.Now()
	// 1. The spec, the credentials, the tarball.
	p, err := planInstall(c, s)
	if err != nil {
		return nil, err
	}
	cr, err := f.useCredentials(p, s.SecretsDir)
	if err != nil {
		return nil, err
	}
	tb, err := f.buildTarball(p, log)
	if err != nil {
		return nil, err
	}

	// 2. Every db host at once.
	par := provision.ParallelOptions{Limit: s.Parallel, FailFast: true}
	hosts, err := provision.Parallel(ctx, p.db, par, func(ctx context.Context, h infra.Host) (hostInstall, error) {
		return f.installHost(ctx, r, h, p, tb, log.With("host", h.Name))
	})
	if err != nil {
		return nil, fmt.Errorf("cassandra: install: %w", err)
	}
	log.Info("installed", "stage", "install", "elapsed", time.Since(start).Round(time.Millisecond))

	// 3. The seed, then the others one by one.
	dep := &provision.Deployment{Flavor: Name, Settings: map[string]string{}}
	obs, yamls, err := f.startNodes(ctx, r, p, hosts, dep.Settings, log)
	if err != nil {
		return nil, err
	}
	log.Info("ready", "elapsed", time.Since(start).Round(time.Millisecond), "seen", obs.summary())

	if err := f.enableAuth(ctx, p, cr, dep, log); err != nil {
		return nil, err
	}
	f.record(dep, p, hosts, obs, yamls, tb, s.RF)
	return dep, nil
}

// buildTarball builds the artifacts' tarball on the orchestrator, once for
// every host (or finds it built by an earlier run).
func (f *Flavor) buildTarball(p plan, log *slog.Logger) (tarball, error) {
	dir := f.cfg.tarballDir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(p.src.Dir), "dist")
	}
	tb, err := ensureTarball(p.src, dir)
	if err != nil {
		return tb, err
	}
	log.Info("artifacts", "stage", "tarball", "path", tb.Path, "sha256", tb.SHA256, "bytes", tb.Size, "built", tb.Built)
	return tb, nil
}
