package provision

import (
	"cmp"
	"strconv"
	"strings"
	"time"
)

// Check is what the preflight found on one host, kept for the ledger and
// result.json (clock skew shapes how far apart agents start).
type Check struct {
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	// Disks are the free-space checks of Base and the data directories.
	Disks []DiskCheck `json:"disks,omitempty"`
	// CloudInit is cloud-init's answer on a cloud host (nil elsewhere).
	CloudInit *CloudInitCheck `json:"cloud_init,omitempty"`
	// Mounts are the mounts a cloud host's data directories are on.
	Mounts []MountCheck `json:"mounts,omitempty"`
	// NoFile and NProc are `ulimit -n` and `ulimit -u` of the SSH user's
	// shell: -1 is unlimited, 0 unknown.
	NoFile int64 `json:"ulimit_nofile"`
	NProc  int64 `json:"ulimit_nproc"`
	// ClockSkew is the host's clock minus the orchestrator's, measured
	// with ClockUncertainty (half the shortest round trip); ClockMeasured
	// is false when it could not be read.
	ClockMeasured    bool          `json:"clock_measured"`
	ClockSkew        time.Duration `json:"clock_skew_ns"`
	ClockUncertainty time.Duration `json:"clock_uncertainty_ns"`
	MaxClockSkew     time.Duration `json:"max_clock_skew_ns"`
	// Warnings do not fail the run; Failures do.
	// System is what the host is: kernel, architecture, CPUs, memory, OS.
	System   SystemFacts `json:"system"`
	Warnings []string    `json:"warnings,omitempty"`
	Failures []string    `json:"failures,omitempty"`
}

// OK reports whether the host passed.
func (c Check) OK() bool { return len(c.Failures) == 0 }

// SystemFacts are what result.json records about a host, read by the
// preflight's one script.
type SystemFacts struct {
	Kernel string `json:"kernel"` // uname -r
	Arch   string `json:"arch"`   // uname -m
	CPUs   int    `json:"cpus"`   // nproc: the CPUs this process may use
	MemKB  int64  `json:"mem_kb"` // MemTotal of /proc/meminfo
	OS     string `json:"os"`     // PRETTY_NAME of /etc/os-release ("" without one)
}

// DiskCheck is the free space of one path on a host.
type DiskCheck struct {
	Path string `json:"path"`
	// Checked is the path measured: Path, or its nearest existing
	// ancestor when Path does not exist yet.
	Checked      string `json:"checked"`
	FreeBytes    int64  `json:"free_bytes"`
	MinFreeBytes int64  `json:"min_free_bytes"`
}

// Facts flattens the check into the string map the run ledger keeps per
// host (hosts.json): reachable, kernel, arch, cpus, mem_kb, os,
// clock_skew_ms, clock_uncertainty_ms, ulimit_nofile, ulimit_nproc,
// free_bytes:<path>, warnings, failures; on a cloud host also cloud_init
// (CloudInitCheck.Summary) and, per data directory, mount:<path> (the
// mount point holding it, "unknown" when none was found) and
// device:<path> (what is mounted there).
func (c Check) Facts() map[string]string {
	f := map[string]string{"reachable": strconv.FormatBool(c.Reachable)}
	if s := c.System; s.Kernel != "" {
		f["kernel"], f["arch"], f["os"] = s.Kernel, s.Arch, s.OS
		f["cpus"], f["mem_kb"] = strconv.Itoa(s.CPUs), strconv.FormatInt(s.MemKB, 10)
	}
	if c.ClockMeasured {
		f["clock_skew_ms"] = strconv.FormatFloat(float64(c.ClockSkew)/float64(time.Millisecond), 'f', 3, 64)
		f["clock_uncertainty_ms"] = strconv.FormatFloat(float64(c.ClockUncertainty)/float64(time.Millisecond), 'f', 3, 64)
		f["max_clock_skew_ms"] = strconv.FormatFloat(float64(c.MaxClockSkew)/float64(time.Millisecond), 'f', 3, 64)
	}
	for k, v := range map[string]int64{"ulimit_nofile": c.NoFile, "ulimit_nproc": c.NProc} {
		switch v {
		case 0:
		case -1:
			f[k] = "unlimited"
		default:
			f[k] = strconv.FormatInt(v, 10)
		}
	}
	for _, d := range c.Disks {
		f["free_bytes:"+d.Path] = strconv.FormatInt(d.FreeBytes, 10)
	}
	if c.CloudInit != nil {
		f["cloud_init"] = c.CloudInit.Summary()
	}
	for _, m := range c.Mounts {
		f["mount:"+m.Path] = cmp.Or(m.Target, "unknown")
		if m.Source != "" {
			f["device:"+m.Path] = m.Source
		}
	}
	if len(c.Warnings) > 0 {
		f["warnings"] = strings.Join(c.Warnings, "; ")
	}
	if len(c.Failures) > 0 {
		f["failures"] = strings.Join(c.Failures, "; ")
	}
	return f
}

// PreflightFacts is Facts of every check, by host name.
func PreflightFacts(checks []Check) map[string]map[string]string {
	out := make(map[string]map[string]string, len(checks))
	for _, c := range checks {
		out[c.Host] = c.Facts()
	}
	return out
}
