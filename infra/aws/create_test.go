package aws

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// TestCreateRefusesABadRunFirst: what Create needs beyond the settings is
// checked before anything is asked or written, every problem at once.
func TestCreateRefusesABadRunFirst(t *testing.T) {
	tf := newFakeTerraform(t)
	runDir := t.TempDir()
	spec := c5Spec()
	spec.Name, spec.RunDir = "bad run id", runDir
	spec.Lifetime = 0
	spec.PublicKey = "not a key"
	_, err := New(TerraformBinary(tf.Bin), Config(staticConfig("http://127.0.0.1:1"))).Create(context.Background(), spec)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("Create: %v (exit %d), want exit 2", err, exitcode.Of(err))
	}
	for _, want := range []string{`run id "bad run id"`, "owner: not set", "lifetime 0s", "public key: not an authorized_keys line", "no private key file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if calls := tf.Calls(t); len(calls) != 0 {
		t.Errorf("terraform ran: %v", calls)
	}
	if entries, _ := os.ReadDir(runDir); len(entries) != 0 {
		t.Errorf("the run directory has %d entries, want none", len(entries))
	}
}

// TestDestroyNeedsItsMeta: a cluster without the run directory or the
// region is refused (exit 2), not half destroyed.
func TestDestroyNeedsItsMeta(t *testing.T) {
	p := New(Config(staticConfig("http://127.0.0.1:1")))
	for _, c := range []*infra.Cluster{nil, {Name: "r1"}, {Name: "r1", Meta: map[string]string{MetaRunDir: t.TempDir()}}} {
		if err := p.Destroy(context.Background(), c); exitcode.Of(err) != exitcode.Config {
			t.Errorf("Destroy(%+v): %v (exit %d), want exit 2", c, err, exitcode.Of(err))
		}
	}
}

// TestStateKeepsHostKeys: a saved state comes back with the same keys,
// 0600 in a 0700 directory; keys are made only for hosts without one.
func TestStateKeepsHostKeys(t *testing.T) {
	runDir := t.TempDir()
	var st runState
	if made, err := st.hostKeys(newSeeded("a"), []string{"db-1", "client-1"}); err != nil || !made {
		t.Fatal(made, err)
	}
	if err := saveState(runDir, st); err != nil {
		t.Fatal(err)
	}
	assertMode(t, filepath.Join(runDir, stateDir), 0o700)
	assertMode(t, statePath(runDir), 0o600)
	back, found, err := loadState(runDir)
	if err != nil || !found || back.HostKeys["db-1"] != st.HostKeys["db-1"] || back.HostKeys["client-1"] != st.HostKeys["client-1"] {
		t.Fatalf("state back: %v %v", found, err)
	}
	made, err := back.hostKeys(newSeeded("b"), []string{"db-1", "client-1", "db-2"})
	if err != nil || !made || back.HostKeys["db-1"] != st.HostKeys["db-1"] || back.HostKeys["db-2"].Public == "" ||
		back.HostKeys["db-2"] == st.HostKeys["db-1"] {
		t.Errorf("adding a host: made %v, %v", made, err)
	}
	if _, found, err := loadState(t.TempDir()); found || err != nil {
		t.Errorf("no state: %v %v", found, err)
	}
}
