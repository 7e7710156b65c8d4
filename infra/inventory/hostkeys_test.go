package inventory

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

func newPub(t *testing.T) xssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := xssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func authorized(k xssh.PublicKey) string {
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k)))
}

// inventoryDir writes hosts.yaml (db1 at 10.0.0.1:22, c1 at 10.0.0.2:2222,
// each with extra ssh settings) and a login key, and points HOME at an
// empty directory so that the user's own known_hosts plays no part.
func inventoryDir(t *testing.T, defaults, db1SSH, c1SSH string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	if err := os.WriteFile(filepath.Join(dir, "id"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "defaults:\n  ssh: {key: id" + defaults + "}\nhosts:\n" +
		"  - name: db1\n    roles: [db]\n    address: 10.0.0.1\n    ssh: {port: 22" + db1SSH + "}\n" +
		"  - name: c1\n    roles: [client]\n    address: 10.0.0.2\n    ssh: {port: 2222" + c1SSH + "}\n"
	path = filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func create(path string, accept bool) (*infra.Cluster, error) {
	spec := infra.ClusterSpec{Name: "r1", Options: map[string]string{}}
	if accept {
		spec.Options[OptionAcceptNewHostKeys] = "true"
	}
	return New(path).Create(context.Background(), spec)
}

// ssh.host_key pins the host: kept without its comment, its source named
// with file and line.
func TestHostKeyInTheInventory(t *testing.T) {
	k1, k2 := newPub(t), newPub(t)
	_, path := inventoryDir(t, "", ", host_key: '"+authorized(k1)+" root@db1'", ", host_key: '"+authorized(k2)+"'")
	c, err := create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Hosts[0].SSH.HostKey; got != authorized(k1) {
		t.Errorf("db1 host key %q, want %q", got, authorized(k1))
	}
	if got, want := c.Hosts[0].SSH.HostKeySource, "ssh.host_key in "+path+":7"; got != want {
		t.Errorf("db1 source %q, want %q", got, want)
	}
	if c.Hosts[1].SSH.HostKey != authorized(k2) {
		t.Errorf("c1 host key %q", c.Hosts[1].SSH.HostKey)
	}
}

// Bad keys, a key in the defaults and a missing known_hosts file are all
// reported at once, each as file:line: field.
func TestBadHostKeySettings(t *testing.T) {
	k := newPub(t)
	src := "defaults:\n" +
		"  ssh: {key: id, host_key: '" + authorized(k) + "'}\n" +
		"hosts:\n" +
		"  - name: db1\n    roles: [db]\n    address: 10.0.0.1\n    ssh: {host_key: 'ssh-ed25519 not-base64'}\n" +
		"  - name: db2\n    roles: [db]\n    address: 10.0.0.3\n    ssh: {host_key: '10.0.0.3 " + authorized(k) + "'}\n" +
		"  - name: db3\n    roles: [db]\n    address: 10.0.0.4\n    ssh: {host_key: \"" + authorized(k) + "\\n" + authorized(k) + "\"}\n" +
		"  - name: c1\n    roles: [client]\n    address: 10.0.0.2\n    ssh: {known_hosts: nowhere/known_hosts}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "id"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	for _, want := range []string{
		path + ":2: defaults.ssh.host_key: belongs to a host",
		path + ":7: hosts[0].ssh.host_key: \"ssh-ed25519 not-base64\" is not a public key",
		path + ":11: hosts[1].ssh.host_key: ",
		"not a known_hosts or authorized_keys line",
		path + ":15: hosts[2].ssh.host_key: ",
		"one key only",
		path + ":19: hosts[3].ssh.known_hosts: stat " + filepath.Join(dir, "nowhere", "known_hosts") + ": no such file",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}
}

// A relative ssh.known_hosts (here in the defaults) is relative to the
// inventory file; a hashed entry and a non-22 port are matched on the
// address dialed, and an entry for another port is not that host.
func TestKnownHostsFile(t *testing.T) {
	kdb, kc, kother := newPub(t), newPub(t), newPub(t)
	dir, path := inventoryDir(t, ", known_hosts: keys/known_hosts", "", "")
	lines := []string{
		"# db1, hashed as ssh-keygen -H writes it",
		knownhosts.Line([]string{knownhosts.HashHostname("10.0.0.1")}, kdb),
		// c1 on port 22 is another sshd: not the one dialed at 2222.
		knownhosts.Line([]string{"10.0.0.2"}, kother),
		knownhosts.Line([]string{knownhosts.HashHostname(knownhosts.Normalize("10.0.0.2:2222"))}, kc),
	}
	os.MkdirAll(filepath.Join(dir, "keys"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "keys", "known_hosts"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "keys", "known_hosts")
	if h := c.Hosts[0].SSH; h.HostKey != authorized(kdb) || h.HostKeySource != file {
		t.Errorf("db1: %+v, want the hashed entry's key from %s", h, file)
	}
	if h := c.Hosts[1].SSH; h.HostKey != authorized(kc) || h.HostKeySource != file {
		t.Errorf("c1: %+v, want the [10.0.0.2]:2222 key", h)
	}

	// A plain [host]:port entry, and several keys for one host.
	kc2 := newPub(t)
	plain := knownhosts.Line([]string{"10.0.0.1"}, kdb) + "\n" +
		"[10.0.0.2]:2222 " + authorized(kc) + "\n[10.0.0.2]:2222 " + authorized(kc2) + "\n"
	os.WriteFile(file, []byte(plain), 0o644)
	c, err = create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Hosts[1].SSH; h.HostKey != authorized(kc)+"\n"+authorized(kc2) {
		t.Errorf("c1 keys %q", h.HostKey)
	}
}

// The invoking user's ~/.ssh/known_hosts is read too; a host's own
// ssh.known_hosts file, when it knows the host, comes first.
func TestUserKnownHosts(t *testing.T) {
	kdb, kc, stale := newPub(t), newPub(t), newPub(t)
	dir, path := inventoryDir(t, "", ", known_hosts: mine", "")
	home := filepath.Join(dir, "home", ".ssh")
	os.MkdirAll(home, 0o700)
	user := filepath.Join(home, "known_hosts")
	os.WriteFile(user, []byte(knownhosts.Line([]string{knownhosts.HashHostname("10.0.0.1")}, stale)+"\n"+
		knownhosts.Line([]string{"[10.0.0.2]:2222"}, kc)+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "mine"), []byte(knownhosts.Line([]string{"10.0.0.1"}, kdb)+"\n"), 0o600)
	c, err := create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Hosts[0].SSH; h.HostKey != authorized(kdb) || h.HostKeySource != filepath.Join(dir, "mine") {
		t.Errorf("db1: %+v, want its own file's key", h)
	}
	if h := c.Hosts[1].SSH; h.HostKey != authorized(kc) || h.HostKeySource != user {
		t.Errorf("c1: %+v, want the key of %s", h, user)
	}
}

// Hosts with no known key are refused together, exit 2, each with the
// ssh-keyscan line that adds it; accepting new keys lets them through,
// marked as accepted on first use.
func TestUnknownHostKeys(t *testing.T) {
	dir, path := inventoryDir(t, "", "", ", known_hosts: kh")
	os.WriteFile(filepath.Join(dir, "kh"), nil, 0o644)
	_, err := create(path, false)
	t.Log(err)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	user := filepath.Join(dir, "home", ".ssh", "known_hosts")
	for _, want := range []string{
		path + ":4: hosts[0] db1: unknown SSH host key",
		"ssh-keyscan 10.0.0.1 >> " + user + "\n",
		path + ":8: hosts[1] c1: unknown SSH host key (no ssh.host_key, and no key for [10.0.0.2]:2222 in " + filepath.Join(dir, "kh") + ")",
		"ssh-keyscan -p 2222 10.0.0.2 >> " + filepath.Join(dir, "kh") + "\n",
		"set ssh.host_key", "--accept-new-host-keys",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}

	c, err := create(path, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range c.Hosts {
		if h.SSH.HostKey != "" || h.SSH.HostKeySource != AcceptedOnFirstUse {
			t.Errorf("%s: %+v, want no key, accepted on first use", h.Name, h.SSH)
		}
	}
}

func TestKeyscanLine(t *testing.T) {
	for _, c := range []struct {
		port int
		want string
	}{{22, "ssh-keyscan db.example >> f"}, {0, "ssh-keyscan db.example >> f"}, {2200, "ssh-keyscan -p 2200 db.example >> f"}} {
		if got := KeyscanLine("db.example", c.port, "f"); got != c.want {
			t.Errorf("port %d: %q", c.port, got)
		}
	}
}
