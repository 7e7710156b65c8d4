package cloudinit

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
)

// DiskPatterns are the /dev/disk/by-id names of data disks, by the
// device's model: udev builds them from the NVMe model and serial, so
// they name the same disk on every boot, where nvme0n1/nvme1n1 need not
// (cloud.md §1.9, W1; §2.4, P3). The EBS pattern also matches the root
// volume on Nitro types, which the script leaves out.
var DiskPatterns = []string{
	"nvme-Amazon_EC2_NVMe_Instance_Storage_*", // i3 instance store (W12)
	"nvme-Amazon_Elastic_Block_Store_*",       // EBS, e.g. c5's gp3 volumes (W1)
	"google-local-nvme-ssd-*",                 // GCP local SSD, NVMe interface (P3)
}

// MountRoot is where data disks are mounted: MountRoot/d0, d1, ….
const MountRoot = "/mnt"

// DataDir returns the mount point of data disk i (0-based).
func DataDir(i int) string { return fmt.Sprintf("%s/d%d", MountRoot, i) }

// DataDirs are the Host.DataDirs of a cloud host with count data disks:
// each disk's mount point, in disk order (none without disks). A flavor
// writes only in a directory of the run's own below each
// (provision.OwnDir: /mnt/d0/ybbench), which the run makes and removes,
// so the mount point itself is neither adopted nor removed; and each is
// on a mount of its own, which the preflight checks.
func DataDirs(count int) []string {
	var out []string
	for i := range count {
		out = append(out, DataDir(i))
	}
	return out
}

//go:embed disks.sh.tmpl
var disksTmpl string

var disksScript = template.Must(template.New("disks.sh").Parse(disksTmpl))

// DiskScript renders the per-boot disk script for a host that must end up
// with count data disks mounted.
func DiskScript(count int) (string, error) {
	if count < 0 {
		return "", fmt.Errorf("data disks: count %d is negative", count)
	}
	for _, p := range DiskPatterns {
		// The patterns are quoted in the script, then expanded as globs.
		if strings.ContainsAny(p, "'\n") {
			return "", fmt.Errorf("data disks: pattern %q cannot be quoted", p)
		}
	}
	var b strings.Builder
	err := disksScript.Execute(&b, struct {
		MountRoot string
		Count     int
		Patterns  []string
	}{MountRoot, count, DiskPatterns})
	if err != nil {
		return "", fmt.Errorf("data disks: render script: %w", err)
	}
	return b.String(), nil
}
