//go:build e2e

package yugabyte

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
)

// TestE2EYugabyteRealTarball installs a real YugabyteDB release tarball on
// three local "hosts" (127.0.77.1–3, each with its own Base), with the
// default way of reaching the masters' HTTP API (port 7000 of each host),
// runs a query over YSQL and opens YCQL on every tserver, then stops and
// wipes. The tarball cannot be downloaded here: the test runs only when
// YBBENCH_YB_TARBALL names one on this machine.
func TestE2EYugabyteRealTarball(t *testing.T) {
	tarball := os.Getenv("YBBENCH_YB_TARBALL")
	if tarball == "" {
		t.Skip("YBBENCH_YB_TARBALL is not set: the YugabyteDB release tarball cannot be downloaded on this machine; " +
			"set it to a local yugabyte-<version>-b<build>-linux-<arch>.tar.gz to run this test")
	}
	testenv.Need(t, os.Geteuid() == 0, "needs root: the servers run as the unprivileged user nobody through setpriv")
	dir := t.TempDir()
	for d := dir; strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var hosts []infra.Host
	for i := 1; i <= 3; i++ {
		ip := "127.0.77." + strconv.Itoa(i)
		name := "yb" + strconv.Itoa(i)
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, infra.Host{
			Name: name, Roles: []infra.Role{infra.RoleDB}, PublicIP: ip, PrivateIP: ip,
			Cloud: "local", Region: "local", Zone: "local", Base: filepath.Join(dir, name),
			ServiceUser: "nobody", Shared: true,
		})
	}
	c := &infra.Cluster{Name: "e2e-yb", Provider: "test", Hosts: hosts}
	log := slog.New(slog.NewTextHandler(testWriterE2E{t}, nil))
	r := newLocalRunner()
	f := New(WithLogger(log), WithReadyTimeout(5*time.Minute))
	t.Cleanup(func() {
		if err := f.Wipe(context.Background(), r, c); err != nil {
			t.Errorf("wipe: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dep, err := f.Install(ctx, r, c, provision.FlavorSpec{Source: tarball, Logger: log, SecretsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	pwBytes, err := os.ReadFile(dep.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	pw := strings.TrimSpace(string(pwBytes))
	t.Logf("version %s, settings %v", dep.Version, dep.Settings)
	for _, e := range dep.YSQL {
		// The default password is refused, the generated one logs in.
		if conn, err := pgx.Connect(ctx, "postgres://yugabyte:yugabyte@"+net.JoinHostPort(e.Addr, strconv.Itoa(e.Port))+"/yugabyte?sslmode=disable"); err == nil {
			conn.Close(ctx)
			t.Errorf("YSQL %s: the default password still logs in", e.Addr)
		}
		conn, err := pgx.Connect(ctx, "postgres://yugabyte:"+pw+"@"+net.JoinHostPort(e.Addr, strconv.Itoa(e.Port))+"/yugabyte?sslmode=disable")
		if err != nil {
			t.Fatalf("YSQL %s: %v", e.Addr, err)
		}
		var v string
		if err := conn.QueryRow(ctx, "select version()").Scan(&v); err != nil {
			t.Fatalf("YSQL %s: %v", e.Addr, err)
		}
		conn.Close(ctx)
		if !strings.Contains(v, "YB") {
			t.Errorf("YSQL %s: version() = %q, not YugabyteDB", e.Addr, v)
		}
	}
	for _, e := range dep.YCQL {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(e.Addr, strconv.Itoa(e.Port)), 5*time.Second)
		if err != nil {
			t.Fatalf("YCQL %s: %v", e.Addr, err)
		}
		conn.Close()
	}
	if err := f.Stop(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	for _, e := range dep.YSQL {
		if conn, err := net.DialTimeout("tcp", net.JoinHostPort(e.Addr, strconv.Itoa(e.Port)), time.Second); err == nil {
			conn.Close()
			t.Errorf("YSQL %s still listening after Stop", e.Addr)
		}
	}
}

type testWriterE2E struct{ t *testing.T }

func (w testWriterE2E) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
