//go:build integration

package ssh_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	"github.com/ybbench/ybbench/provision/ssh"
)

// inventoryFor writes an inventory of two real sshd servers (db1, c1 on
// 127.0.0.1 at their own ports) with extra defaults, and points HOME at an
// empty directory so the user's known_hosts plays no part.
func inventoryFor(t *testing.T, db, client *sshdtest.Server, defaults string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	host := func(name, role string, s *sshdtest.Server) string {
		return "  - {name: " + name + ", roles: [" + role + "], address: 127.0.0.1, ssh: {port: " + strconv.Itoa(s.Port) + ", key: " + s.KeyFile + "}}\n"
	}
	src := "defaults:\n  ssh: {user: root" + defaults + "}\nhosts:\n" + host("db1", "db", db) + host("c1", "client", client)
	path = filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func createHosts(t *testing.T, path string, accept bool) (*infra.Cluster, error) {
	t.Helper()
	opts := map[string]string{}
	if accept {
		opts[inventory.OptionAcceptNewHostKeys] = "true"
	}
	return inventory.New(path).Create(context.Background(), infra.ClusterSpec{Name: "r1", Options: opts})
}

func hostPub(t *testing.T, s *sshdtest.Server) xssh.PublicKey {
	t.Helper()
	k, _, _, _, err := xssh.ParseAuthorizedKey([]byte(s.HostPublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// An inventory host whose key no file knows is refused before anything
// connects to it; the ssh-keyscan line of the message, run as printed,
// makes it known, and the hosts are then reached with their keys pinned.
func TestIntegrationInventoryUnknownHostThenKeyscan(t *testing.T) {
	db, client := sshdtest.Start(t, sshdtest.Options{}), sshdtest.Start(t, sshdtest.Options{})
	dir, path := inventoryFor(t, db, client, ", known_hosts: kh")
	kh := filepath.Join(dir, "kh")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// (Start's own readiness probe is a connection already in the logs.)
	before := []int{strings.Count(db.Log(), "Connection from"), strings.Count(client.Log(), "Connection from")}
	_, err := createHosts(t, path, false)
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit %d, want 2: %v", exitcode.Of(err), err)
	}
	for i, s := range []*sshdtest.Server{db, client} {
		if strings.Count(s.Log(), "Connection from") != before[i] {
			t.Fatalf("a host was contacted before its key was known:\n%s", s.Log())
		}
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "ssh-keyscan ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || lines[0] != "ssh-keyscan -p "+strconv.Itoa(db.Port)+" 127.0.0.1 >> "+kh {
		t.Fatalf("ssh-keyscan lines %q in:\n%v", lines, err)
	}
	for _, l := range lines {
		if out, err := exec.Command("bash", "-c", l).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
	}
	c, err := createHosts(t, path, false)
	if err != nil {
		t.Fatal(err)
	}
	f := newRunner(t)
	ctx := testCtx(t, 60*time.Second)
	for i, s := range []*sshdtest.Server{db, client} {
		h := c.Hosts[i]
		if h.SSH.HostKeySource != kh || !strings.Contains(h.SSH.HostKey, strings.Fields(s.HostPublicKey())[1]) {
			t.Fatalf("%s: %+v, want the key ssh-keyscan added to %s", h.Name, h.SSH, kh)
		}
		if _, err := f.runner.Run(ctx, h, "true"); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
	}
	if _, err := os.Stat(f.knownHosts); err == nil {
		t.Error("a host with a known key was pinned again in the run's file (trust on first use)")
	}
}

// Keys from a known_hosts file (a hashed entry, a non-22 port) let the
// hosts in; when a host comes back with another key it is a hard failure
// that names the file.
func TestIntegrationInventoryKnownHostsAndChangedKey(t *testing.T) {
	db, client := sshdtest.Start(t, sshdtest.Options{}), sshdtest.Start(t, sshdtest.Options{})
	dir, path := inventoryFor(t, db, client, "")
	// The user's own ~/.ssh/known_hosts, hashed as ssh-keygen -H leaves it;
	// a key for port 22 of the same address is another host.
	home := filepath.Join(dir, "home", ".ssh")
	os.MkdirAll(home, 0o700)
	kh := filepath.Join(home, "known_hosts")
	other := hostPub(t, sshdtest.New(t, sshdtest.Options{}))
	lines := []string{
		knownhosts.Line([]string{knownhosts.HashHostname("127.0.0.1")}, other),
		knownhosts.Line([]string{knownhosts.HashHostname(knownhosts.Normalize("127.0.0.1:" + strconv.Itoa(db.Port)))}, hostPub(t, db)),
		knownhosts.Line([]string{knownhosts.Normalize("127.0.0.1:" + strconv.Itoa(client.Port))}, hostPub(t, client)),
	}
	if err := os.WriteFile(kh, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := createHosts(t, path, false)
	if err != nil {
		t.Fatal(err)
	}
	f := newRunner(t)
	ctx := testCtx(t, 60*time.Second)
	for _, h := range c.Hosts {
		if h.SSH.HostKeySource != kh {
			t.Errorf("%s: source %q, want %s", h.Name, h.SSH.HostKeySource, kh)
		}
		if _, err := f.runner.Run(ctx, h, "true"); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
	}

	// db1 is rebuilt with a new key: refused at once, naming the file.
	if err := db.RotateHostKey(); err != nil {
		t.Fatal(err)
	}
	if err := db.Restart(); err != nil {
		t.Fatal(err)
	}
	c, err = createHosts(t, path, false)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	res, err := newRunner(t).runner.Run(ctx, c.Hosts[0], "true")
	var hk *ssh.HostKeyChangedError
	if !errors.As(err, &hk) || hk.Source != kh || !strings.Contains(err.Error(), "remove its line from "+kh) {
		t.Fatalf("want a changed host key naming %s, got %v", kh, err)
	}
	if res.Attempts != 1 || time.Since(begin) > 10*time.Second {
		t.Fatalf("a changed host key was retried: %d attempts in %s", res.Attempts, time.Since(begin))
	}
}

// With accept_new_host_keys a host no file knows is reached; the key it
// offered is pinned in the run's known-hosts file for the rest of the run.
func TestIntegrationInventoryAcceptNewHostKeys(t *testing.T) {
	db, client := sshdtest.Start(t, sshdtest.Options{}), sshdtest.Start(t, sshdtest.Options{})
	_, path := inventoryFor(t, db, client, "")
	c, err := createHosts(t, path, true)
	if err != nil {
		t.Fatal(err)
	}
	f := newRunner(t)
	ctx := testCtx(t, 60*time.Second)
	for i, s := range []*sshdtest.Server{db, client} {
		h := c.Hosts[i]
		if h.SSH.HostKey != "" || h.SSH.HostKeySource != inventory.AcceptedOnFirstUse {
			t.Fatalf("%s: %+v", h.Name, h.SSH)
		}
		if _, err := f.runner.Run(ctx, h, "true"); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		if got := f.runner.HostKey(h); got != s.HostPublicKey() {
			t.Fatalf("%s: pinned %q, want %q", h.Name, got, s.HostPublicKey())
		}
	}
	b, err := os.ReadFile(f.knownHosts)
	if err != nil || strings.Count(string(b), "\n") != 2 {
		t.Fatalf("the run's known-hosts file: %v\n%s", err, b)
	}
}
