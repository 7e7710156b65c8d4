package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/ybbench/ybbench/infra"
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

// profile returns the run's profile.
func (r *Run) profile() *profiles.Profile { return r.spec.P }
