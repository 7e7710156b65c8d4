package agentrun_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
)

// fakeAgent stands in for ybload on this machine: it writes the records
// file it is given, says a status line, and prints its output.
const fakeAgent = `#!/bin/sh
for a in "$@"; do
  case "$a" in ybload.records=*) echo '{"schema":1}' > "${a#ybload.records=}" ;; esac
done
echo "status line" >&2
echo "report"
`

// Ship, start, fetch and remove through the local runner: the agent's
// directory is claimed, its private files are 0600, what it wrote comes
// back, and the run's own directory is gone afterwards, the base intact.
func TestAgentLifecycleOnThisMachine(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	h := infra.Host{Name: "client-1", Base: base}
	a := &agentrun.Agents{Runner: localexec.New(), Mark: provision.Mark{RunID: "run-1", Version: "test"}}
	var uploads int
	for i := 0; i < 2; i++ {
		if _, err := a.Ship(ctx, []infra.Host{h}, []byte(fakeAgent), func(string) { uploads++ }); err != nil {
			t.Fatal(err)
		}
	}
	if uploads != 1 {
		t.Errorf("%d uploads of the same agent, want 1", uploads)
	}
	in := ysqlInput("run", 0, 1)
	in.Dir = agentrun.Dir(h)
	inv, err := agentrun.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	ph := in.Phase
	var lines []string
	if _, err := a.Start(ctx, h, ph, inv, func(l string) { lines = append(lines, l) }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "status line" {
		t.Errorf("status lines %q", lines)
	}
	st, err := os.Stat(inv.Files()[0].Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("properties file: %v %v", st, err)
	}
	local := t.TempDir()
	if err := a.Fetch(ctx, h, ph, local); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{ph.FileBase() + ".jsonl": "{\"schema\":1}\n", ph.FileBase() + ".dat": "report\n"} {
		if b, err := os.ReadFile(filepath.Join(local, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(local, ph.FileBase()+".json")); !os.IsNotExist(err) {
		t.Errorf("a summary the agent did not write was fetched: %v", err)
	}
	if err := a.Fetch(ctx, h, agentrun.Phase{Workload: "other", Phase: "run"}, local); err == nil {
		t.Error("a measured phase without records fetched without an error")
	}
	a.Stop(ctx, []infra.Host{h})
	if err := a.Remove(ctx, h); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(provision.OwnDir(base)); !os.IsNotExist(err) {
		t.Errorf("the run's own directory is still there: %v", err)
	}
	if _, err := os.Stat(base); err != nil {
		t.Errorf("the base went too: %v", err)
	}
}
