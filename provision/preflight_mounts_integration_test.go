//go:build integration

package provision_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/cloudinit"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
)

// kernelMount is one line of /proc/self/mountinfo (proc(5)): the mount
// point is field 5, the source the second field after " - ".
type kernelMount struct{ target, source string }

// mountHolding returns the kernel's mount holding path: the last-mounted
// entry whose mount point is the longest prefix of path. The test's
// witness, read apart from findmnt, which the preflight uses.
func mountHolding(t *testing.T, path string) kernelMount {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var best kernelMount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		left, right, ok := strings.Cut(sc.Text(), " - ")
		l, r := strings.Fields(left), strings.Fields(right)
		if !ok || len(l) < 5 || len(r) < 2 {
			continue
		}
		target := l[4]
		if (path == target || target == "/" || strings.HasPrefix(path, target+"/")) && len(target) >= len(best.target) {
			best = kernelMount{target: target, source: r[1]}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return best
}

// TestIntegrationPreflightCloudDataDirs runs a cloud host's preflight on
// this machine (localexec, cloud-init a fake that answers done): a data
// directory on a tmpfs mounted below /mnt passes, and its mount is
// recorded; one on a plain directory below /mnt (a disk that did not
// mount), one on the root filesystem and one on a tmpfs outside /mnt
// fail, each named with the mount it is on as the kernel's mount table
// says; two directories on one mount fail together.
func TestIntegrationPreflightCloudDataDirs(t *testing.T) {
	testenv.Need(t, os.Geteuid() == 0, "mounts need root")
	for _, tool := range []string{"findmnt", "mount", "umount", "timeout"} {
		testenv.Need(t, testenv.OnPath(tool), tool+" is missing")
	}
	fake, _ := fakeCloudInit(t, "status: done", 0)
	t.Setenv("PATH", fake+":"+os.Getenv("PATH"))

	// Below the real mount root: the rule under test is "strictly below
	// /mnt", so the test mounts there, under a name of its own.
	root, err := os.MkdirTemp(cloudinit.MountRoot, "ybbench-preflight-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(root); err != nil {
			t.Error(err)
		}
	})
	d0, d1 := filepath.Join(root, "d0"), filepath.Join(root, "d1")
	for _, d := range []string{d0, d1} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const source = "ybbench-preflight-d0"
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", source, d0).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs on %s: %v\n%s", d0, err, out)
	}
	// Registered after the directory's removal, so it runs first.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", d0).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", d0, err, out)
		}
	})
	// A disk of its own, but not one of the run's: mounted outside /mnt.
	outside := t.TempDir()
	const outsideSource = "ybbench-preflight-outside"
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", outsideSource, outside).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs on %s: %v\n%s", outside, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", outside).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", outside, err, out)
		}
	})
	onDisk := filepath.Join(d0, "yb")            // not made yet: its mount is d0's
	unmounted := filepath.Join(d1, "yb")         // d1 is a plain directory below /mnt
	onRoot := filepath.Join(t.TempDir(), "data") // wherever the temporary directory is
	second := filepath.Join(d0, "other")         // the same disk as onDisk
	if k := mountHolding(t, d0); k.target != d0 || k.source != source {
		t.Fatalf("the tmpfs is not what the kernel has on %s: %+v", d0, k)
	}

	host := func(name string, dirs ...string) infra.Host {
		return infra.Host{Name: name, Cloud: cloudinit.CloudAWS, Base: filepath.Join(t.TempDir(), name), DataDirs: dirs, Shared: true}
	}
	hosts := []infra.Host{host("good", onDisk), host("unmounted", onDisk, unmounted), host("rootfs", onRoot), host("shared", onDisk, second), host("elsewhere", filepath.Join(outside, "yb"))}
	checks, err := provision.Preflight(context.Background(), localexec.New(), hosts, provision.PreflightOptions{MinFreeBytes: 1 << 20})
	if err == nil || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("preflight: %v (exit %d), want exit 4", err, exitcode.Of(err))
	}
	t.Logf("error: %v", err)

	good := checks[0]
	if !good.OK() || good.CloudInit == nil || good.CloudInit.Exit != 0 || len(good.Mounts) != 1 {
		t.Fatalf("good host: %+v", good)
	}
	if m := good.Mounts[0]; m.Path != onDisk || m.Checked != d0 || m.Target != d0 || m.Source != source || m.FSType != "tmpfs" {
		t.Errorf("good host's mount %+v, want %s on %s (%s, tmpfs)", m, onDisk, d0, source)
	}
	if f := good.Facts(); f["mount:"+onDisk] != d0 || f["device:"+onDisk] != source || f["cloud_init"] != "done" {
		t.Errorf("good host's facts %v", f)
	}
	if strings.Contains(err.Error(), "good:") {
		t.Errorf("the good host is in the error: %v", err)
	}

	k := mountHolding(t, d1)
	want := "data directory " + unmounted + " on unmounted is not on a mount of its own: it is on "
	if k.target == "/" {
		want += "the root filesystem "
	}
	want += k.target + " (" + k.source + ")"
	if c := checks[1]; c.OK() || len(c.Failures) != 1 || !strings.Contains(c.Failures[0], want) {
		t.Errorf("unmounted host: failures %q, want one with %q", c.Failures, want)
	}
	if f := checks[1].Facts(); f["mount:"+unmounted] != k.target || f["mount:"+onDisk] != d0 {
		t.Errorf("unmounted host's facts %v", f)
	}

	k = mountHolding(t, filepath.Dir(onRoot))
	testenv.Need(t, k.target == "/", "the temporary directory is not on the root filesystem but on "+k.target)
	want = "data directory " + onRoot + " on rootfs is not on a mount of its own: it is on the root filesystem / (" + k.source + ")"
	if c := checks[2]; c.OK() || len(c.Failures) != 1 || !strings.Contains(c.Failures[0], want) {
		t.Errorf("rootfs host: failures %q, want one with %q", c.Failures, want)
	}

	want = "data directories " + onDisk + " and " + second + " on shared are both on " + d0 + " (" + source + ")"
	if c := checks[3]; c.OK() || len(c.Failures) != 1 || !strings.Contains(c.Failures[0], want) {
		t.Errorf("shared host: failures %q, want one with %q", c.Failures, want)
	}
	want = "data directory " + filepath.Join(outside, "yb") + " on elsewhere is not on a mount of its own: it is on " + outside + " (" + outsideSource + ")"
	if c := checks[4]; c.OK() || len(c.Failures) != 1 || !strings.Contains(c.Failures[0], want) {
		t.Errorf("elsewhere host: failures %q, want one with %q", c.Failures, want)
	}
	for _, w := range []string{"unmounted", "rootfs", "shared", "elsewhere"} {
		if !strings.Contains(err.Error(), w+": preflight:") {
			t.Errorf("error does not name %s: %v", w, err)
		}
	}
}
