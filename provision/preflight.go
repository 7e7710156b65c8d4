package provision

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/shellquote"
)

// Defaults of PreflightOptions.
const (
	// DefaultMinFreeBytes is the free space required on each checked path.
	DefaultMinFreeBytes = 1 << 30
	// DefaultMaxClockSkew is half YugabyteDB's default --max_clock_skew_usec
	// (500 ms): the agents start together by wall clock, and a server
	// shuts itself down past the full value.
	DefaultMaxClockSkew = 250 * time.Millisecond
	// DefaultWarnNoFile and DefaultWarnNProc are YugabyteDB's recommended
	// ulimits (nofile 1048576, nproc 12000); below them is a warning.
	DefaultWarnNoFile = 1048576
	DefaultWarnNProc  = 12000
	// DefaultClockSamples is how many clock readings are taken per host;
	// the one with the shortest round trip is kept.
	DefaultClockSamples = 5
)

// PreflightOptions configure Preflight. Zero values take the defaults.
type PreflightOptions struct {
	// MinFreeBytes is the free space required on Host.Base and on every
	// data directory.
	MinFreeBytes int64
	// MaxClockSkew is the largest clock offset from the orchestrator a
	// host may have.
	MaxClockSkew time.Duration
	// WarnNoFile and WarnNProc are the `ulimit -n` and `ulimit -u` values
	// below which a warning is recorded.
	WarnNoFile, WarnNProc int64
	// ClockSamples is how many clock readings are taken per host.
	ClockSamples int
	// CloudInitWait bounds the wait for cloud-init on a cloud host
	// (default DefaultCloudInitWait).
	CloudInitWait time.Duration
	// Parallel bounds the fan-out (FailFast is ignored: every host is
	// checked, so the report names every bad one).
	Parallel ParallelOptions
	// Logger receives one line per host (default: discard).
	Logger *slog.Logger
}

func (o PreflightOptions) withDefaults() PreflightOptions {
	if o.MinFreeBytes <= 0 {
		o.MinFreeBytes = DefaultMinFreeBytes
	}
	if o.MaxClockSkew <= 0 {
		o.MaxClockSkew = DefaultMaxClockSkew
	}
	if o.WarnNoFile <= 0 {
		o.WarnNoFile = DefaultWarnNoFile
	}
	if o.WarnNProc <= 0 {
		o.WarnNProc = DefaultWarnNProc
	}
	if o.ClockSamples <= 0 {
		o.ClockSamples = DefaultClockSamples
	}
	if o.CloudInitWait <= 0 {
		o.CloudInitWait = DefaultCloudInitWait
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Parallel.FailFast = false
	return o
}

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

// Preflight checks every host in parallel before anything is installed:
// reachable; free disk on Host.Base and its data directories; `ulimit -n`
// and `ulimit -u` (recorded, a warning when low); and the clock against
// the orchestrator's: `date +%s.%N` (found through the host's PATH) read
// several times in one session, each reading timed from the request to
// the answer, skew = remote − midpoint of the shortest round trip,
// uncertainty = half that round trip. A skew past MaxClockSkew, too
// little disk or an unreachable host fails the preflight.
//
// A cloud host (Host.Cloud aws or gcp: see cloudHost) is first waited
// for: `cloud-init status --wait`, bounded by CloudInitWait, must end
// done (recoverable errors are a warning; a failure, a host still
// booting at the bound, or no cloud-init fail it); then each of its data
// directories must be on a mount of its own below cloudinit.MountRoot,
// and Check.Mounts records which.
//
// The checks come back in host order whatever happened; the error joins
// one *HostError per failed host, with messages naming the host.
func Preflight(ctx context.Context, r Runner, hosts []infra.Host, opts PreflightOptions) ([]Check, error) {
	o := opts.withDefaults()
	checks, err := Parallel(ctx, hosts, o.Parallel, func(ctx context.Context, h infra.Host) (Check, error) {
		c := preflightHost(ctx, r, h, o)
		if c.OK() {
			o.Logger.Info("preflight ok", "host", h.Name, "clock_skew", c.ClockSkew, "uncertainty", c.ClockUncertainty,
				"nofile", c.NoFile, "nproc", c.NProc, "warnings", len(c.Warnings))
			return c, nil
		}
		o.Logger.Warn("preflight failed", "host", h.Name, "failures", strings.Join(c.Failures, "; "))
		return c, exitcode.Errorf(exitcode.Provision, "preflight: %s", strings.Join(c.Failures, "; "))
	})
	if err != nil {
		return checks, exitcode.Wrap(exitcode.Provision, err)
	}
	return checks, nil
}

func preflightHost(ctx context.Context, r Runner, h infra.Host, o PreflightOptions) Check {
	c := Check{Host: h.Name, MaxClockSkew: o.MaxClockSkew}
	var mountDirs []string
	if cloudHost(h) {
		// Before anything else: until cloud-init is done, the disks may
		// not be mounted yet, nor the run's host keys installed.
		if !waitCloudInit(ctx, r, h, o.CloudInitWait, &c) {
			return c
		}
		mountDirs = unique(h.DataDirs)
	}
	paths := preflightPaths(h)
	res, err := r.Run(ctx, h, factsScript(paths, mountDirs), Step("preflight"))
	if err != nil {
		c.Failures = append(c.Failures, fmt.Sprintf("%s is not reachable: %v", h.Name, err))
		return c
	}
	c.Reachable = true
	if res.ExitCode != 0 {
		c.Failures = append(c.Failures, fmt.Sprintf("preflight script on %s exited %d: %s", h.Name, res.ExitCode, strings.TrimSpace(tail(res.Stderr, 512))))
	} else if err := parseFacts(res.Stdout, &c, o.MinFreeBytes); err != nil {
		c.Failures = append(c.Failures, fmt.Sprintf("preflight on %s: %v", h.Name, err))
	}
	c.Failures = append(c.Failures, mountFailures(h.Name, c.Mounts)...)
	if len(paths) == 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s has no base directory: free disk not checked", h.Name))
	}
	for _, d := range c.Disks {
		if d.FreeBytes < d.MinFreeBytes {
			c.Failures = append(c.Failures, fmt.Sprintf("free disk on %s at %s (%s) is %s, below the minimum %s",
				h.Name, d.Path, d.Checked, bytesIEC(d.FreeBytes), bytesIEC(d.MinFreeBytes)))
		}
	}
	for _, u := range []struct {
		name      string
		v, needed int64
	}{{"ulimit -n (open files)", c.NoFile, o.WarnNoFile}, {"ulimit -u (processes)", c.NProc, o.WarnNProc}} {
		if u.v >= 0 && u.v < u.needed {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s on %s is %d, below the recommended %d", u.name, h.Name, u.v, u.needed))
		}
	}

	skew, unc, err := measureClock(ctx, r, h, o.ClockSamples)
	if err != nil {
		c.Failures = append(c.Failures, fmt.Sprintf("cannot read the clock of %s: %v", h.Name, err))
		return c
	}
	c.ClockMeasured, c.ClockSkew, c.ClockUncertainty = true, skew, unc
	if skew > o.MaxClockSkew || skew < -o.MaxClockSkew {
		c.Failures = append(c.Failures, fmt.Sprintf("clock skew on %s is %s (±%s) against the orchestrator, past the limit of %s (half YugabyteDB's default max clock skew, since agents start together by wall clock): synchronize the clocks (chrony) and run again",
			h.Name, signed(skew), unc.Round(time.Microsecond), o.MaxClockSkew))
	} else if unc > o.MaxClockSkew/2 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("clock of %s measured with ±%s uncertainty (slow round trips)", h.Name, unc.Round(time.Microsecond)))
	}
	return c
}

// waitCloudInit runs cloudInitScript on a cloud host and records the
// answer in c; false when the host could not be reached, and nothing
// more can be checked.
func waitCloudInit(ctx context.Context, r Runner, h infra.Host, wait time.Duration, c *Check) bool {
	// The script bounds its own wait; the runner's bound is for a host
	// that stops answering meanwhile.
	res, err := r.Run(ctx, h, cloudInitScript(wait), Step("preflight-cloud-init"), Timeout(wait+cloudInitKillGrace+cloudInitSlack))
	if err != nil {
		c.Failures = append(c.Failures, fmt.Sprintf("%s is not reachable: %v", h.Name, err))
		return false
	}
	c.Reachable = true
	if res.ExitCode != 0 {
		c.Failures = append(c.Failures, fmt.Sprintf("cloud-init check on %s exited %d: %s", h.Name, res.ExitCode, strings.TrimSpace(tail(res.Stderr, 512))))
		return true
	}
	ci, err := parseCloudInit(res.Stdout)
	if err != nil {
		c.Failures = append(c.Failures, fmt.Sprintf("cloud-init check on %s: %v", h.Name, err))
		return true
	}
	c.CloudInit = &ci
	w, f := cloudInitFindings(h.Name, ci, wait)
	c.Warnings, c.Failures = append(c.Warnings, w...), append(c.Failures, f...)
	return true
}

// unique returns ss without repeats, in order.
func unique(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// preflightPaths are the directories whose free space is checked: Base
// and the data directories (Base/data when none are given).
func preflightPaths(h infra.Host) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(h.Base)
	if len(h.DataDirs) == 0 && h.Base != "" {
		add(filepath.Join(h.Base, "data"))
	}
	for _, d := range h.DataDirs {
		add(d)
	}
	return out
}

// factsScript prints the ulimits and, per path, the free kilobytes of the
// path or of its nearest existing ancestor (a run's directories may not
// exist yet), tab-separated; then, per mountDirs entry (a cloud host's
// data directories), the mount that holds it (writeMountsScript).
func factsScript(paths, mountDirs []string) string {
	var b strings.Builder
	b.WriteString("set -u\n")
	b.WriteString("printf 'kernel\\t%s\\n' \"$(uname -r)\"\n")
	b.WriteString("printf 'arch\\t%s\\n' \"$(uname -m)\"\n")
	b.WriteString("printf 'cpus\\t%s\\n' \"$(nproc)\"\n")
	b.WriteString("printf 'mem_kb\\t%s\\n' \"$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)\"\n")
	b.WriteString("printf 'os\\t%s\\n' \"$(. /etc/os-release 2>/dev/null; echo \"${PRETTY_NAME:-}\")\"\n")
	b.WriteString("printf 'nofile\\t%s\\n' \"$(ulimit -n)\"\n")
	b.WriteString("printf 'nproc\\t%s\\n' \"$(ulimit -u)\"\n")
	if len(paths) > 0 {
		b.WriteString("for p in")
		for _, p := range paths {
			b.WriteString(" " + shellquote.Quote(p))
		}
		b.WriteString(`; do
  d=$p
  while [ ! -e "$d" ]; do d=$(dirname -- "$d"); done
  avail=$(df -Pk -- "$d" | awk 'NR==2 {print $4}')
  printf 'disk\t%s\t%s\t%s\n' "${avail:-unknown}" "$d" "$p"
done
`)
	}
	writeMountsScript(&b, mountDirs)
	return b.String()
}

// parseFacts reads factsScript's output into c.
func parseFacts(out []byte, c *Check, minFree int64) error {
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case len(f) == 2 && (f[0] == "nofile" || f[0] == "nproc"):
			v, err := parseUlimit(f[1])
			if err != nil {
				return fmt.Errorf("ulimit %s: %w", f[0], err)
			}
			if f[0] == "nofile" {
				c.NoFile = v
			} else {
				c.NProc = v
			}
		case len(f) == 2 && (f[0] == "kernel" || f[0] == "arch" || f[0] == "os"):
			*map[string]*string{"kernel": &c.System.Kernel, "arch": &c.System.Arch, "os": &c.System.OS}[f[0]] = f[1]
		case len(f) == 2 && f[0] == "cpus":
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return fmt.Errorf("nproc printed %q", f[1])
			}
			c.System.CPUs = n
		case len(f) == 2 && f[0] == "mem_kb":
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return fmt.Errorf("MemTotal of /proc/meminfo: %q", f[1])
			}
			c.System.MemKB = n
		case len(f) == 4 && f[0] == "disk":
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return fmt.Errorf("free disk of %s: df printed %q", f[3], f[1])
			}
			c.Disks = append(c.Disks, DiskCheck{Path: f[3], Checked: f[2], FreeBytes: kb * 1024, MinFreeBytes: minFree})
		case len(f) == 4 && f[0] == "mount":
			c.Mounts = append(c.Mounts, parseMount(f[1], f[2], f[3]))
		case line == "":
		default:
			return fmt.Errorf("unexpected output line %q", line)
		}
	}
	return nil
}

func parseUlimit(s string) (int64, error) {
	if s == "unlimited" {
		return -1, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// clockScript answers each line on stdin with the host's time. `date` is
// looked up through PATH on every reading.
const clockScript = "while IFS= read -r _; do date +%s.%N; done\n"

// clockSampleTimeout bounds the wait for one clock reading.
const clockSampleTimeout = 15 * time.Second

// measureClock reads the host's clock samples times in one session: a line
// is written to the command's stdin and the time is taken just before
// that and just after the answer arrives, so the round trip covers the
// network and one `date`, not the session setup. The sample with the
// shortest round trip gives skew = remote − midpoint and uncertainty =
// half the round trip.
func measureClock(ctx context.Context, r Runner, h infra.Host, samples int) (skew, uncertainty time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	// A reader that stops reading must not block the command's output.
	clock := make(chan string, 64)
	lines := &LineWriter{Fn: func(l string) {
		select {
		case clock <- l:
		default:
		}
	}}
	type runOut struct {
		res Result
		err error
	}
	done := make(chan runOut, 1)
	go func() {
		res, err := r.Run(ctx, h, clockScript, Step("preflight-clock"), Stdin(pr), Output(lines, nil))
		// Unblocks a pending write when the command never read its stdin.
		pr.CloseWithError(errors.New("clock command ended"))
		done <- runOut{res, err}
	}()
	ended := func(o runOut) error {
		if o.err != nil {
			return o.err
		}
		return fmt.Errorf("clock command ended early (exit %d): %s", o.res.ExitCode, strings.TrimSpace(tail(o.res.Stderr, 512)))
	}

	best := time.Duration(-1)
	for range samples {
		before := time.Now()
		if _, err := pw.Write([]byte{'\n'}); err != nil {
			return 0, 0, ended(<-done)
		}
		var line string
		select {
		case line = <-clock:
		case o := <-done:
			return 0, 0, ended(o)
		case <-time.After(clockSampleTimeout):
			return 0, 0, fmt.Errorf("no clock reading within %s", clockSampleTimeout)
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
		after := time.Now()
		remote, err := parseDate(line)
		if err != nil {
			return 0, 0, err
		}
		rtt := after.Sub(before) // monotonic
		if best < 0 || rtt < best {
			best = rtt
			skew = remote.Sub(before.Add(rtt / 2).Round(0)) // wall clocks
		}
	}
	_ = pw.Close()
	select {
	case o := <-done:
		if o.err != nil {
			return 0, 0, o.err
		}
	case <-time.After(clockSampleTimeout):
		return 0, 0, fmt.Errorf("clock command did not end after its stdin closed")
	}
	return skew, best / 2, nil
}

// parseDate reads `date +%s.%N` output.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	sec, frac, ok := strings.Cut(s, ".")
	secs, err := strconv.ParseInt(sec, 10, 64)
	if !ok || err != nil || len(frac) == 0 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return time.Time{}, fmt.Errorf("`date +%%s.%%N` printed %q (GNU date is needed)", s)
	}
	ns, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	return time.Unix(secs, ns), nil
}

// signed formats a duration with its sign, rounded to the microsecond.
func signed(d time.Duration) string {
	d = d.Round(time.Microsecond)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// bytesIEC formats a byte count in GiB or MiB.
func bytesIEC(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
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
