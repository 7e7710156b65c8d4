//go:build integration

package cloudinit

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// run runs a command and fails the test with its output if it fails.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct{ options, fstype, source string }

// mounts reads the kernel's view of the mounts (proc(5), mountinfo): the
// per-mount options are field 6, fstype and source follow the " - ".
func mounts(t *testing.T) map[string]mountEntry {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]mountEntry{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		left, right, ok := strings.Cut(sc.Text(), " - ")
		l, r := strings.Fields(left), strings.Fields(right)
		if !ok || len(l) < 6 || len(r) < 2 {
			continue
		}
		m[l[4]] = mountEntry{options: l[5], fstype: r[0], source: r[1]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// loopDevice attaches a sparse file as a loop device, detached again when
// the test ends, pass or fail.
func loopDevice(t *testing.T, dir, name string) string {
	t.Helper()
	file := filepath.Join(dir, name)
	// 320 MiB: mkfs.xfs refuses filesystems under 300 MB. Sparse, so
	// nothing is written until mkfs.
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 320<<20); err != nil {
		t.Fatal(err)
	}
	dev := strings.TrimSpace(run(t, nil, "losetup", "--find", "--show", file))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "--detach", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup --detach %s: %v\n%s", dev, err, out)
		}
	})
	return dev
}

// TestIntegrationDiskScriptLoopDevices runs the disk script as a boot
// would, twice, on two loop devices named like i3 instance-store disks:
// the first run formats both (XFS) and mounts them noatime at d0 and d1;
// after both are unmounted (the reboot), the second run mounts the same
// filesystems again without formatting: a marker file written after the
// first run is still there. The kernel's mount table, blkid and the fstab
// file are the witnesses, not the script's own messages.
func TestIntegrationDiskScriptLoopDevices(t *testing.T) {
	testenv.Need(t, os.Geteuid() == 0, "loop devices and mounts need root")
	for _, tool := range []string{"mkfs.xfs", "losetup", "blkid", "mount", "umount", "bash"} {
		testenv.Need(t, testenv.OnPath(tool), tool+" is missing (scripts/setup.sh installs xfsprogs and util-linux)")
	}
	script, err := DiskScript(2)
	if err != nil {
		t.Fatal(err)
	}
	work, byid, mnt := t.TempDir(), t.TempDir(), t.TempDir()
	devs := []string{loopDevice(t, work, "disk0.img"), loopDevice(t, work, "disk1.img")}
	// Unmounting is registered after the loop devices, so it runs first.
	t.Cleanup(func() {
		for _, d := range []string{"d0", "d1"} {
			dir := filepath.Join(mnt, d)
			if _, ok := mounts(t)[dir]; ok {
				if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
					t.Errorf("umount %s: %v\n%s", dir, err, out)
				}
			}
		}
	})
	for i, dev := range devs {
		link := filepath.Join(byid, "nvme-Amazon_EC2_NVMe_Instance_Storage_AWSTEST"+string(rune('0'+i)))
		if err := os.Symlink(dev, link); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(work, "ybbench-disks")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fstab := filepath.Join(work, "fstab")
	const other = "UUID=0000-1111 /boot/efi vfat umask=0077 0 1\n"
	if err := os.WriteFile(fstab, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"YBBENCH_DISK_BYID=" + byid, "YBBENCH_DISK_MNT=" + mnt, "YBBENCH_DISK_FSTAB=" + fstab, "YBBENCH_DISK_TRIES=1"}

	boot := func(n int) (uuids []string) {
		t.Helper()
		run(t, env, "bash", path)
		m := mounts(t)
		for i, dev := range devs {
			dir := filepath.Join(mnt, "d"+string(rune('0'+i)))
			e, ok := m[dir]
			if !ok {
				t.Fatalf("boot %d: %s is not mounted", n, dir)
			}
			if e.source != dev || e.fstype != "xfs" {
				t.Errorf("boot %d: %s holds %s (%s), want %s (xfs)", n, dir, e.source, e.fstype, dev)
			}
			if !strings.Contains(","+e.options+",", ",noatime,") {
				t.Errorf("boot %d: %s mounted with %s, no noatime", n, dir, e.options)
			}
			uuids = append(uuids, strings.TrimSpace(run(t, nil, "blkid", "-p", "-o", "value", "-s", "UUID", dev)))
		}
		b, err := os.ReadFile(fstab)
		if err != nil {
			t.Fatal(err)
		}
		want := other
		for i, u := range uuids {
			want += "UUID=" + u + " " + filepath.Join(mnt, "d"+string(rune('0'+i))) + " xfs noatime,nofail 0 2\n"
		}
		if string(b) != want {
			t.Errorf("boot %d: fstab:\n%s\nwant:\n%s", n, b, want)
		}
		return uuids
	}

	first := boot(1)
	for i := range devs {
		marker := filepath.Join(mnt, "d"+string(rune('0'+i)), "marker")
		if err := os.WriteFile(marker, []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The reboot, as far as the disks see it: unmounted, devices kept.
	for _, d := range []string{"d0", "d1"} {
		run(t, nil, "umount", filepath.Join(mnt, d))
	}
	second := boot(2)
	for i := range devs {
		if first[i] != second[i] {
			t.Errorf("disk %d reformatted: UUID %s, then %s", i, first[i], second[i])
		}
		b, err := os.ReadFile(filepath.Join(mnt, "d"+string(rune('0'+i)), "marker"))
		if err != nil || string(b) != "kept\n" {
			t.Errorf("disk %d: marker after the second boot: %q, %v", i, b, err)
		}
	}
	// A third run with everything mounted changes nothing.
	boot(3)
}
