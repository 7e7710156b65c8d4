//go:build integration

package cassandra

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/nshost"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	ybssh "github.com/ybbench/ybbench/provision/ssh"
)

// TestIntegrationOneNodeBehindAFirewall installs a one-node cluster on a
// host of the test's own, as on a cloud VM: a network namespace whose
// firewall lets the orchestrator reach only port 22, logged in over SSH
// as an unprivileged user with passwordless sudo (as a cloud image's
// ubuntu). The readiness check and the roles Install makes reach the CQL
// port only through the SSH connection: Install passing is the test; the
// port is then checked closed to the orchestrator and open from the host.
func TestIntegrationOneNodeBehindAFirewall(t *testing.T) {
	nshost.Require(t)
	sshdtest.Require(t)
	testenv.EnsureServiceUser(t)
	_, err := readSource(DefaultSource())
	needs(t, err == nil, fmt.Sprintf("needs the artifact cache: %v", err))

	loginName := sshdtest.LoginUser(t, true)
	ns := nshost.New(t)
	// As the local provider's hosts.sh: forwarding from the host only.
	srv := sshdtest.Start(t, sshdtest.Options{Netns: ns.NS, Addr: ns.Addr, Extra: []string{"AllowTcpForwarding local"}})
	ns.OnlySSHFromOrchestrator()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h := srv.HostAs("db1", loginName)
	h.Base = filepath.Join(dir, "db1")
	h.ServiceUser, h.Shared = "ybbench", true
	c := &infra.Cluster{Name: "it-fw-" + strconv.Itoa(os.Getpid()), Hosts: []infra.Host{h}}
	r, err := ybssh.New(ybssh.WithKnownHosts(filepath.Join(dir, "known_hosts")), ybssh.WithLogDir(filepath.Join(dir, "logs")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() }) // after the wipe below (cleanups run last first)
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	f := New(WithLogger(log))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if err := f.Wipe(context.Background(), r, c); err != nil {
			t.Errorf("cleanup wipe: %v", err)
		}
	})
	secrets := filepath.Join(dir, "secrets")
	dep, err := f.Install(ctx, r, c, provision.FlavorSpec{Logger: log, Settings: map[string]string{"heap": "256M"},
		RunID: c.Name, SecretsDir: secrets})
	if err != nil {
		t.Fatalf("install behind the firewall: %v (logs in %s)", err, filepath.Join(dir, "logs"))
	}

	addr := net.JoinHostPort(h.PrivateIP, strconv.Itoa(NativePort))
	if c, err := net.DialTimeout("tcp", addr, 10*time.Second); !errors.Is(err, syscall.EHOSTUNREACH) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("direct dial of %s: %v, want refused by the firewall", addr, err)
	}
	pw, err := os.ReadFile(dep.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	through := func(infra.Host) (string, DialFunc) {
		return addr, func(ctx context.Context, network, a string) (net.Conn, error) { return r.Dial(ctx, h, network, a) }
	}
	s, err := nodeSession(through, h, 20*time.Second, login{dep.User, strings.TrimSpace(string(pw))})
	if err != nil {
		t.Fatalf("CQL from the host as the bench role: %v", err)
	}
	var version string
	if err := s.Query(`SELECT release_version FROM system.local WHERE key = 'local'`).WithContext(ctx).Scan(&version); err != nil || version != DefaultVersion {
		t.Errorf("release_version %q (%v)", version, err)
	}
	s.Close()

	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(provision.OwnDir(h.Base)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Wipe: %v", provision.OwnDir(h.Base), err)
	}
}
