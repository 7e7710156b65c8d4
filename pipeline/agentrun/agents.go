package agentrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Agents runs load agents on client hosts through a runner.
type Agents struct {
	Runner provision.Runner
	// Mark is the run that owns the agents' directories.
	Mark provision.Mark
	// Limit bounds how many hosts are shipped to at once (0: all).
	Limit int
}

// shipState is what the ship script reports about a host.
type shipState struct {
	SHA256 string `json:"sha256"`
	Arch   string `json:"arch"`
}

// Ship claims the run's own directory under each client's base, makes the
// agent's directories in it and uploads bin where the same file is not
// there already; uploading is told each host it uploads to.
// It returns, per host, what the claim changed outside the run's own
// directory (a base it had to make), for the ledger.
func (a *Agents) Ship(ctx context.Context, clients []infra.Host, bin []byte, uploading func(host string)) (map[string][]string, error) {
	sum := sha256.Sum256(bin)
	want := hex.EncodeToString(sum[:])
	changes, err := provision.Parallel(ctx, clients, provision.ParallelOptions{Limit: a.Limit, FailFast: true}, func(ctx context.Context, h infra.Host) ([]string, error) {
		changed, err := provision.ClaimReporting(ctx, a.Runner, h, a.Mark, []string{h.Base}, "")
		if err != nil {
			return changed, err
		}
		return changed, a.shipTo(ctx, h, want, bin, uploading)
	})
	out := map[string][]string{}
	for i, h := range clients {
		if i < len(changes) && len(changes[i]) > 0 {
			out[h.Name] = changes[i]
		}
	}
	return out, err
}

// shipTo checks h (its architecture, the binary it has) and uploads bin
// unless a binary of the same sha256 (want) is there already.
func (a *Agents) shipTo(ctx context.Context, h infra.Host, want string, bin []byte, uploading func(host string)) error {
	script, err := ShipScript(h)
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	res, err := a.Runner.Run(ctx, h, script, provision.Step("agent-check"))
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return exitcode.Wrap(exitcode.Provision, err)
	}
	var st shipState
	if err := json.Unmarshal(bytes.TrimSpace(res.Stdout), &st); err != nil {
		return exitcode.Wrap(exitcode.Provision, fmt.Errorf("%s: the agent check said %q: %w", h.Name, res.Stdout, err))
	}
	if st.Arch != "x86_64" && st.Arch != "amd64" {
		return exitcode.Errorf(exitcode.Provision, "%s is %s: build ybload for it (GOARCH) and give --agent", h.Name, st.Arch)
	}
	if st.SHA256 == want {
		return nil
	}
	if uploading != nil {
		uploading(h.Name)
	}
	return exitcode.Wrap(exitcode.Provision, a.Runner.Put(ctx, h, Bin(h), bytes.NewReader(bin), 0o755))
}

// Start uploads inv's private files (0600) to h and runs its agent for
// phase ph in the foreground until it ends; each line the agent writes on
// its standard error goes to line. A non-zero exit is in the result and
// the error.
func (a *Agents) Start(ctx context.Context, h infra.Host, ph Phase, inv Invocation, line func(string)) (provision.Result, error) {
	for _, f := range inv.Files() {
		if path.Dir(f.Path) != Dir(h) {
			return provision.Result{}, exitcode.Errorf(exitcode.Tool, "agent file %s is outside the agent's directory %s", f.Path, Dir(h))
		}
		if err := a.Runner.Put(ctx, h, f.Path, strings.NewReader(f.Content), 0o600); err != nil {
			return provision.Result{}, err
		}
	}
	script, err := StartScript(h, ph, inv)
	if err != nil {
		return provision.Result{}, exitcode.Wrap(exitcode.Tool, err)
	}
	lw := &provision.LineWriter{Fn: line}
	res, err := a.Runner.Run(ctx, h, script, provision.Step("agent-"+ph.FileBase()), provision.Output(io.Discard, lw))
	lw.Flush()
	if err != nil {
		return res, err
	}
	return res, res.Err()
}

// Stop asks every agent still running on the hosts to stop and write what
// it measured, as a first Ctrl-C does (best effort: a host that cannot be
// reached has nothing more to say).
func (a *Agents) Stop(ctx context.Context, hosts []infra.Host) {
	provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		script, err := StopScript(h)
		if err != nil {
			return struct{}{}, err
		}
		_, err = a.Runner.Run(ctx, h, script, provision.Step("agent-stop"))
		return struct{}{}, err
	})
}

// fetched are the extensions of a phase's files: records, summary, the
// agent's standard output.
var fetched = []string{".jsonl", ".json", ".dat"}

// Fetch copies the files the agent wrote for phase ph on h into localDir.
// A phase that writes records and has none is an error; the other files
// are copied when they are there.
func (a *Agents) Fetch(ctx context.Context, h infra.Host, ph Phase, localDir string) error {
	if err := os.MkdirAll(localDir, 0o755); err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	names := make([]string, len(fetched))
	for i, ext := range fetched {
		names[i] = ph.FileBase() + ext
	}
	script, err := FetchScript(h, names)
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, err)
	}
	res, err := a.Runner.Run(ctx, h, script, provision.Step("agent-fetch"))
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return fmt.Errorf("list the agent's files on %s: %w", h.Name, err)
	}
	there := map[string]bool{}
	for _, n := range strings.Fields(string(res.Stdout)) {
		there[n] = true
	}
	var errs []error
	for _, name := range names {
		required := ph.Records() && strings.HasSuffix(name, ".jsonl")
		if !there[name] {
			if required {
				errs = append(errs, fmt.Errorf("fetch %s from %s: the agent wrote no records", name, h.Name))
			}
			continue
		}
		if err := a.get(ctx, h, name, filepath.Join(localDir, name)); err != nil {
			errs = append(errs, fmt.Errorf("fetch %s from %s: %w", name, h.Name, err))
		}
	}
	return errors.Join(errs...)
}

func (a *Agents) get(ctx context.Context, h infra.Host, name, local string) error {
	f, err := os.Create(local)
	if err != nil {
		return err
	}
	err = a.Runner.Get(ctx, h, path.Join(Dir(h), name), f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(local)
	}
	return err
}

// Remove removes the run's own directory under h's base, and with it the
// agent and its files, when this run made it (provision.Release).
func (a *Agents) Remove(ctx context.Context, h infra.Host) error {
	return provision.Release(ctx, a.Runner, h, a.Mark.RunID, []string{h.Base})
}
