package cloudinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

// fakeByID builds a by-id directory whose links lead to plain files
// standing in for device nodes, as udev would name them on an i3 host, a
// c5 host and a GCP host at once.
func fakeByID(t *testing.T) (byid, dev string) {
	t.Helper()
	root := t.TempDir()
	byid, dev = filepath.Join(root, "by-id"), filepath.Join(root, "dev")
	for _, d := range []string{byid, dev} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"nvme0n1", "nvme0n1p1", "nvme1n1", "nvme2n1", "nvme3n1", "nvme4n1", "nvme5n1", "nvme6n1"} {
		if err := os.WriteFile(filepath.Join(dev, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		// The EBS root volume and its partition: never data disks.
		"nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa":       "nvme0n1",
		"nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa-part1": "nvme0n1p1",
		// Two EBS data volumes; one has a second name for the same device.
		"nvme-Amazon_Elastic_Block_Store_vol0ccccccccccccccccc":   "nvme2n1",
		"nvme-Amazon_Elastic_Block_Store_vol0bbbbbbbbbbbbbbbbb":   "nvme1n1",
		"nvme-Amazon_Elastic_Block_Store_vol0bbbbbbbbbbbbbbbbb_1": "nvme1n1",
		// i3 instance store, listed before EBS whatever the names.
		"nvme-Amazon_EC2_NVMe_Instance_Storage_AWS2": "nvme4n1",
		"nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1": "nvme3n1",
		// GCP local SSDs and a partition of one.
		"google-local-nvme-ssd-1":       "nvme6n1",
		"google-local-nvme-ssd-0":       "nvme5n1",
		"google-local-nvme-ssd-0-part1": "nvme5n1",
		// Names no pattern takes, and a link to nothing.
		"nvme-nvme.1d0f-766f6c30":                    "nvme1n1",
		"google-persistent-disk-0":                   "nvme0n1",
		"nvme-Amazon_EC2_NVMe_Instance_Storage_GONE": "nvme9n1",
	}
	for name, target := range links {
		if err := os.Symlink(filepath.Join("..", "dev", target), filepath.Join(byid, name)); err != nil {
			t.Fatal(err)
		}
	}
	return byid, dev
}

// TestDiskScriptFindsDataDisks runs the rendered script's --list against a
// fake by-id directory: the data disks by their by-id names, each device
// once, no root disk, no partition, no nvmeN-only name.
func TestDiskScriptFindsDataDisks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, err := DiskScript(2)
	if err != nil {
		t.Fatal(err)
	}
	byid, dev := fakeByID(t)
	path := filepath.Join(t.TempDir(), "ybbench-disks")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", path, "--list")
	cmd.Env = append(os.Environ(), "YBBENCH_DISK_BYID="+byid, "YBBENCH_DISK_ROOT_DEV="+filepath.Join(dev, "nvme0n1"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var want []string
	for _, n := range []string{"nvme3n1", "nvme4n1", "nvme1n1", "nvme2n1", "nvme5n1", "nvme6n1"} {
		want = append(want, filepath.Join(dev, n))
	}
	if got := strings.Fields(string(out)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("disks found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDiskScriptTooFewDisks: a host short of data disks fails the script
// (and so cloud-init, and so the preflight), naming what it found, and
// formats nothing.
func TestDiskScriptTooFewDisks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, err := DiskScript(7)
	if err != nil {
		t.Fatal(err)
	}
	byid, dev := fakeByID(t)
	path := filepath.Join(t.TempDir(), "ybbench-disks")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", path)
	cmd.Env = append(os.Environ(), "YBBENCH_DISK_BYID="+byid, "YBBENCH_DISK_ROOT_DEV="+filepath.Join(dev, "nvme0n1"),
		"YBBENCH_DISK_TRIES=1", "YBBENCH_DISK_MNT="+t.TempDir(), "YBBENCH_DISK_FSTAB="+filepath.Join(t.TempDir(), "fstab"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("six disks, seven wanted, and the script succeeded:\n%s", out)
	}
	if !strings.Contains(string(out), "found 6 data disk(s) under "+byid+", want 7") {
		t.Errorf("message does not say what was found:\n%s", out)
	}
	entries, err := os.ReadDir(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if fi, err := e.Info(); err != nil || fi.Size() != 0 {
			t.Errorf("%s was written to (%v)", e.Name(), err)
		}
	}
	if _, err := DiskScript(-1); err == nil {
		t.Error("a negative count is accepted")
	}
}

// TestDataDirs: a cloud host's data directories are its disks' mount
// points, each one a host may use (infra.CheckHostDir).
func TestDataDirs(t *testing.T) {
	if got := DataDir(1); got != "/mnt/d1" {
		t.Errorf("DataDir(1) = %q", got)
	}
	got := DataDirs(2)
	if !slices.Equal(got, []string{"/mnt/d0", "/mnt/d1"}) {
		t.Errorf("DataDirs(2) = %q", got)
	}
	for _, d := range got {
		if why := infra.CheckHostDir(d); why != "" {
			t.Errorf("data dir %s: %s", d, why)
		}
	}
	if got := DataDirs(0); got != nil {
		t.Errorf("DataDirs(0) = %q", got)
	}
}
