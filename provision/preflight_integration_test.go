//go:build integration

package provision_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	"github.com/ybbench/ybbench/provision/ssh"
)

func sshRunner(t *testing.T) *ssh.Runner {
	t.Helper()
	dir := t.TempDir()
	r, err := ssh.New(
		ssh.WithKnownHosts(filepath.Join(dir, "ssh", "known_hosts")),
		ssh.WithLogDir(filepath.Join(dir, "logs")),
		ssh.WithLogger(slog.New(slog.NewTextHandler(testWriter{t}, nil))),
		ssh.WithRetryWindow(20*time.Second),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestIntegrationPreflightOverSSH(t *testing.T) {
	a := sshdtest.Start(t, sshdtest.Options{})
	b := sshdtest.Start(t, sshdtest.Options{})
	hosts := []infra.Host{a.Host("db1"), b.Host("db2")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	checks, err := provision.Preflight(ctx, sshRunner(t), hosts, provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range checks {
		t.Logf("%s: skew %s ± %s, nofile %d, nproc %d, disks %+v, warnings %q", c.Host, c.ClockSkew, c.ClockUncertainty, c.NoFile, c.NProc, c.Disks, c.Warnings)
		if c.Host != hosts[i].Name || !c.OK() || !c.Reachable || !c.ClockMeasured || len(c.Disks) != 2 {
			t.Fatalf("check %+v", c)
		}
		// One machine: the measured skew is the measurement's own error.
		if c.ClockSkew.Abs() > 100*time.Millisecond || c.ClockUncertainty > 100*time.Millisecond {
			t.Fatalf("%s: skew %s ± %s on one machine", c.Host, c.ClockSkew, c.ClockUncertainty)
		}
	}
}

func TestIntegrationPreflightFailsOnSkewedHost(t *testing.T) {
	shim := dateShim(t, "+2 seconds")
	a := sshdtest.Start(t, sshdtest.Options{})
	// The skewed host's sshd puts the shim first on the PATH of its sessions.
	b := sshdtest.Start(t, sshdtest.Options{Extra: []string{"SetEnv PATH=" + shim + ":/usr/bin:/bin"}})
	hosts := []infra.Host{a.Host("db1"), b.Host("db2")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	checks, err := provision.Preflight(ctx, sshRunner(t), hosts, provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err == nil {
		t.Fatalf("preflight passed with a host 2 s ahead: %+v", checks)
	}
	t.Logf("error: %v", err)
	for _, want := range []string{"db2", "clock skew", "+2", "past the limit of 250ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("message lacks %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "db1:") || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("only db2 fails, as a provisioning error: %v (code %d)", err, exitcode.Of(err))
	}
	if !checks[0].OK() || checks[1].OK() {
		t.Fatalf("checks %+v", checks)
	}
	if d := checks[1].ClockSkew - 2*time.Second; d.Abs() > 200*time.Millisecond {
		t.Fatalf("db2 skew recorded as %s, want about +2s", checks[1].ClockSkew)
	}
}

// TestIntegrationPreflightLoginUsers: a host whose login user has
// passwordless sudo passes the preflight as root would; one whose user
// has not stops it, at once, naming the host and the user (exit 4).
func TestIntegrationPreflightLoginUsers(t *testing.T) {
	withSudo, without := sshdtest.LoginUser(t, true), sshdtest.LoginUser(t, false)
	a := sshdtest.Start(t, sshdtest.Options{})
	b := sshdtest.Start(t, sshdtest.Options{})
	hosts := []infra.Host{a.HostAs("db1", withSudo), b.HostAs("db2", without)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	checks, err := provision.Preflight(ctx, sshRunner(t), hosts, provision.PreflightOptions{MinFreeBytes: 1 << 20})
	want := "user " + without + " on host db2 cannot run sudo without a password; ybbench needs root or passwordless sudo"
	if err == nil || !strings.Contains(err.Error(), want) || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("preflight: %v (code %d), want exit 4 with %q", err, exitcode.Of(err), want)
	}
	// The host's name as the error would give it ("db1:", "host db1"): the
	// generated user names may hold "db1" too.
	if strings.Contains(err.Error(), "db1:") || strings.Contains(err.Error(), "host db1") || strings.Contains(err.Error(), "ssh db1") {
		t.Errorf("db1, whose user has passwordless sudo, is in the error: %v", err)
	}
	if len(checks) != 2 || !checks[0].OK() || !checks[0].Reachable {
		t.Fatalf("db1's check: %+v", checks)
	}
}
