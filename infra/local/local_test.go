package local

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/internal/testenv"
)

// TestNamesMatchScript: the Go side finds a run's namespaces and links by
// the names hosts.sh gives them; both derive them from the run id.
func TestNamesMatchScript(t *testing.T) {
	script := filepath.Join(testenv.RepoRoot(), "infra", "local", "hosts.sh")
	for _, id := range []string{"r1", "20260130-101500-ycsb-ysql", "e2e.local_7"} {
		out, err := exec.Command("bash", script, "names", "--run-id", id, "--subnet", "10.213.7.0/24",
			"--host", "db-1=10.213.7.2", "--host", "client-1=10.213.7.16").CombinedOutput()
		if err != nil {
			t.Fatalf("hosts.sh names: %v: %s", err, out)
		}
		n := namesFor(id)
		want := strings.Join([]string{
			"prefix " + n.prefix,
			"bridge " + n.bridge,
			"gateway 10.213.7.1",
			"host db-1 10.213.7.2 " + n.namespace("db-1") + " " + n.prefix + "v2",
			"host client-1 10.213.7.16 " + n.namespace("client-1") + " " + n.prefix + "v10",
		}, "\n") + "\n"
		if string(out) != want {
			t.Errorf("run %s: hosts.sh names:\n%s\nGo:\n%s", id, out, want)
		}
		if len(n.bridge) > 15 || len(n.prefix+"vffff") > 15 {
			t.Errorf("run %s: interface names longer than 15 characters: %s, %svffff", id, n.bridge, n.prefix)
		}
	}
}

// TestScriptRefusesBadInput: hosts.sh checks its arguments before anything
// else (and before asking for root).
func TestScriptRefusesBadInput(t *testing.T) {
	script := filepath.Join(testenv.RepoRoot(), "infra", "local", "hosts.sh")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"names", "--run-id", "a b"}, "--run-id 'a b'"},
		{[]string{"names", "--run-id", "r", "--subnet", "10.213.0.1/24"}, "did you mean 10.213.0.0/24"},
		{[]string{"names", "--run-id", "r", "--subnet", "10.0.0.0/8"}, "prefix length must be 16 to 30"},
		{[]string{"names", "--run-id", "r", "--subnet", "127.0.0.0/24"}, "not usable for hosts"},
		{[]string{"names", "--run-id", "r", "--host", "db-1=10.213.0.1"}, "past the bridge"},
		{[]string{"names", "--run-id", "r", "--host", "db-1=10.213.1.2"}, "not a host address of 10.213.0.0/24"},
		{[]string{"names", "--run-id", "r", "--host", "DB=10.213.0.2"}, "want NAME=ADDRESS"},
		{[]string{"names", "--run-id", "r", "--bridge", "a-name-far-too-long"}, "at most 15"},
		{[]string{"down", "--run-id", "r", "--run-dir", "/x"}, "--host NAME=ADDRESS) or --all"},
		{[]string{"down", "--run-id", "r", "--run-dir", "relative"}, "must be an absolute path"},
		{[]string{"sideways", "--run-id", "r"}, "unknown command"},
	}
	for _, tt := range tests {
		out, err := exec.Command("bash", append([]string{script}, tt.args...)...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("hosts.sh %q: %v, want exit 2", tt.args, err)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("hosts.sh %q: %q lacks %q", tt.args, out, tt.want)
		}
	}
}

func testKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(ssh.MarshalAuthorizedKey(sp))
}

func TestPlanFor(t *testing.T) {
	key := testKey(t)
	good := infra.ClusterSpec{Name: "r1", RunDir: "/runs/r1", DBHosts: 2, ClientHosts: 1,
		PublicKey: key + " with a comment", PrivateKeyFile: "/runs/r1/id_ed25519"}
	rp, err := planFor(good)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range rp.hosts {
		names = append(names, h.Name+"/"+h.Role)
	}
	if got := strings.Join(names, " "); got != "db-1/db db-2/db client-1/client" {
		t.Errorf("hosts %s", got)
	}
	if rp.subnet.String() != DefaultSubnet || rp.script != "/runs/r1/bin/hosts.sh" || rp.pubKey != strings.TrimSpace(key) {
		t.Errorf("plan %+v", rp)
	}

	tests := []struct {
		name   string
		modify func(*infra.ClusterSpec)
		want   []string
	}{
		{"bad id", func(s *infra.ClusterSpec) { s.Name = "../x" }, []string{`run id "../x"`}},
		{"no hosts", func(s *infra.ClusterSpec) { s.DBHosts, s.ClientHosts = 0, 0 }, []string{"want at least one"}},
		{"no run dir", func(s *infra.ClusterSpec) { s.RunDir = "" }, []string{"no run directory"}},
		{"bad key", func(s *infra.ClusterSpec) { s.PublicKey = "not a key" }, []string{"public key"}},
		{"no key file", func(s *infra.ClusterSpec) { s.PrivateKeyFile = "" }, []string{"no private key file"}},
		{"unknown option", func(s *infra.ClusterSpec) { s.Options = map[string]string{"subent": "x"} }, []string{`unknown option "subent"`}},
		{"subnet too small", func(s *infra.ClusterSpec) { s.Options = map[string]string{"subnet": "10.213.0.0/30"} }, []string{"room for 1 hosts, not 3"}},
		{"everything at once", func(s *infra.ClusterSpec) {
			s.Name, s.PublicKey, s.Options = "", "", map[string]string{"subnet": "fe80::/64"}
		}, []string{"run id", "public key", "want an IPv4 CIDR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := good
			tt.modify(&spec)
			_, err := planFor(spec)
			if err == nil {
				t.Fatal("accepted")
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

func TestParseSubnet(t *testing.T) {
	tests := []struct {
		in    string
		hosts int
		err   string
	}{
		{"10.213.0.0/24", 253, ""},
		{"10.213.0.0/24", 254, "room for 253 hosts"},
		{"10.213.0.0/16", 3, ""},
		{"10.213.0.0/15", 3, "16 to 30"},
		{"10.213.0.0/31", 1, "16 to 30"},
		{"10.213.0.4/30", 1, ""},
		{"10.213.0.5/30", 1, "did you mean 10.213.0.4/30"},
		{"10.213.0.0", 1, "want an IPv4 CIDR"},
		{"fd00::/64", 1, "want an IPv4 CIDR"},
	}
	for _, tt := range tests {
		_, err := parseSubnet(tt.in, tt.hosts)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("parseSubnet(%q, %d) = %v, want %q", tt.in, tt.hosts, err, tt.err)
		}
	}
}

func TestRemainsErrorMessage(t *testing.T) {
	e := &RemainsError{
		Run:      "r1",
		Remains:  []string{"network namespace ybx-db-1 with processes 12", "link ybxbr"},
		Commands: []string{shellquote.Join([]string{"/runs/my run/bin/hosts.sh", "down", "--all", "--run-id", "r1"}), "kill 34"},
		Cause:    errors.New("terraform destroy: exit status 1"),
	}
	want := `teardown of local run r1 is incomplete (terraform destroy: exit status 1); these remain:
  network namespace ybx-db-1 with processes 12
  link ybxbr
remove them with:
  '/runs/my run/bin/hosts.sh' down --all --run-id r1
  kill 34`
	if e.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", e.Error(), want)
	}
}

func TestProviderImplementsInfra(t *testing.T) {
	var p infra.Provider = New()
	if p.Name() != "local" {
		t.Errorf("name %q", p.Name())
	}
}
