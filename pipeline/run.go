package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/parts"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

// Deps are the outside parts a run is built from; cmd/ybbench wires the
// real ones, tests may wire others.
type Deps struct {
	// Registry names the providers and flavors the settings are validated
	// against and their defaults come from (nil: the built-in registry).
	Registry *parts.Registry
	// Provider returns the provider of a spec.
	Provider func(s *Spec, runDir string) (infra.Provider, error)
	// Runner returns the runner that reaches the run's hosts.
	Runner func(s *Spec, runDir string, log *slog.Logger) (provision.Runner, error)
	// Flavor returns a database flavor by name.
	Flavor func(name string) (provision.Flavor, error)
	// NewKey makes the run's SSH key in dir and returns the public
	// authorized_keys line and the private key's path.
	NewKey func(dir string) (string, string, error)
	// Preflight checks the hosts (reachable, disk, ulimits, clock skew)
	// and returns facts per host.
	Preflight func(ctx context.Context, r provision.Runner, hosts []infra.Host, maxSkew time.Duration) (map[string]map[string]string, error)
	Progress  Progress
	Log       *slog.Logger
	// Args is the command line as typed (os.Args), Environ the process's
	// environment and Tool the orchestrator's name and version: recorded,
	// redacted, in invocations.json for the report. A nil Args records no
	// command.
	Args    []string
	Environ []string
	Tool    string
}

// registry is the registry of d (the built-in one when d names none).
func (d Deps) registry() *parts.Registry {
	if d.Registry != nil {
		return d.Registry
	}
	return builtin
}

// Run is one run of the pipeline, backed by its directory runs/<id>/.
type Run struct {
	deps    Deps
	spec    *Resolved
	dir     string
	ledger  *Ledger
	runner  provision.Runner
	prov    infra.Provider
	cluster *infra.Cluster
	dep     *provision.Deployment
	facts   map[string]map[string]string
	lock    *runLock
	gate    *Gate // run --gate: judge the results once collected
}

// Files of a run directory.
const (
	ClusterFile    = "cluster.json"
	DeploymentFile = "deployment.json"
	FactsFile      = "hosts.json"
	ResultFile     = "result.json"
	ReportFile     = "report.md"
)

// MaxIDLen is the longest run id: what the local provider (and its
// Terraform module) accepts, letters, digits, '.', '_' and '-'.
const MaxIDLen = 64

// NewID makes a run id: profile (cut short when needed), UTC date and
// minute (YYMMDD-HHMM), and 8 random hex digits (32 bits), at most
// MaxIDLen characters.
func NewID(profile string) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("run id: no randomness: %v", err)) // crypto/rand does not fail on Linux
	}
	// The minute is enough beside the random part (and keeps the paths of
	// the hosts' files, such as a database's Unix socket, short).
	tail := "-" + time.Now().UTC().Format("060102-1504") + "-" + hex.EncodeToString(b)
	p := []byte(profile)
	for i, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			p[i] = '-'
		}
	}
	if len(p) == 0 || !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z' || p[0] >= '0' && p[0] <= '9') {
		p = append([]byte("r"), p...)
	}
	if n := MaxIDLen - len(tail); len(p) > n {
		p = p[:n]
	}
	return string(p) + tail
}

// newID is the id source New uses (tests replace it).
var newID = NewID

// idAttempts bounds New's retries when a run directory of the id exists.
const idAttempts = 10

// New starts a run: its directory (created here, never shared: an id
// whose directory exists is drawn again), locked for the life of the
// process, and its ledger.
func New(s *Resolved, deps Deps) (*Run, error) {
	if err := os.MkdirAll(s.RunsDir, 0o755); err != nil {
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	var id, dir string
	for i := 0; ; i++ {
		id = newID(s.Profile)
		dir = filepath.Join(s.RunsDir, id)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i+1 == idAttempts {
			return nil, exitcode.Wrap(exitcode.Tool, fmt.Errorf("run directory: %w", err))
		}
	}
	lock, err := lockRun(dir)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	fail := func(err error) (*Run, error) {
		lock.release()
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	for _, d := range []string{"logs", "agents"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return fail(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "secrets"), 0o700); err != nil {
		return fail(err)
	}
	// A tarball URL's token or userinfo stays out of run.json: the ledger
	// holds the URL redacted, secrets/ the whole of it for Install.
	recorded := s.Spec
	if provision.URLHasSecret(s.YBTarball) {
		if err := os.WriteFile(filepath.Join(dir, "secrets", TarballURLFile), []byte(s.YBTarball+"\n"), 0o600); err != nil {
			return fail(err)
		}
		recorded.YBTarball = provision.RedactURL(s.YBTarball)
	}
	l, err := NewLedger(dir, id, recorded)
	if err != nil {
		return fail(err)
	}
	r := &Run{deps: deps, spec: s, dir: dir, ledger: l, lock: lock}
	if err := r.recordCreation(); err != nil {
		return fail(err)
	}
	return r, nil
}

// Open reopens a run from its directory (resume, down, collect, report),
// taking its lock for the life of the process (or until Close): a run held
// by another process is a *LockedError (exit 2) naming that process.
func Open(dir string, deps Deps) (*Run, error) {
	if _, err := os.Stat(filepath.Join(dir, "run.json")); err != nil {
		return nil, exitcode.Errorf(exitcode.Config, "run %s: %v", dir, err)
	}
	lock, err := lockRun(dir)
	if err != nil {
		var le *LockedError
		if errors.As(err, &le) {
			return nil, exitcode.Wrap(exitcode.Config, err)
		}
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	r, err := open(dir, deps)
	if err != nil {
		lock.release()
		return nil, err
	}
	r.lock = lock
	if err := r.recordInvocation(); err != nil {
		// What the report says of the commands is no reason to refuse a
		// teardown or a resume.
		r.log().Warn("recording the command in "+InvocationsFile, "err", err)
	}
	return r, nil
}

// Inspect opens a run to read it, without its lock (status).
func Inspect(dir string, deps Deps) (*Run, error) { return open(dir, deps) }

// Close releases the run's lock (the end of the process does too).
func (r *Run) Close() error {
	err := r.lock.release()
	r.lock = nil
	return err
}

func open(dir string, deps Deps) (*Run, error) {
	l, err := OpenLedger(dir)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.Config, "run %s: %v", dir, err)
	}
	rec := l.Record()
	spec := rec.Spec
	res, err := spec.resolve(deps.registry())
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	r := &Run{deps: deps, spec: res, dir: dir, ledger: l}
	if err := readJSON(filepath.Join(dir, ClusterFile), &r.cluster); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := readJSON(filepath.Join(dir, DeploymentFile), &r.dep); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	readJSON(filepath.Join(dir, FactsFile), &r.facts)
	return r, nil
}

// ID is the run's id; Dir its directory.
func (r *Run) ID() string      { return r.ledger.Record().ID }
func (r *Run) Dir() string     { return r.dir }
func (r *Run) Ledger() *Ledger { return r.ledger }

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func (r *Run) log() *slog.Logger {
	if r.deps.Log != nil {
		return r.deps.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (r *Run) progress() Progress {
	if r.deps.Progress != nil {
		return r.deps.Progress
	}
	return NewLines(os.Stderr)
}

// step runs fn as a ledger step: begun (with what it is about to do, to
// which hosts) before, ended after.
func (r *Run) step(name, about string, hosts []string, fn func() (map[string]string, error)) error {
	return r.stepWith(name, about, hosts, fn, stepOutcome)
}

// stepOutcome is how the progress says a step ended.
func stepOutcome(err error) string {
	if err != nil {
		return "failed: " + firstLine(err.Error())
	}
	return "done"
}

// firstLine is the first line of a (possibly joined) error's text.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// stepWith is step, the progress being told how it ended in outcome's
// words.
func (r *Run) stepWith(name, about string, hosts []string, fn func() (map[string]string, error), outcome func(error) string) (err error) {
	r.progress().Stage(name, about)
	defer func() { r.progress().End(name, outcome(err)) }()
	if err := r.ledger.Begin(name, about, hosts); err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	details, err := fn()
	if lerr := r.ledger.End(name, err, details); lerr != nil {
		// The step's own error (and exit code) comes first.
		err = errors.Join(err, exitcode.Wrap(exitcode.Tool, lerr))
	}
	return err
}

// needHosts makes the runner for a stage that works on the hosts: they
// must have been made (or taken) since the last teardown, and the run must
// not be finished (a finished run is not reopened).
func (r *Run) needHosts() error {
	if err := r.Finished(); err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	if r.cluster != nil && !r.ledger.Done("up") && r.ledger.Record().Epoch > 0 {
		return exitcode.Errorf(exitcode.Config, "run %s was torn down: its hosts are gone (ybbench resume --run %s makes them again and runs it)",
			r.dir, filepath.Base(r.dir))
	}
	return r.ensureRunner()
}

// ensureRunner makes the runner that reaches the hosts; every stage that
// needs one needs the cluster too, which only a finished up records.
func (r *Run) ensureRunner() error {
	if r.cluster == nil {
		return exitcode.Errorf(exitcode.Config, "run %s has no hosts: its up did not finish (ybbench resume --run %s continues it; ybbench down --run %s ends it)",
			r.dir, filepath.Base(r.dir), filepath.Base(r.dir))
	}
	if r.runner != nil {
		return nil
	}
	rn, err := r.deps.Runner(&r.spec.Spec, r.dir, r.log())
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	r.runner = rn
	return nil
}

// provider returns the run's provider (made once).
func (r *Run) provider() (infra.Provider, error) {
	if r.prov == nil {
		p, err := r.deps.Provider(&r.spec.Spec, r.dir)
		if err != nil {
			return nil, err
		}
		r.prov = p
	}
	return r.prov, nil
}

// profile returns the run's profile.
func (r *Run) profile() *profiles.Profile { return r.spec.P }

// hostNames lists hosts' names.
func hostNames(hs []infra.Host) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// Up creates the hosts (cluster.json). A cloud run's hosts are the
// profile's hardware for the provider; the step records the estimate of
// their cost and what the provider's check found (the cluster's Meta).
func (r *Run) Up(ctx context.Context) error {
	s := r.spec
	p, perr := r.provider()
	reg := r.deps.registry()
	spec, serr := s.clusterSpec(reg, r.profile())
	_, cloud := s.cloudOf(reg)
	about := fmt.Sprintf("create %d db and %d client hosts with provider %s", spec.DBHosts, spec.ClientHosts, s.Provider)
	if cloud {
		about += fmt.Sprintf(" (%s, client %s) in %s", spec.InstanceType, spec.ClientType, spec.Zone)
	}
	if perr == nil && p.Traits().ReusesMachines {
		about = "take the hosts of " + s.Provider + " " + s.Inventory
	}
	return r.step("up", about, nil, func() (map[string]string, error) {
		if perr != nil {
			return nil, perr
		}
		if serr != nil {
			return nil, exitcode.Wrap(exitcode.Config, serr)
		}
		if cloud && spec.Options[infra.OptionSSHCIDR] == "" {
			// Check looks the address up before a run is created; a run
			// made some other way must say whom SSH is open to.
			return nil, exitcode.Errorf(exitcode.Config, "%s: not set: the run's spec must say which addresses may reach the hosts' SSH port", sshCIDRSetting)
		}
		keyDir := filepath.Join(r.dir, "ssh")
		pub, priv := "", filepath.Join(keyDir, "id_ed25519")
		if b, err := os.ReadFile(priv + ".pub"); err == nil {
			pub = strings.TrimSpace(string(b))
		} else {
			if pub, priv, err = r.deps.NewKey(keyDir); err != nil {
				return nil, exitcode.Wrap(exitcode.Tool, err)
			}
		}
		spec.Name, spec.RunDir, spec.PublicKey, spec.PrivateKeyFile = r.ID(), r.dir, pub, priv
		if !cloud {
			// The documented types, for a provider that wants to know.
			spec.InstanceType, spec.ClientType = r.profile().Hardware.DB.Type, r.profile().Hardware.Client.Type
		}
		c, err := p.Create(ctx, spec)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Infra, err)
		}
		r.cluster = c
		// What the provider found and used (its check's facts, the
		// Terraform version, the zone a fallback chose).
		details := maps.Clone(c.Meta)
		if details == nil {
			details = map[string]string{}
		}
		details["hosts"] = strings.Join(hostNames(c.Hosts), ",")
		if cloud {
			maps.Copy(details, estimateDetails(spec, s.Provider))
		}
		for _, h := range c.Hosts {
			r.progress().Host(h.Name, "up at "+h.PublicIP)
			// Where each host's SSH key pin comes from, trust on first use included.
			if h.SSH.HostKeySource != "" {
				details[h.Name+".host_key_source"] = h.SSH.HostKeySource
			}
		}
		return details, atomicfile.WriteJSON(filepath.Join(r.dir, ClusterFile), c, 0o644)
	})
}

// Preflight checks every host: reachable, disk, ulimits, clock skew.
func (r *Run) Preflight(ctx context.Context) error {
	if err := r.needHosts(); err != nil {
		return err
	}
	return r.step("preflight", "check every host: reachable, disk, ulimits, clock skew", hostNames(r.cluster.Hosts), func() (map[string]string, error) {
		facts, err := r.deps.Preflight(ctx, r.runner, r.cluster.Hosts, r.spec.MaxClockSkew)
		r.facts = facts
		if werr := atomicfile.WriteJSON(filepath.Join(r.dir, FactsFile), facts, 0o644); werr != nil && err == nil {
			err = werr
		}
		details := map[string]string{}
		for h, f := range facts {
			if s, ok := f["clock_skew_ms"]; ok {
				details[h+".clock_skew_ms"] = s
			}
		}
		return details, exitcode.Wrap(exitcode.Provision, err)
	})
}

// Install installs and starts the database (deployment.json).
func (r *Run) Install(ctx context.Context) error {
	if err := r.needHosts(); err != nil {
		return err
	}
	dbs := r.cluster.ByRole(infra.RoleDB)
	return r.step("install", "install and start "+r.spec.Flavor+" on the db hosts", hostNames(dbs), func() (map[string]string, error) {
		fl, err := r.deps.Flavor(r.spec.Flavor)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Config, err)
		}
		src, err := r.tarball()
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Tool, err)
		}
		fs := provision.FlavorSpec{RF: min(3, len(dbs)), SecretsDir: filepath.Join(r.dir, "secrets"), Parallel: r.spec.Parallel,
			Logger: r.log(), Source: src, SHA256: r.spec.YBSHA256, Settings: map[string]string{},
			RunID: r.ID(), ToolVersion: Version, NoAuth: r.spec.DBAuth == "off"}
		dep, err := fl.Install(ctx, r.runner, r.cluster, fs)
		if err != nil {
			// A failed install may still have changed the hosts (a package,
			// a user): the flavor says so in a partial deployment, and the
			// ledger keeps it.
			var details map[string]string
			if dep != nil {
				details = installDetails(dep)
			}
			return details, exitcode.Wrap(exitcode.Provision, err)
		}
		r.dep = dep
		for _, h := range dbs {
			r.progress().Host(h.Name, fmt.Sprintf("%s %s running", dep.Flavor, dep.Version))
		}
		return installDetails(dep), atomicfile.WriteJSON(filepath.Join(r.dir, DeploymentFile), dep, 0o644)
	})
}

// installDetails are what the install step records in the ledger: the
// version, and what the flavor changed on each host outside the run's own
// directories (packages, users, kernel settings), so that an operator can
// see from run.json what a run left on their machines.
func installDetails(dep *provision.Deployment) map[string]string {
	d := map[string]string{}
	if dep.Version != "" {
		d["version"] = dep.Version
	}
	for h, changes := range dep.HostChanges {
		if len(changes) > 0 {
			d["host_changes."+h] = strings.Join(changes, "; ")
		}
	}
	if dep.Settings["auth"] == "off" {
		d["auth"] = "off"
	}
	return d
}

// benchStarted reports whether a bench step began since the last teardown
// (agents may be running).
func (r *Run) benchStarted() bool { return r.ledger.StartedAny("bench/") }

// agentsStarted reports whether the agent may have been put on the clients
// since the last teardown.
func (r *Run) agentsStarted() bool { return r.ledger.Started(agentsStep) || r.benchStarted() }

// Down tears the run down from what the ledger and the run directory say,
// even after the orchestrator was killed: the database is stopped and
// wiped and the agents' files removed (on an inventory, that is all: no
// machine is deleted); then the provider destroys the hosts. A teardown
// that cannot finish returns an error with exit code 6 saying what remains.
//
// Only what was begun since the last teardown is undone: a torn-down run
// on which nothing began since is "already torn down".
func (r *Run) Down(ctx context.Context) error {
	if r.ledger.Record().State == RunTornDown && !r.ledger.Open() {
		// The last frame of a down with nothing to do still says what is left.
		r.progress().End("down", "already torn down, nothing left")
		return nil
	}
	about := "wipe the database and the agents' files, destroy the hosts"
	reuses := false
	if p, err := r.provider(); err == nil && p.Traits().ReusesMachines {
		about = "stop and wipe the database and the agents' files (no machine is deleted)"
		reuses = true
	}
	left := r.hostChanges()
	err := r.stepWith("down", about, nil, func() (map[string]string, error) {
		err := r.down(ctx)
		return r.usage(err != nil), err
	}, func(err error) string { return teardownOutcome(err, reuses, left, r.dir) })
	if err != nil {
		remains := []string{err.Error()}
		if lerr := r.ledger.SetState(RunTeardownIncomplete, remains); lerr != nil {
			err = errors.Join(err, lerr)
		}
		return exitcode.Wrap(exitcode.Teardown, fmt.Errorf("teardown incomplete: %w\nresources may remain; run `ybbench down --run %s` to retry", err, r.dir))
	}
	if err := r.ledger.SetState(RunTornDown, nil); err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("the run was torn down, but the ledger does not say so: %w", err))
	}
	return nil
}

// usage is what the down step records of a cloud run's hosts: the hours
// from their creation (the cluster's, else the up step's start) to now,
// and their cost (usageDetails); nil for other providers, or when no up
// began since the last teardown.
func (r *Run) usage(remain bool) map[string]string {
	reg := r.deps.registry()
	if _, cloud := r.spec.cloudOf(reg); !cloud {
		return nil
	}
	var created time.Time
	if r.cluster != nil {
		created = r.cluster.CreatedAt
	}
	if created.IsZero() {
		rec := r.ledger.Record()
		for _, st := range rec.Steps {
			if st.Name == "up" && st.Epoch == rec.Epoch {
				created = st.Started
			}
		}
	}
	spec, err := r.spec.clusterSpec(reg, r.profile())
	if created.IsZero() || err != nil {
		return nil
	}
	return usageDetails(spec, r.spec.Provider, created, time.Now().UTC(), remain)
}

func (r *Run) down(ctx context.Context) error {
	var errs []error
	c := r.cluster
	if c == nil {
		// Stopped during up (killed, or a failed create): the provider
		// works from the run directory and, in a cloud, the region and
		// project the run's settings gave it.
		c = &infra.Cluster{Name: r.ID(), Provider: r.spec.Provider, Meta: map[string]string{infra.MetaRunDir: r.dir}}
		if spec, err := r.spec.clusterSpec(r.deps.registry(), r.profile()); err == nil {
			if spec.Region != "" {
				c.Meta[infra.MetaRegion] = spec.Region
			}
			if v := spec.Options[infra.OptionProject]; v != "" {
				c.Meta[infra.MetaProject] = v
			}
		}
	}
	if r.cluster != nil && (r.ledger.Started("install") || r.agentsStarted()) {
		// Only what the run may have put on the machines is wiped: a run
		// that stopped at the preflight has nothing to remove (and its
		// unreachable host is no reason to leave the others unwiped). An
		// inventory's machines stay, so a wipe that fails is a teardown
		// that failed; other providers delete the machines next, and a
		// wipe that fails there (a host already gone) is only a warning.
		p, perr := r.provider()
		if err := r.wipe(ctx, c); err != nil {
			if perr != nil || p.Traits().ReusesMachines {
				errs = append(errs, err)
			} else {
				r.log().Warn("wiping the hosts before they are destroyed", "err", err)
			}
		}
	}
	p, err := r.provider()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := p.Destroy(ctx, c); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// wipe stops and wipes the database when its install began, and releases
// the run's own directory on the clients (the agent's files) when the
// agent may have been put there, both since the last teardown.
func (r *Run) wipe(ctx context.Context, c *infra.Cluster) error {
	if err := r.ensureRunner(); err != nil {
		return err
	}
	var errs []error
	if fl, err := r.deps.Flavor(r.spec.Flavor); err == nil && r.ledger.Started("install") {
		if err := fl.Wipe(ctx, r.runner, c); err != nil {
			errs = append(errs, fmt.Errorf("wipe the database: %w", err))
		}
	}
	clients := c.ByRole(infra.RoleClient)
	if !r.agentsStarted() {
		clients = nil
	}
	if r.benchStarted() {
		// An orchestrator killed mid-bench leaves its agents running: they
		// are stopped before their directory goes.
		r.StopAgents(ctx)
	}
	// The agent's files are in the run's own directory under the base:
	// only a directory this run marked is removed.
	agents := r.agents()
	_, err := provision.Parallel(ctx, clients, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		return struct{}{}, agents.Remove(ctx, h)
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("remove the agents' files: %w", err))
	}
	return errors.Join(errs...)
}

// TarballURLFile is the file in secrets/ holding a tarball URL that
// carries a token or userinfo (run.json has it redacted).
const TarballURLFile = "yb-tarball-url"

// tarball is the yugabyte source as given: the whole URL from secrets/
// when the spec (read back from run.json) holds it redacted.
func (r *Run) tarball() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, "secrets", TarballURLFile))
	if errors.Is(err, os.ErrNotExist) {
		return r.spec.YBTarball, nil
	}
	if err != nil {
		return "", fmt.Errorf("the tarball URL: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
