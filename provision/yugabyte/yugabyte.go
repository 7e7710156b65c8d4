// Package yugabyte is the YugabyteDB database flavor: it installs a release
// tarball on the db hosts, prepares the OS, starts yb-master on the first
// RF db hosts and then yb-tserver on every db host, waits until the
// master's HTTP API says the cluster is whole, and stops and wipes it
// again. It follows specs/yugabyte-deploy.md (the manual deployment of
// §1–§9); README.md in this directory says how much of it is exercised
// here and how.
package yugabyte

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/scriptrec"
)

// Name is the flavor's name in specs and deployment.json.
const Name = "yugabyte"

// Flavor installs YugabyteDB; build it with New.
type Flavor struct{ cfg config }

var _ provision.Flavor = (*Flavor)(nil)

type config struct {
	logger       *slog.Logger
	masterURL    func(h infra.Host) string
	httpClient   *http.Client
	readyTimeout time.Duration
	pollInterval time.Duration
	stopGrace    time.Duration
	allowUnknown bool
	thpDir       string
}

// Defaults of the options.
const (
	DefaultReadyTimeout = 5 * time.Minute
	DefaultPollInterval = time.Second
	DefaultStopGrace    = 30 * time.Second
	DefaultTHPDir       = "/sys/kernel/mm/transparent_hugepage"
)

// Option configures a Flavor.
type Option func(*config)

// WithLogger sets the logger (default: FlavorSpec.Logger in Install, else
// discard). FlavorSpec.Logger, when set, wins in Install.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithMasterURL sets how the orchestrator reaches a master's HTTP API: the
// base URL (scheme, host, port, optional path prefix) for each master
// host, dialed from the orchestrator. The default is
// http://<PrivateIP>:7000 from the master host itself when Install's
// runner can dial from its hosts (HostDialer: the SSH runner), else
// http://<PublicIP, or PrivateIP when empty>:7000 from the orchestrator.
// Tests point it at a server of their own.
func WithMasterURL(fn func(h infra.Host) string) Option {
	return func(c *config) { c.masterURL = fn }
}

// WithHTTPClient sets the client of the readiness check (default: a client
// with a 5 s timeout per request).
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithReadyTimeout bounds each of the two readiness waits: a leader after
// the masters start, the whole cluster after the tservers start.
func WithReadyTimeout(d time.Duration) Option { return func(c *config) { c.readyTimeout = d } }

// WithPollInterval sets how often the readiness check polls.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.pollInterval = d } }

// WithStopGrace sets how long a stop waits after SIGTERM before SIGKILL
// (whole seconds, at least 1).
func WithStopGrace(d time.Duration) Option { return func(c *config) { c.stopGrace = d } }

// AllowUnknownFlags lets FlavorSpec.Settings name flags this flavor does
// not know (outside specs/yugabyte-deploy.md §5 and §8). Such a flag goes
// to both servers unless prefixed master. or tserver.; the deployment's
// settings list them under "unknown_flags_allowed".
func AllowUnknownFlags() Option { return func(c *config) { c.allowUnknown = true } }

// WithTHPDir sets the transparent hugepage directory of the hosts (default
// /sys/kernel/mm/transparent_hugepage), for hosts that keep it elsewhere
// and for tests that must not touch the real one.
func WithTHPDir(dir string) Option { return func(c *config) { c.thpDir = dir } }

// New returns the flavor with its options.
func New(opts ...Option) *Flavor {
	cfg := config{
		readyTimeout: DefaultReadyTimeout,
		pollInterval: DefaultPollInterval,
		stopGrace:    DefaultStopGrace,
		thpDir:       DefaultTHPDir,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.httpClient == nil {
		cfg.httpClient = &http.Client{Timeout: 5 * time.Second}
	}
	return &Flavor{cfg: cfg}
}

func defaultMasterURL(h infra.Host) string {
	addr := h.PublicIP
	if addr == "" {
		addr = h.PrivateIP
	}
	return "http://" + net.JoinHostPort(addr, strconv.Itoa(masterHTTPPort))
}

// Name returns "yugabyte".
func (f *Flavor) Name() string { return Name }

// FlavorTraits: a YugabyteDB universe serves both YSQL and YCQL, and
// installs from a release tarball, which it needs.
func FlavorTraits() provision.FlavorTraits {
	return provision.FlavorTraits{APIs: []provision.API{provision.YSQL, provision.YCQL}, Tarball: true}
}

// Describe: YugabyteDB comes from the release tarball, named without the
// token or userinfo its URL may carry.
func (f *Flavor) Describe(s provision.FlavorSpec) string {
	return "from " + provision.RedactURL(s.Source)
}

func (f *Flavor) graceSeconds() int {
	return max(1, int(math.Ceil(f.cfg.stopGrace.Seconds())))
}

// api is the masters' HTTP API as Install's runner r lets the
// orchestrator reach it: WithMasterURL's URL directly, else through r
// from each master host, else the default URL directly.
func (f *Flavor) api(r provision.Runner) apiClient {
	c := apiClient{http: f.cfg.httpClient, base: f.cfg.masterURL}
	if c.base != nil {
		return c
	}
	if d, ok := r.(HostDialer); ok {
		c.base, c.dial = tunnelMasterURL, d.Dial
		return c
	}
	c.base = defaultMasterURL
	return c
}

// tunnelMasterURL is a master's API as seen from its own host: the
// address its webserver binds (webserver_interface).
func tunnelMasterURL(h infra.Host) string {
	return "http://" + net.JoinHostPort(h.PrivateIP, strconv.Itoa(masterHTTPPort))
}

// runScript runs a rendered script on a host and returns its records.
func runScript(ctx context.Context, r provision.Runner, h infra.Host, step, script string) (records, error) {
	return scriptrec.Run(ctx, r, h, step, script, "YBB ")
}

// runScriptIn is runScript with the script's standard input: how secrets
// (a tarball URL's token, passwords) reach a host without a command line,
// an environment or a file.
func runScriptIn(ctx context.Context, r provision.Runner, h infra.Host, step, script string, stdin io.Reader) (records, error) {
	if stdin == nil {
		return runScript(ctx, r, h, step, script)
	}
	return scriptrec.Run(ctx, r, h, step, script, "YBB ", provision.Stdin(stdin))
}

// Stop stops the servers on every db host by their pid files: the tservers
// first, then the masters; each with SIGTERM, a bounded wait, then
// SIGKILL. It is idempotent, and goes on past a host that fails.
func (f *Flavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	hosts, err := dbHostsForStop(c)
	if err != nil {
		return exitcode.Wrap(exitcode.Provision, err)
	}
	return exitcode.Wrap(exitcode.Provision, f.stopServers(ctx, r, c.Name, hosts, f.cfg.logger.With("flavor", Name, "stage", "stop")))
}

// stopServers stops the servers of run on hosts; servers in a ybbench/
// that is not run's are left alone.
func (f *Flavor) stopServers(ctx context.Context, r provision.Runner, run string, hosts []infra.Host, log *slog.Logger) error {
	for _, srv := range []server{tserver, master} {
		_, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
			l := layoutOf(h)
			script, err := renderStop(stopData{Host: h.Name, Grace: f.graceSeconds(), Procs: []proc{procOf(l, srv)}, RunID: run, layout: l})
			if err != nil {
				return struct{}{}, err
			}
			recs, err := runScript(ctx, r, h, "yugabyte-stop-"+string(srv), script)
			for _, s := range recs.All("stopped") {
				log.Info("stop", "host", h.Name, "server", srv, "result", s)
			}
			return struct{}{}, err
		})
		if err != nil {
			return fmt.Errorf("yugabyte: stopping %s: %w", srv, err)
		}
	}
	return nil
}

// Wipe stops the servers, then releases the run's own directories on
// every db host (provision.Release): OwnDir(Base) and OwnDir(d) for each
// data dir d, removed only when marked by this run, whose id is the
// cluster's name (the pipeline names every cluster after its run; Install
// marks with the same id). Nothing outside them is removed. It goes on
// past a host that fails.
func (f *Flavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	hosts, err := dbHostsForStop(c)
	if err != nil {
		return exitcode.Wrap(exitcode.Provision, err)
	}
	if c.Name == "" {
		return exitcode.Errorf(exitcode.Config, "yugabyte: wipe: the cluster has no name, so no run id to release the run's directories with")
	}
	log := f.cfg.logger.With("flavor", Name, "stage", "wipe")
	// Nothing is released while a server may still write in it: a host
	// whose stop failed keeps its directories.
	stopped := map[string]error{}
	for _, h := range hosts {
		stopped[h.Name] = f.stopServers(ctx, r, c.Name, []infra.Host{h}, log)
	}
	_, err = provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		if err := stopped[h.Name]; err != nil {
			return struct{}{}, fmt.Errorf("%s: not released, its servers did not stop: %w", h.Name, err)
		}
		if err := provision.Release(ctx, r, h, c.Name, provision.OwnParents(h)); err != nil {
			return struct{}{}, fmt.Errorf("%s: release: %w", h.Name, err)
		}
		log.Info("wiped", "host", h.Name, "released", strings.Join(provision.OwnParents(h), ","))
		return struct{}{}, nil
	})
	if err != nil {
		return exitcode.Wrap(exitcode.Provision, fmt.Errorf("yugabyte: wipe: %w", err))
	}
	return nil
}
