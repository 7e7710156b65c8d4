// Package cassandra is the "cassandra" database flavor: Apache Cassandra
// 5.0 from the Maven Central artifacts the test environment caches
// (scripts/testenv/cassandra.sh), on every db host of a cluster, for the
// YCQL profiles (ycsb-ycql, kv-ycql) where no YugabyteDB can run.
//
// Install uploads the artifacts once per host (one tarball built on the
// orchestrator, sha256-checked, extracted under Base), checks Java 11 or
// 17 (installing openjdk-17-jre-headless with apt on hosts of our own,
// never on shared ones), writes each node's cassandra.yaml (num_tokens 1
// with an evenly spaced initial_token, auto_bootstrap false, the first db
// host as the seed, addresses and directories per host, a bounded heap),
// starts the seed and then the other nodes one by one as the service user,
// each detached with its own pid file and logs, and waits over CQL until
// each has joined: see ready.go. Stop signals the pid files; Wipe removes
// what the flavor wrote.
package cassandra

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/scriptrec"
)

// Name is the flavor's name in specs and deployment.json.
const Name = "cassandra"

// Defaults of the options.
const (
	// DefaultReadyTimeout bounds the wait for each node to join (a cold
	// JVM on a busy 2-core machine takes up to a minute).
	DefaultReadyTimeout = 4 * time.Minute
	DefaultPollInterval = time.Second
	// DefaultStopGrace is the time between SIGTERM and SIGKILL.
	DefaultStopGrace = 60 * time.Second
	// DefaultProbeTimeout bounds one CQL probe (connect and each query).
	DefaultProbeTimeout = 5 * time.Second
	// DefaultRingDelay is Cassandra's ring delay (30 s by default), which
	// a joining node waits out for its view of the ring; a fresh cluster
	// whose nodes start one by one needs little.
	DefaultRingDelay = 5 * time.Second
)

// Flavor installs Apache Cassandra; build it with New.
type Flavor struct {
	cfg config
	// logins are the credentials the probe tries, in order: set by
	// Install (the bench role, then Cassandra's default role while the
	// run's roles are not made yet).
	logins *loginList
	// via is the runner of the Install under way when it can dial from
	// the hosts (ready.go: the CQL ports may be closed to us).
	via *viaRunner
}

var _ provision.Flavor = (*Flavor)(nil)

type config struct {
	logger       *slog.Logger
	readyTimeout time.Duration
	pollInterval time.Duration
	stopGrace    time.Duration
	ringDelay    time.Duration
	cqlDial      func(h infra.Host) (string, DialFunc)
	probe        Probe
	tarballDir   string
}

// Option configures a Flavor.
type Option func(*config)

// WithLogger sets the logger (default: FlavorSpec.Logger in Install, else
// discard). FlavorSpec.Logger, when set, wins in Install.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithReadyTimeout bounds the wait for each node to join the cluster.
func WithReadyTimeout(d time.Duration) Option { return func(c *config) { c.readyTimeout = d } }

// WithPollInterval sets how often readiness is polled.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.pollInterval = d } }

// WithStopGrace sets how long a stop waits after SIGTERM before SIGKILL
// (whole seconds, at least 1).
func WithStopGrace(d time.Duration) Option { return func(c *config) { c.stopGrace = d } }

// WithRingDelay sets Cassandra's ring delay (-Dcassandra.ring_delay_ms).
func WithRingDelay(d time.Duration) Option { return func(c *config) { c.ringDelay = d } }

// WithCQLDial sets how the orchestrator reaches a node's CQL port for the
// readiness check and the roles it makes: the address to dial for host h
// and the function that dials it (nil: a plain TCP dial). The default
// dials <PrivateIP>:9042 from the node itself when Install's runner can
// (HostDialer: the SSH runner, through the host's SSH connection), else
// directly from the orchestrator.
func WithCQLDial(fn func(h infra.Host) (addr string, dial DialFunc)) Option {
	return func(c *config) { c.cqlDial = fn }
}

// WithProbe replaces the whole CQL probe of a node (WithCQLDial then has
// no effect).
func WithProbe(p Probe) Option { return func(c *config) { c.probe = p } }

// WithTarballDir sets where the orchestrator keeps the tarball it builds
// from the artifact cache (default: dist/ beside the cache's home, e.g.
// ~/.cache/ybbench/cassandra/5.0.9/dist).
func WithTarballDir(dir string) Option { return func(c *config) { c.tarballDir = dir } }

// New returns the flavor with its options.
func New(opts ...Option) *Flavor {
	cfg := config{
		readyTimeout: DefaultReadyTimeout,
		pollInterval: DefaultPollInterval,
		stopGrace:    DefaultStopGrace,
		ringDelay:    DefaultRingDelay,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	f := &Flavor{cfg: cfg, logins: &loginList{}, via: &viaRunner{}}
	if f.cfg.probe == nil {
		f.cfg.probe = gocqlProbe(f.target, DefaultProbeTimeout, f.logins.get)
	}
	return f
}

// Name returns "cassandra".
func (f *Flavor) Name() string { return Name }

// FlavorTraits: an Apache Cassandra ring serves YCQL clients (the CQL
// wire protocol), from the artifact cache.
func FlavorTraits() provision.FlavorTraits {
	return provision.FlavorTraits{APIs: []provision.API{provision.YCQL}}
}

// Describe: Cassandra comes from the artifact cache the test environment
// fills from Maven Central.
func (f *Flavor) Describe(provision.FlavorSpec) string {
	return "(Apache Cassandra from the test environment's Maven Central cache)"
}

func (f *Flavor) graceSeconds() int {
	return max(1, int(math.Ceil(f.cfg.stopGrace.Seconds())))
}

// Stop stops the node on every db host by its pid file: SIGTERM, a
// bounded wait, then SIGKILL. It is idempotent, and goes on past a host
// that fails.
func (f *Flavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	return exitcode.Wrap(exitcode.Provision, f.each(ctx, r, c, "stop", renderStop))
}

// Wipe stops the nodes, then releases the run's own directories on every
// db host (Base/ybbench and <data dir>/ybbench, each only when its marker
// names the run): the software, configuration, logs and data go, and
// nothing outside them is touched. The run is the cluster's Name (the
// pipeline names every cluster after its run). It is idempotent, and goes
// on past a host that fails.
func (f *Flavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	if c.Name == "" {
		return exitcode.Errorf(exitcode.Config, "cassandra: wipe: the cluster has no name, so no run whose directories to release")
	}
	return exitcode.Wrap(exitcode.Provision, f.each(ctx, r, c, "wipe", renderWipe))
}

func (f *Flavor) each(ctx context.Context, r provision.Runner, c *infra.Cluster, verb string, renderFn func(stopData) (string, error)) error {
	hosts := c.ByRole(infra.RoleDB)
	if err := checkHosts(hosts); err != nil {
		return err
	}
	log := f.cfg.logger.With("flavor", Name, "stage", verb)
	_, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		script, err := renderFn(stopData{Host: h.Name, Grace: f.graceSeconds(), RunID: c.Name, layout: layoutOf(h)})
		if err != nil {
			return struct{}{}, err
		}
		recs, err := runScript(ctx, r, h, "cassandra-"+verb, script)
		if s, ok := recs.Last("stopped"); ok {
			log.Info("stop", "host", h.Name, "result", s)
		}
		for _, o := range recs.All("own") {
			// removed DIR, absent DIR, or left DIR (not this run's).
			log.Info("own directory", "host", h.Name, "result", o)
		}
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("cassandra: %s: %w", verb, err)
	}
	return nil
}

// runScript runs a rendered script on a host and returns its records. A
// script that stopped in the own-directory library says why in the
// error's exit code: 2 for a refused path, 4 for a directory that is not
// the run's.
func runScript(ctx context.Context, r provision.Runner, h infra.Host, step, script string) (records, error) {
	return scriptrec.Run(ctx, r, h, step, script, "CASS ")
}
