package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// CPUQuota holds processes to a share of one core, through a cgroup of
// the test's own: cgroup v2's cpu.max where the cpu controller is on, else
// cgroup v1's cpu controller. Children the processes fork later inherit
// it. At the test's end they are moved back to the root group and the
// group removed. It returns the quota as the host's readings carry it
// ("10000 100000").
func CPUQuota(t testing.TB, name string, cores float64, pids ...int) string {
	t.Helper()
	period := 100000
	quota := int(cores * float64(period))
	dir, procs, err := cpuGroup(name)
	if err != nil {
		t.Fatalf("a CPU quota needs a cgroup cpu controller: %v", err)
	}
	write := func(file, v string) error { return os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644) }
	_, v2err := os.Stat(filepath.Join(dir, "cpu.max"))
	v1 := v2err != nil
	if v1 {
		err = errors.Join(write("cpu.cfs_period_us", strconv.Itoa(period)), write("cpu.cfs_quota_us", strconv.Itoa(quota)))
	} else {
		err = write("cpu.max", fmt.Sprintf("%d %d", quota, period))
	}
	if err != nil {
		t.Fatalf("cgroup %s: %v", dir, err)
	}
	t.Cleanup(func() {
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		for _, p := range strings.Fields(string(b)) {
			_ = os.WriteFile(procs, []byte(p), 0o644)
		}
		_ = os.Remove(dir)
	})
	for _, p := range pids {
		if err := write("cgroup.procs", strconv.Itoa(p)); err != nil {
			t.Fatalf("moving %d into %s: %v", p, dir, err)
		}
	}
	return fmt.Sprintf("%d %d", quota, period)
}

// CPUThrottling reads the cpu.stat of the group CPUQuota made as name:
// the quota's periods with work in them and those its processes ran out
// of it in (nr_periods, nr_throttled).
func CPUThrottling(t testing.TB, name string) (periods, throttled int64) {
	t.Helper()
	dir, _, err := cpuGroup(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, " ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "nr_periods":
			periods = n
		case "nr_throttled":
			throttled = n
		}
	}
	return periods, throttled
}

// cpuGroup makes the group name under the first CPU controller that
// takes one, and names the root group's cgroup.procs.
func cpuGroup(name string) (dir, rootProcs string, err error) {
	var errs []error
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"} {
		ctl, cerr := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		v2 := cerr == nil
		if v2 && !strings.Contains(" "+string(ctl)+" ", " cpu ") {
			errs = append(errs, fmt.Errorf("%s: no cpu controller", root))
			continue
		}
		if !v2 {
			if _, err := os.Stat(filepath.Join(root, "cpu.cfs_quota_us")); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if v2 {
			_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpu"), 0o644)
		}
		// The process id keeps two test processes (two checkouts, two
		// tiers) out of each other's group.
		d := filepath.Join(root, fmt.Sprintf("ybbench-test-%s-%d", name, os.Getpid()))
		if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
			errs = append(errs, err)
			continue
		}
		return d, filepath.Join(root, "cgroup.procs"), nil
	}
	return "", "", errors.Join(errs...)
}

// MountCgroupsIn mounts the CPU controller's hierarchy at /sys/fs/cgroup
// in the mount namespace of process pid, as a host of its own has it: a
// local host's sshd runs where `ip netns exec` gave it a fresh /sys
// without one, so its sessions could not read a quota there.
func MountCgroupsIn(t testing.TB, pid int) {
	t.Helper()
	script := "mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup"
	if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		script = "mountpoint -q /sys/fs/cgroup/cpu || { mount -t tmpfs cgroups /sys/fs/cgroup && mkdir -p /sys/fs/cgroup/cpu && mount -t cgroup -o cpu cgroup /sys/fs/cgroup/cpu; }"
	}
	if out, err := exec.Command("nsenter", "-t", strconv.Itoa(pid), "-m", "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("mounting the cgroup hierarchy where %d runs: %v\n%s", pid, err, out)
	}
}
