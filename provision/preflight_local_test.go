package provision_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
)

func localHosts(t *testing.T, names ...string) []infra.Host {
	var hs []infra.Host
	for _, n := range names {
		hs = append(hs, infra.Host{Name: n, Base: filepath.Join(t.TempDir(), "hosts", n), Shared: true})
	}
	return hs
}

// dateShim writes a `date` that runs ahead of the real one by offset.
func dateShim(t *testing.T, offset string) string {
	t.Helper()
	dir := t.TempDir()
	shim := "#!/bin/sh\nexec /usr/bin/date -d '" + offset + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "date"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPreflightLocalPasses(t *testing.T) {
	r := localexec.New(localexec.WithLogDir(t.TempDir()))
	hosts := localHosts(t, "a", "b")
	checks, err := provision.Preflight(context.Background(), r, hosts, provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2 || checks[0].Host != "a" || checks[1].Host != "b" {
		t.Fatalf("checks %+v", checks)
	}
	for _, c := range checks {
		if !c.OK() || !c.Reachable || !c.ClockMeasured || len(c.Disks) != 2 || c.NoFile == 0 || c.NProc == 0 {
			t.Fatalf("check %+v", c)
		}
		if c.ClockSkew.Abs() > 100*time.Millisecond || c.ClockUncertainty > 100*time.Millisecond || c.MaxClockSkew != provision.DefaultMaxClockSkew {
			t.Fatalf("same machine, clock skew %s ± %s", c.ClockSkew, c.ClockUncertainty)
		}
	}
	b, err := json.Marshal(checks[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"host":"a"`, `"reachable":true`, `"clock_skew_ns":`, `"clock_uncertainty_ns":`, `"ulimit_nofile":`, `"free_bytes":`} {
		if !strings.Contains(string(b), k) {
			t.Fatalf("JSON lacks %s: %s", k, b)
		}
	}
}

func TestPreflightLocalClockSkewFails(t *testing.T) {
	t.Setenv("PATH", dateShim(t, "+2 seconds")+":"+os.Getenv("PATH"))
	r := localexec.New()
	checks, err := provision.Preflight(context.Background(), r, localHosts(t, "skewed"), provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err == nil {
		t.Fatal("a host 2 s ahead passed")
	}
	for _, want := range []string{"skewed", "clock skew", "+2", "250ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("message lacks %q: %v", want, err)
		}
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("exit code %d", exitcode.Of(err))
	}
	c := checks[0]
	if c.OK() || (c.ClockSkew-2*time.Second).Abs() > 200*time.Millisecond {
		t.Fatalf("check %+v", c)
	}
}

func TestPreflightLocalDiskBelowMinimum(t *testing.T) {
	r := localexec.New()
	hosts := localHosts(t, "full")
	_, err := provision.Preflight(context.Background(), r, hosts, provision.PreflightOptions{MinFreeBytes: 1 << 62})
	if err == nil || !strings.Contains(err.Error(), "free disk on full at "+hosts[0].Base) || !strings.Contains(err.Error(), "below the minimum") {
		t.Fatalf("err = %v", err)
	}
}

// flaky fails Run on one host as a connection failure would.
type flaky struct {
	provision.Runner
	down string
}

func (f flaky) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (provision.Result, error) {
	if h.Name == f.down {
		return provision.Result{Host: h.Name, ExitCode: -1}, exitcode.Wrap(exitcode.Provision, errors.New("connection refused"))
	}
	return f.Runner.Run(ctx, h, script, opts...)
}

func TestPreflightUnreachableHostInOrder(t *testing.T) {
	r := flaky{Runner: localexec.New(), down: "b"}
	checks, err := provision.Preflight(context.Background(), r, localHosts(t, "a", "b", "c"), provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if len(checks) != 3 || !checks[0].OK() || checks[1].Reachable || !checks[2].OK() || checks[1].Host != "b" {
		t.Fatalf("checks %+v", checks)
	}
	var he *provision.HostError
	if !errors.As(err, &he) || he.Host != "b" || !strings.Contains(err.Error(), "b is not reachable") {
		t.Fatalf("err = %v", err)
	}
}
