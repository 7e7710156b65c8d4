package aws

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/internal/golden"
)

// seeded is a deterministic stream of bytes (a SHA-256 chain), so that
// the host keys a test makes are the same on every run.
type seeded struct {
	block [32]byte
	off   int
}

func newSeeded(seed string) *seeded {
	s := &seeded{block: sha256.Sum256([]byte(seed))}
	return s
}

func (s *seeded) Read(p []byte) (int, error) {
	for i := range p {
		if s.off == len(s.block) {
			s.block, s.off = sha256.Sum256(s.block[:]), 0
		}
		p[i] = s.block[s.off]
		s.off++
	}
	return len(p), nil
}

var _ io.Reader = (*seeded)(nil)

// testRun is a run as Create reads it from a spec, with a login key made
// from a fixed seed.
func testRun(t *testing.T, runDir string) run {
	t.Helper()
	k, err := cloudinit.GenerateHostKey(newSeeded("login key"))
	if err != nil {
		t.Fatal(err)
	}
	return run{id: "r20261201-a1", runDir: runDir, owner: "Ann O'Brien", lifetime: 6 * time.Hour,
		pubKey: k.Public, keyFile: filepath.Join(runDir, "ssh", "id_ed25519")}
}

// testState is a first Create's state: fixed times, zone, AMI, and host
// keys from a fixed seed.
func testState(t *testing.T, s settings) runState {
	t.Helper()
	created := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	st := runState{Created: created, Expires: created.Add(6 * time.Hour), Zone: s.zone, ZoneReason: "as set", AMI: "ami-0123456789abcdef0"}
	var names []string
	for _, h := range s.hosts() {
		names = append(names, h.name)
	}
	if _, err := st.hostKeys(newSeeded("host keys"), names); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestModuleVars checks the module's variables for the c5 setup: each
// host's user data is cloudinit's for that host, its key and the run's
// expiry (then replaced by a placeholder, and the keys by theirs, in the
// golden file), and every variable the module declares is set or left to
// its default on purpose.
func TestModuleVars(t *testing.T) {
	s, _ := readSettings(c5Spec())
	r := testRun(t, "/runs/r20261201-a1")
	st := testState(t, s)
	vars, err := moduleVars(r, s, st)
	if err != nil {
		t.Fatal(err)
	}
	hosts := vars["hosts"].([]hostVar)
	for i, h := range s.hosts() {
		want, err := cloudinit.Render(cloudinit.Params{RunID: r.id, Host: h.name, Cloud: cloudinit.CloudAWS,
			HostKey: st.HostKeys[h.name], Expires: st.Expires, DataDisks: h.dataDisks})
		if err != nil {
			t.Fatal(err)
		}
		if hosts[i].UserData != string(want) {
			t.Errorf("%s: user data is not cloudinit's for this host", h.name)
		}
		if !strings.Contains(hosts[i].UserData, "ed25519_public: "+st.HostKeys[h.name].Public) {
			t.Errorf("%s: user data does not install the host's key", h.name)
		}
		hosts[i].UserData = "<user data of " + h.name + ">"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(vars); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "vars-c5.json", []byte(strings.ReplaceAll(b.String(), r.pubKey, "<the run's public key>")))

	// Every key is a variable of the module; the ones left out have
	// defaults there (root_disk_gb, placement_group).
	declared := moduleVariables(t)
	for k := range vars {
		if !declared[k] {
			t.Errorf("variable %s is not declared by terraform/aws", k)
		}
	}
	for _, k := range []string{"root_disk_gb", "placement_group"} {
		if _, ok := vars[k]; ok {
			t.Errorf("variable %s is set; it is meant to keep the module's default", k)
		}
		delete(declared, k)
	}
	for k := range declared {
		if _, ok := vars[k]; !ok {
			t.Errorf("variable %s of terraform/aws is not set", k)
		}
	}
}

// TestModuleVarsInstanceStore: i3 hosts mount their instance-store disks
// but get no gp3 volumes, and no volume size is passed.
func TestModuleVarsInstanceStore(t *testing.T) {
	s, _ := readSettings(i3Spec())
	st := testState(t, s)
	vars, err := moduleVars(testRun(t, "/runs/r"), s, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := vars["data_disk_gb"]; ok {
		t.Error("data_disk_gb is set for instance-store hosts")
	}
	db := vars["hosts"].([]hostVar)[0]
	want, err := cloudinit.Render(cloudinit.Params{RunID: "r20261201-a1", Host: "db-1", Cloud: cloudinit.CloudAWS,
		HostKey: st.HostKeys["db-1"], Expires: st.Expires, DataDisks: 2})
	if err != nil {
		t.Fatal(err)
	}
	if db.DataDiskCount != 0 || db.UserData != string(want) {
		t.Errorf("i3 db host: %d gp3 volumes, user data for 2 disks: %v", db.DataDiskCount, db.UserData == string(want))
	}
}

// moduleVariables reads the names of terraform/aws's variables.
func moduleVariables(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../terraform/aws/variables.tf")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, `variable "`); ok {
			out[strings.TrimSuffix(strings.TrimSpace(name), `" {`)] = true
		}
	}
	return out
}
