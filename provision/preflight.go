package provision

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
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
