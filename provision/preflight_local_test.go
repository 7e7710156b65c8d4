package provision_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/shellquote"
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

// fakeCloudInit writes a `cloud-init` that records its arguments, one
// call a line, in the returned file, answers `status --wait --long` with
// the long status text and exit code given, and `status --long` (no
// wait) with the text alone. A negative exit makes the waiting call hang.
func fakeCloudInit(t *testing.T, status string, exit int) (dir, calls string) {
	t.Helper()
	dir = t.TempDir()
	calls = filepath.Join(dir, "calls")
	wait := fmt.Sprintf("printf '....\\n%%s\\n' %s\nexit %d", shellquote.Quote(status), exit)
	if exit < 0 {
		wait = "exec sleep 60"
	}
	script := fmt.Sprintf(`#!/bin/sh
echo "$*" >>%s
case "$*" in
"status --wait --long")
  %s
  ;;
"status --long")
  printf '%%s\n' %s
  ;;
*)
  echo "fake cloud-init: unexpected arguments: $*" >&2
  exit 64
  ;;
esac
`, shellquote.Quote(calls), wait, shellquote.Quote(status))
	if err := os.WriteFile(filepath.Join(dir, "cloud-init"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, calls
}

// recorded returns the fake's calls, one per line ("" when never called).
func recorded(t *testing.T, calls string) string {
	t.Helper()
	b, err := os.ReadFile(calls)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cloudHosts are local hosts marked as made by a cloud provider, without
// data directories (this machine's are not on disks of their own).
func cloudHosts(t *testing.T, cloud string, names ...string) []infra.Host {
	hs := localHosts(t, names...)
	for i := range hs {
		hs[i].Cloud = cloud
	}
	return hs
}

// A cloud host's preflight waits for cloud-init first and reads its exit
// code as cloud.md §8 item 12 says: 0 passes, 2 (recoverable errors)
// passes with a warning, 1 fails the host with the long status's errors.
func TestPreflightLocalCloudInit(t *testing.T) {
	for _, c := range []struct {
		name, status string
		exit         int
		ok           bool
		warn, fail   string
		summary      string
	}{
		{"done", "status: done\nextended_status: done\nerrors: []", 0, true, "", "", "done"},
		{"recoverable errors", "status: done\nextended_status: degraded done\nrecoverable_errors:\nWARNING:\n\t- Failed at merging in cloud config part", 2, true,
			"cloud-init on db1 finished with recoverable errors: status: done; extended_status: degraded done; recoverable_errors:; WARNING:; - Failed at merging in cloud config part", "", "done with recoverable errors"},
		{"failed", "status: error\nextended_status: error - done\nboot_status_code: enabled-by-generator\nerrors:\n\t- ('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands'))", 1, false,
			"", "cloud-init on db1 failed: status: error; extended_status: error - done; errors:; - ('scripts_user', RuntimeError('Runparts: 1 failures (part-001) in 1 attempted commands'))", "failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, calls := fakeCloudInit(t, c.status, c.exit)
			t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
			checks, err := provision.Preflight(context.Background(), localexec.New(), cloudHosts(t, "aws", "db1"), provision.PreflightOptions{MinFreeBytes: 1 << 20})
			if got := recorded(t, calls); got != "status --wait --long\n" {
				t.Fatalf("cloud-init was called %q, want once with status --wait --long", got)
			}
			ch := checks[0]
			if (err == nil) != c.ok || ch.OK() != c.ok || ch.CloudInit == nil || ch.CloudInit.Exit != c.exit || ch.Facts()["cloud_init"] != c.summary {
				t.Fatalf("err %v, check %+v, cloud-init %+v", err, ch, ch.CloudInit)
			}
			if c.warn != "" && !slices.Contains(ch.Warnings, c.warn) {
				t.Errorf("warnings %q, want %q", ch.Warnings, c.warn)
			}
			if c.fail != "" {
				if !strings.Contains(err.Error(), c.fail) || exitcode.Of(err) != exitcode.Provision {
					t.Errorf("error %v (exit %d), want exit 4 with %q", err, exitcode.Of(err), c.fail)
				}
				// The other checks still ran: every problem is reported together.
				if !ch.ClockMeasured || len(ch.Disks) == 0 {
					t.Errorf("the other checks did not run after cloud-init failed: %+v", ch)
				}
			}
		})
	}
}

func TestPreflightLocalCloudInitStillRunning(t *testing.T) {
	dir, calls := fakeCloudInit(t, "status: running\nextended_status: running\ndetail: Running in stage: modules-final", -1)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	checks, err := provision.Preflight(context.Background(), localexec.New(), cloudHosts(t, "gcp", "db1"),
		provision.PreflightOptions{MinFreeBytes: 1 << 20, CloudInitWait: time.Second})
	want := "cloud-init on db1 was still running after 1s, the preflight's bound: status: running; extended_status: running; detail: Running in stage: modules-final"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
	if got := recorded(t, calls); got != "status --wait --long\nstatus --long\n" {
		t.Fatalf("cloud-init was called %q", got)
	}
	if ci := checks[0].CloudInit; ci == nil || ci.Exit != 124 || ci.Status != "running" {
		t.Fatalf("cloud-init %+v", ci)
	}
}

func TestPreflightLocalNoCloudInit(t *testing.T) {
	if _, err := exec.LookPath("cloud-init"); err == nil {
		t.Skip("this machine has a cloud-init")
	}
	checks, err := provision.Preflight(context.Background(), localexec.New(), cloudHosts(t, "aws", "db1"), provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "db1 has no cloud-init") {
		t.Fatalf("err %v", err)
	}
	if f := checks[0].Facts(); f["cloud_init"] != "not installed" {
		t.Fatalf("facts %v", f)
	}
}

// Local and inventory hosts are no cloud hosts: cloud-init is never
// asked, even where it would fail.
func TestPreflightLocalNotCloudHosts(t *testing.T) {
	dir, calls := fakeCloudInit(t, "status: error", 1)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	hosts := append(cloudHosts(t, "local", "l1"), cloudHosts(t, "onprem", "o1")...)
	hosts[1].DataDirs = []string{filepath.Join(t.TempDir(), "data")} // on the root filesystem, and fine
	checks, err := provision.Preflight(context.Background(), localexec.New(), hosts, provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := recorded(t, calls); got != "" {
		t.Fatalf("cloud-init was called on a local or inventory host: %q", got)
	}
	for _, c := range checks {
		if c.CloudInit != nil || len(c.Mounts) != 0 {
			t.Fatalf("check %+v", c)
		}
	}
}
