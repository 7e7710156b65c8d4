package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// countingRunner fails every command and counts them.
type countingRunner struct {
	mu    sync.Mutex
	calls int
}

func (c *countingRunner) count() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return exitcode.Errorf(exitcode.Provision, "no command may run in this test")
}

func (c *countingRunner) Run(context.Context, infra.Host, string, ...provision.RunOption) (provision.Result, error) {
	return provision.Result{}, c.count()
}
func (c *countingRunner) Put(context.Context, infra.Host, string, io.Reader, fs.FileMode) error {
	return c.count()
}
func (c *countingRunner) Get(context.Context, infra.Host, string, io.Writer) error { return c.count() }

// hostKeyRun is an inventory run (db1 on port 22, c1 on port 2222, no key
// known for either: HOME is an empty directory) whose runner counts
// whatever reaches the hosts.
func hostKeyRun(t *testing.T, accept bool) (*Run, *countingRunner, *int) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	if err := os.WriteFile(filepath.Join(dir, "id"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	inv := filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(inv, []byte("defaults:\n  ssh: {key: id}\nhosts:\n"+
		"  - {name: db1, roles: [db], address: 10.0.0.1}\n"+
		"  - {name: c1, roles: [client], address: 10.0.0.2, ssh: {port: 2222}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Defaults()
	s.RunsDir = filepath.Join(dir, "runs")
	s.Provider, s.Inventory, s.AcceptNewHostKeys = "inventory", inv, accept
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	runner := &countingRunner{}
	runners := 0
	deps := Deps{
		Provider: func(s *Spec, _ string) (infra.Provider, error) { return inventory.New(s.Inventory), nil },
		Runner: func(*Spec, string, *slog.Logger) (provision.Runner, error) {
			runners++
			return runner, nil
		},
		Flavor: func(string) (provision.Flavor, error) {
			return nil, exitcode.Errorf(exitcode.Config, "no flavor in this test")
		},
		NewKey: func(d string) (string, string, error) {
			os.MkdirAll(d, 0o700)
			return "ssh-ed25519 AAAA test", filepath.Join(d, "id_ed25519"), os.WriteFile(filepath.Join(d, "id_ed25519"), []byte("k"), 0o600)
		},
		Preflight: func(ctx context.Context, r provision.Runner, hosts []infra.Host, _ time.Duration) (map[string]map[string]string, error) {
			_, err := r.Run(ctx, hosts[0], "true")
			return nil, err
		},
		Progress: NewLines(io.Discard),
	}
	r, err := New(res, deps)
	if err != nil {
		t.Fatal(err)
	}
	return r, runner, &runners
}

// Inventory hosts with no known key are refused at up, before any command
// runs on any host: exit 2, each host with the ssh-keyscan line that adds
// its key.
func TestUnknownHostKeysRefusedBeforeAnyCommand(t *testing.T) {
	r, runner, runners := hostKeyRun(t, false)
	ctx := context.Background()
	err := r.Execute(ctx, ctx)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d, want 2: %v", exitcode.Of(err), err)
	}
	home := os.Getenv("HOME")
	for _, want := range []string{"db1: unknown SSH host key", "ssh-keyscan 10.0.0.1 >> " + filepath.Join(home, ".ssh", "known_hosts"),
		"c1: unknown SSH host key", "ssh-keyscan -p 2222 10.0.0.2 >> "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}
	if runner.calls != 0 || *runners != 0 {
		t.Errorf("%d commands ran (%d runners made) before the refusal", runner.calls, *runners)
	}
	if r.ledger.Done("up") || r.ledger.Started("preflight") {
		t.Errorf("up must fail and the preflight never start: %+v", r.ledger.Record().Steps)
	}
}

// With accept_new_host_keys the hosts get through up, and the acceptance
// is recorded: in the up step's details and in result.json (the cluster's
// hosts and a note).
func TestAcceptNewHostKeysRecorded(t *testing.T) {
	r, _, _ := hostKeyRun(t, true)
	if err := r.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	var details map[string]string
	for _, st := range r.ledger.Record().Steps {
		if st.Name == "up" {
			details = st.Details
		}
	}
	for _, h := range []string{"db1", "c1"} {
		if got := details[h+".host_key_source"]; got != inventory.AcceptedOnFirstUse {
			t.Errorf("up details %s.host_key_source = %q, want %q", h, got, inventory.AcceptedOnFirstUse)
		}
	}
	res, _ := r.collect(nil) // no agent records: an error, but the result is there
	if len(res.Hosts) != 2 || res.Hosts[0].HostKeySource != inventory.AcceptedOnFirstUse || !res.Environment.AcceptNewHostKeys {
		t.Errorf("result hosts %+v, environment %+v", res.Hosts, res.Environment)
	}
	// The result describes the hosts, never how to log in to them: no key
	// file (the inventory's, or the run's own) is named in it.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{r.cluster.Hosts[0].SSH.KeyFile, "key_file", "id_ed25519", r.dir} {
		if strings.Contains(string(b), leak) {
			t.Errorf("result.json names %q:\n%s", leak, b)
		}
	}
	if err := collect.ValidateResult(res); err != nil {
		t.Error(err)
	}
	found := false
	for _, n := range res.Notes {
		if strings.Contains(n, "db1, c1") && strings.Contains(n, "accepted on first use") {
			found = true
		}
	}
	if !found {
		t.Errorf("no note on the accepted keys: %q", res.Notes)
	}
}
