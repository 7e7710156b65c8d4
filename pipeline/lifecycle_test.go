package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// fakeProvider counts its destroys and has the traits it is given.
type fakeProvider struct {
	destroyed int
	traits    infra.Traits
}

func (p *fakeProvider) Name() string         { return "fake" }
func (p *fakeProvider) Traits() infra.Traits { return p.traits }
func (p *fakeProvider) Plan(infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	return nil, "", errors.New("not in this test")
}
func (p *fakeProvider) Create(ctx context.Context, s infra.ClusterSpec) (*infra.Cluster, error) {
	return nil, errors.New("not in this test")
}
func (p *fakeProvider) Destroy(ctx context.Context, c *infra.Cluster) error {
	p.destroyed++
	return nil
}

// fakeRunner answers the agent check as an amd64 host, refuses uploads,
// and records the commands it was given.
type fakeRunner struct {
	mu   sync.Mutex
	cmds []string // host: script
}

func (f *fakeRunner) Run(ctx context.Context, h infra.Host, script string, _ ...provision.RunOption) (provision.Result, error) {
	f.mu.Lock()
	f.cmds = append(f.cmds, h.Name+": "+script)
	f.mu.Unlock()
	// What the agent check says on a host without the agent.
	return provision.Result{Host: h.Name, Stdout: []byte(`{"sha256":"","arch":"x86_64"}` + "\n")}, nil
}
func (f *fakeRunner) Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	return fmt.Errorf("%s: no space left on device", h.Name)
}
func (f *fakeRunner) Get(ctx context.Context, h infra.Host, src string, dst io.Writer) error {
	return errors.New("not in this test")
}

func (f *fakeRunner) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.cmds
	f.cmds = nil
	return out
}

func newTestRun(t *testing.T, edit func(*Spec), deps Deps) *Run {
	t.Helper()
	s := Defaults()
	s.RunsDir = t.TempDir()
	if edit != nil {
		edit(&s)
	}
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if deps.Progress == nil {
		deps.Progress = NewLines(io.Discard)
	}
	r, err := New(res, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Down tears down what was begun since the last teardown: a torn-down run
// that a later step reopened (resume, install, bench) is torn down again,
// and only a run with nothing begun since says "already torn down".
func TestDownAfterATornDownRunWasReopened(t *testing.T) {
	p := &fakeProvider{}
	r := newTestRun(t, nil, Deps{Provider: func(*Spec, string) (infra.Provider, error) { return p, nil }})
	ctx := context.Background()
	l := r.Ledger()
	for _, s := range []string{"up", "preflight"} {
		if err := l.Begin(s, "", nil); err != nil {
			t.Fatal(err)
		}
		l.End(s, nil, nil)
	}
	if err := r.Down(ctx); err != nil || p.destroyed != 1 {
		t.Fatalf("down: %v, %d destroys", err, p.destroyed)
	}
	if err := r.Down(ctx); err != nil || p.destroyed != 1 {
		t.Fatalf("a second down: %v, %d destroys; want already torn down", err, p.destroyed)
	}
	// A resume begins up again on the torn-down run.
	if err := l.Begin("up", "create the hosts again", nil); err != nil {
		t.Fatal(err)
	}
	if st := l.Record().State; st != RunActive {
		t.Fatalf("state %s after a step began on a torn-down run", st)
	}
	if err := r.Down(ctx); err != nil || p.destroyed != 2 {
		t.Fatalf("down after the run was reopened: %v, %d destroys; want 2", err, p.destroyed)
	}
	if st := l.Record().State; st != RunTornDown {
		t.Errorf("state %s", st)
	}
}

// The stages that work on hosts refuse a torn-down run (its hosts are
// gone) and say how to run it again, without reopening it.
func TestStagesRefuseATornDownRun(t *testing.T) {
	p := &fakeProvider{}
	r := newTestRun(t, nil, Deps{Provider: func(*Spec, string) (infra.Provider, error) { return p, nil }})
	r.cluster = &infra.Cluster{Name: r.ID(), Hosts: []infra.Host{{Name: "db-1", Roles: []infra.Role{infra.RoleDB}}}}
	r.ledger.Begin("up", "", nil)
	r.ledger.End("up", nil, nil)
	if err := r.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := r.Install(context.Background())
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "torn down") || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("install on a torn-down run: %v (exit %d)", err, exitcode.Of(err))
	}
	if st := r.Ledger().Record().State; st != RunTornDown {
		t.Errorf("a refused stage reopened the run: %s", st)
	}
}

// The agent goes on the clients inside a ledger step of its own, begun
// before the first byte is written: an upload that fails still leaves the
// step in the ledger, and an inventory's down removes the agent's files.
func TestAgentUploadIsALedgerStep(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "ybload")
	if err := os.WriteFile(agent, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fr := &fakeRunner{}
	p := &fakeProvider{}
	r := newTestRun(t, func(s *Spec) {
		s.Provider, s.Inventory, s.Agent = "inventory", "hosts.yaml", agent
	}, Deps{
		Provider: func(*Spec, string) (infra.Provider, error) { return p, nil },
		Runner:   func(*Spec, string, *slog.Logger) (provision.Runner, error) { return fr, nil },
		Flavor:   func(string) (provision.Flavor, error) { return nil, errors.New("no flavor in this test") },
	})
	client := infra.Host{Name: "client-1", Roles: []infra.Role{infra.RoleClient}, Base: "/srv/bench"}
	r.cluster = &infra.Cluster{Name: r.ID(), Provider: "inventory", Hosts: []infra.Host{
		{Name: "db-1", Roles: []infra.Role{infra.RoleDB}, Base: "/srv/bench"}, client}}
	r.ledger.Begin("up", "", nil)
	r.ledger.End("up", nil, nil)

	err := r.Bench(context.Background(), context.Background())
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("bench: %v; want the upload's failure", err)
	}
	var st *Step
	for _, s := range r.Ledger().Record().Steps {
		if s.Name == agentsStep {
			st = &s
		}
	}
	if st == nil || st.Status != StepFailed || len(st.Hosts) != 1 || st.Hosts[0] != "client-1" {
		t.Fatalf("ledger step %s: %+v; want it failed, on client-1", agentsStep, st)
	}
	// The run's own directory under the base is claimed before anything
	// else is done there.
	claim, err := provision.ClaimScript(provision.Mark{RunID: r.ID(), Version: Version}, []string{"/srv/bench"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if cmds := fr.take(); len(cmds) == 0 || cmds[0] != "client-1: "+claim {
		t.Errorf("the first command on client-1 is not the claim of /srv/bench/ybbench: %q", cmds)
	}
	if err := r.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	release, err := provision.ReleaseScript(r.ID(), []string{"/srv/bench"})
	if err != nil {
		t.Fatal(err)
	}
	removed := false
	for _, c := range fr.take() {
		removed = removed || c == "client-1: "+release
	}
	if !removed {
		t.Errorf("down did not release the run's directory (the agent's files) on client-1")
	}
}

// The run directory is held by one process at a time: a second Open (the
// CLI's way into a run) is refused with exit 2 naming the holder's pid,
// status's Inspect still reads it, and once released it opens again.
func TestOpenLocksTheRun(t *testing.T) {
	r := newTestRun(t, nil, Deps{})
	_, err := Open(r.Dir(), Deps{})
	var le *LockedError
	if !errors.As(err, &le) || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("a second open of a held run: %v (exit %d); want a LockedError, exit 2", err, exitcode.Of(err))
	}
	pid := strconv.Itoa(os.Getpid())
	if le.PID != os.Getpid() || !strings.Contains(err.Error(), pid) || !strings.Contains(le.DownMessage(), "kill -INT "+pid) {
		t.Errorf("the holder is not named: pid %d, %q, %q", le.PID, err, le.DownMessage())
	}
	if _, err := Inspect(r.Dir(), Deps{}); err != nil {
		t.Errorf("status cannot read a held run: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(r.Dir(), Deps{})
	if err != nil {
		t.Fatalf("open after the holder released the run: %v", err)
	}
	defer r2.Close()
	if _, err := Open(r.Dir(), Deps{}); !errors.As(err, &le) {
		t.Errorf("the reopened run is not held: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir(), LockFile)); strings.TrimSpace(string(b)) != pid {
		t.Errorf("lock file holds %q, want the pid %s", b, pid)
	}
}

// localRunID is the local provider's run id pattern (infra/local/names.go).
var localRunID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Run ids end in 8 random hex digits and fit the local provider's pattern,
// however long the profile's name.
func TestNewID(t *testing.T) {
	tail := regexp.MustCompile(`-\d{6}-\d{4}-[0-9a-f]{8}$`)
	for _, profile := range []string{"ycsb-ysql", strings.Repeat("p", 100), "odd name/x"} {
		a, b := NewID(profile), NewID(profile)
		if len(a) > MaxIDLen || !localRunID.MatchString(a) || !tail.MatchString(a) {
			t.Errorf("NewID(%q) = %q (%d characters): want at most %d, the local pattern, 8 random hex digits at the end", profile, a, len(a), MaxIDLen)
		}
		if a == b {
			t.Errorf("two ids alike: %s", a)
		}
	}
	if id := NewID("ycsb-ysql"); !strings.HasPrefix(id, "ycsb-ysql-") {
		t.Errorf("the profile is not in %s", id)
	}
}

// An id whose directory exists is drawn again: a run never shares a
// directory.
func TestNewRetriesAnIDWhoseDirectoryExists(t *testing.T) {
	runs := t.TempDir()
	taken := filepath.Join(runs, "ycsb-ysql-taken")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := []string{"ycsb-ysql-taken", "ycsb-ysql-fresh"}
	old := newID
	newID = func(string) string { id := ids[0]; ids = ids[1:]; return id }
	defer func() { newID = old }()
	r := newTestRun(t, func(s *Spec) { s.RunsDir = runs }, Deps{})
	if r.ID() != "ycsb-ysql-fresh" || r.Dir() != filepath.Join(runs, "ycsb-ysql-fresh") {
		t.Errorf("run %s in %s; want the second id", r.ID(), r.Dir())
	}
	if entries, _ := os.ReadDir(taken); len(entries) != 0 {
		t.Errorf("the existing directory was written into: %v", entries)
	}
}

// failingFlavor changes a host, then fails, as an install that added a
// package before a later step broke would.
type failingFlavor struct{}

func (failingFlavor) Name() string                         { return "failing" }
func (failingFlavor) Describe(provision.FlavorSpec) string { return "a flavor that fails" }
func (failingFlavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	return &provision.Deployment{Flavor: "failing", HostChanges: map[string][]string{"db-1": {"apt-get install postgresql"}}},
		errors.New("the primary did not start")
}
func (failingFlavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	return nil
}
func (failingFlavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	return nil
}

// A failed install still records in the ledger what it changed on the hosts.
func TestFailedInstallRecordsHostChanges(t *testing.T) {
	r := newTestRun(t, nil, Deps{
		Provider: func(*Spec, string) (infra.Provider, error) { return &fakeProvider{}, nil },
		Runner:   func(*Spec, string, *slog.Logger) (provision.Runner, error) { return &fakeRunner{}, nil },
		Flavor:   func(string) (provision.Flavor, error) { return failingFlavor{}, nil },
	})
	r.cluster = &infra.Cluster{Name: r.ID(), Provider: "local", Hosts: []infra.Host{{Name: "db-1", Roles: []infra.Role{infra.RoleDB}, Base: "/srv/bench"}}}
	r.ledger.Begin("up", "", nil)
	r.ledger.End("up", nil, nil)
	if err := r.Install(context.Background()); err == nil {
		t.Fatal("install succeeded")
	}
	for _, s := range r.Ledger().Record().Steps {
		if s.Name == "install" {
			if s.Status != StepFailed || s.Details["host_changes.db-1"] != "apt-get install postgresql" {
				t.Errorf("install step %+v; want it failed with host_changes.db-1", s)
			}
			return
		}
	}
	t.Error("no install step in the ledger")
}

// brokenRunner reaches no host.
type brokenRunner struct{ fakeRunner }

func (b *brokenRunner) Run(ctx context.Context, h infra.Host, script string, _ ...provision.RunOption) (provision.Result, error) {
	return provision.Result{}, fmt.Errorf("%s: connection refused", h.Name)
}

// A wipe that fails is a teardown that failed (exit 6) where the provider
// keeps its machines, and only a warning where it deletes them next; the
// pipeline asks the provider's traits, whatever its name.
func TestWipeFailureFollowsTheProvidersTraits(t *testing.T) {
	for _, reuses := range []bool{true, false} {
		p := &fakeProvider{traits: infra.Traits{ReusesMachines: reuses}}
		r := newTestRun(t, nil, Deps{
			Provider: func(*Spec, string) (infra.Provider, error) { return p, nil },
			Runner:   func(*Spec, string, *slog.Logger) (provision.Runner, error) { return &brokenRunner{}, nil },
			Flavor:   func(string) (provision.Flavor, error) { return nil, errors.New("no flavor in this test") },
		})
		r.cluster = &infra.Cluster{Name: r.ID(), Hosts: []infra.Host{{Name: "client-1", Roles: []infra.Role{infra.RoleClient}, Base: "/srv/bench"}}}
		for _, s := range []string{"up", agentsStep} {
			r.ledger.Begin(s, "", nil)
			r.ledger.End(s, nil, nil)
		}
		err := r.Down(context.Background())
		if reuses && (exitcode.Of(err) != exitcode.Teardown || !strings.Contains(err.Error(), "connection refused")) {
			t.Errorf("machines kept, wipe failed: %v (exit %d), want exit 6", err, exitcode.Of(err))
		}
		if !reuses && err != nil {
			t.Errorf("machines deleted next, wipe failed: %v, want only a warning", err)
		}
		if p.destroyed != 1 {
			t.Errorf("reuses %v: %d destroys, want 1", reuses, p.destroyed)
		}
	}
}
