//go:build integration

package postgres

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

	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/nshost"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	ybssh "github.com/ybbench/ybbench/provision/ssh"
)

// TestIntegrationOverSSHBehindAFirewall installs the flavor on a host of
// the test's own, as on a cloud VM: a network namespace whose firewall
// lets the orchestrator reach only port 22, logged in over SSH as an
// unprivileged user with passwordless sudo (as a cloud image's ubuntu).
// Install must pass its readiness check; the database must answer from
// the host (through the SSH connection) and be refused to the
// orchestrator directly; Wipe must remove what the run made.
func TestIntegrationOverSSHBehindAFirewall(t *testing.T) {
	dir := setup(t)
	nshost.Require(t)
	sshdtest.Require(t)
	login := sshdtest.LoginUser(t, true)
	ns := nshost.New(t)
	// As the local provider's hosts.sh: forwarding from the host only.
	srv := sshdtest.Start(t, sshdtest.Options{Netns: ns.NS, Addr: ns.Addr, Extra: []string{"AllowTcpForwarding local"}})
	ns.OnlySSHFromOrchestrator()

	const port = 5432 // free: the namespace is the host's own
	run := fmt.Sprintf("it-pgfw-%d", os.Getpid())
	h := srv.HostAs("db1", login)
	h.Base = filepath.Join(dir, "hosts", "db1")
	h.ServiceUser, h.Shared = serviceUser, true
	c := &infra.Cluster{Name: run, Provider: "test", Hosts: []infra.Host{h}}
	r, err := ybssh.New(ybssh.WithKnownHosts(filepath.Join(dir, "known_hosts")), ybssh.WithLogDir(filepath.Join(dir, "logs")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f := &Flavor{ReadyTimeout: 2 * time.Minute}
	wiped := false
	t.Cleanup(func() {
		if !wiped {
			if err := f.Wipe(context.Background(), r, c); err != nil {
				t.Errorf("cleanup wipe: %v", err)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	secrets := filepath.Join(dir, "secrets")
	dep, err := f.Install(ctx, r, c, provision.FlavorSpec{SecretsDir: secrets, RunID: run, ToolVersion: "test",
		Settings: map[string]string{"port": strconv.Itoa(port)}, Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	if err != nil {
		t.Fatalf("install behind the firewall: %v (logs in %s)", err, filepath.Join(dir, "logs"))
	}
	pw, err := os.ReadFile(filepath.Join(secrets, "db-password"))
	if err != nil {
		t.Fatal(err)
	}

	// The orchestrator cannot reach the database directly...
	addr := net.JoinHostPort(h.PrivateIP, strconv.Itoa(port))
	if c, err := net.DialTimeout("tcp", addr, 10*time.Second); !errors.Is(err, syscall.EHOSTUNREACH) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("direct dial of %s: %v, want refused by the firewall", addr, err)
	}
	// ...but it answers from the host, through the SSH connection.
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=10", h.PrivateIP, port, dep.User, dep.Database))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = strings.TrimSpace(string(pw))
	cfg.DialFunc = func(ctx context.Context, network, a string) (net.Conn, error) { return r.Dial(ctx, h, network, a) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("the database from its host: %v", err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d %v", one, err)
	}
	conn.Close(ctx)

	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatalf("wipe: %v", err)
	}
	wiped = true
	if _, err := os.Stat(provision.OwnDir(h.Base)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Wipe: %v", provision.OwnDir(h.Base), err)
	}
}
