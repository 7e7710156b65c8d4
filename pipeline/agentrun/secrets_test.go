package agentrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
)

// dumpAgent stands in for ybload: it writes the command line and the
// environment it was started with into its directory (the start script
// runs it there), one argument or variable a line.
const dumpAgent = `#!/bin/sh
{ printf 'argv: %s\n' "$0" "$@"; env | sed 's/^/env: /'; } > seen.txt
`

const plainPassword = "pw7Qx2secretZ9"

// No password reaches an agent's process: for every family and phase of
// every built-in profile, with authentication on, the agent is started
// through Start and the local runner, and the command line and environment
// the process really had are scanned. The password must still reach it, in
// a 0600 file of its directory, or the scan proves nothing.
func TestNoPasswordInTheAgentsArgvOrEnvironment(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	families := map[string]bool{}
	for _, p := range all {
		done := map[string]bool{} // one agent per phase of a profile is enough
		for _, in := range inputs(t, p) {
			if in.DB.Password == "" || done[in.Phase.Phase] {
				continue // authentication off: nothing to leak
			}
			done[in.Phase.Phase] = true
			// A password no format escapes, so that a leak is found
			// verbatim wherever it lands.
			in.DB.Password = plainPassword
			name := p.Name + "/" + in.Phase.FileBase()
			t.Run(name, func(t *testing.T) {
				h := infra.Host{Name: in.Host, Base: t.TempDir()}
				a := &agentrun.Agents{Runner: localexec.New(), Mark: provision.Mark{RunID: "run-1", Version: "test"}}
				if _, err := a.Ship(ctx, []infra.Host{h}, []byte(dumpAgent), nil); err != nil {
					t.Fatal(err)
				}
				in.Dir = agentrun.Dir(h)
				inv, err := agentrun.Build(in)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.Start(ctx, h, in.Phase, inv, func(string) {}); err != nil {
					t.Fatal(err)
				}
				seen, err := os.ReadFile(filepath.Join(in.Dir, "seen.txt"))
				if err != nil || !strings.Contains(string(seen), "argv: ") {
					t.Fatalf("the agent did not record what it was started with: %v %q", err, seen)
				}
				for _, line := range strings.Split(string(seen), "\n") {
					if strings.Contains(line, in.DB.Password) {
						t.Errorf("the password reached the agent's process: %q", line)
					}
				}
				if !passwordInPrivateFile(t, inv, in.DB.Password) {
					t.Errorf("the password reaches the agent in no 0600 file: %v", inv.Files())
				}
				families[p.Family] = true
			})
		}
	}
	for _, f := range []string{"ycsb", "sysbench", "kv"} {
		if !families[f] {
			t.Errorf("no invocation of family %s was checked", f)
		}
	}
}

// passwordInPrivateFile reports whether one of inv's files, as uploaded,
// holds the password and is mode 0600.
func passwordInPrivateFile(t *testing.T, inv agentrun.Invocation, pw string) bool {
	t.Helper()
	for _, f := range inv.Files() {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), pw) && st.Mode().Perm() == 0o600 {
			return true
		}
	}
	return false
}
