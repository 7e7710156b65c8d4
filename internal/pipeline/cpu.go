package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// cpuSample is one reading of a db host's CPU counters.
type cpuSample struct {
	mode  string // "node": /proc/stat; "process": the database processes' own CPU time
	busy  int64  // clock ticks: user+nice+system (node) or utime+stime+cutime+cstime (process)
	total int64  // clock ticks of all kinds (node mode)
	hz    int64
	cores int64
	at    float64 // seconds, the host's clock
}

// cpuScript reads a host's CPU counters. On hosts of their own it is the
// node's /proc/stat, as the seed's "CPU (User + Sys)" column is; hosts that
// share this machine's kernel (local hosts) share /proc/stat too, so there
// it sums the CPU time of the database's processes in the host's network
// namespace (the service user's), children that exited included.
func cpuScript(h infra.Host) string {
	if !h.Shared {
		return `read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
echo "mode=node busy=$((user + nice + system)) total=$((user + nice + system + idle + iowait + irq + softirq + steal)) hz=$(getconf CLK_TCK) cores=$(nproc) at=$(date +%s.%N)"`
	}
	return `uid=$(id -u ` + provision.Quote(h.ServiceUser) + `) || exit 1
me=$(readlink /proc/self/ns/net)
busy=0
for d in /proc/[0-9]*; do
  [ "$(stat -c %u "$d" 2>/dev/null)" = "$uid" ] || continue
  [ "$(readlink "$d/ns/net" 2>/dev/null)" = "$me" ] || continue
  line=$(cat "$d/stat" 2>/dev/null) || continue
  set -- ${line##*) }
  busy=$((busy + ${12} + ${13} + ${14} + ${15}))
done
echo "mode=process busy=$busy total=0 hz=$(getconf CLK_TCK) cores=$(nproc) at=$(date +%s.%N)"`
}

func parseCPU(out string) (cpuSample, error) {
	var s cpuSample
	for _, f := range strings.Fields(out) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		var err error
		switch k {
		case "mode":
			s.mode = v
		case "busy":
			s.busy, err = strconv.ParseInt(v, 10, 64)
		case "total":
			s.total, err = strconv.ParseInt(v, 10, 64)
		case "hz":
			s.hz, err = strconv.ParseInt(v, 10, 64)
		case "cores":
			s.cores, err = strconv.ParseInt(v, 10, 64)
		case "at":
			s.at, err = strconv.ParseFloat(v, 64)
		}
		if err != nil {
			return s, fmt.Errorf("cpu reading %q: %w", out, err)
		}
	}
	if s.mode == "" || s.hz <= 0 || s.cores <= 0 {
		return s, fmt.Errorf("cpu reading %q: incomplete", out)
	}
	return s, nil
}

// sampleCPU reads every db host's counters (best effort: a host that
// cannot be read is left out).
func (r *Run) sampleCPU(ctx context.Context) map[string]cpuSample {
	dbs := r.cluster.ByRole(infra.RoleDB)
	out, _ := provision.Parallel(ctx, dbs, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (*cpuSample, error) {
		res, err := r.runner.Run(ctx, h, cpuScript(h), provision.Step("cpu"))
		if err != nil || res.ExitCode != 0 {
			return nil, err
		}
		s, err := parseCPU(string(res.Stdout))
		if err != nil {
			return nil, err
		}
		return &s, nil
	})
	m := map[string]cpuSample{}
	for i, s := range out {
		if s != nil {
			m[dbs[i].Name] = *s
		}
	}
	return m
}

// cpuUse turns two readings per host into the ledger's details: the share
// of the host's cores busy over the phase (percent), what it measured, and
// the CPU seconds at the end of the phase (process mode).
func cpuUse(before, after map[string]cpuSample) map[string]string {
	out := map[string]string{}
	for host, a := range before {
		b, ok := after[host]
		if !ok || b.mode != a.mode {
			continue
		}
		var pct float64
		switch a.mode {
		case "node":
			if d := b.total - a.total; d > 0 {
				pct = 100 * float64(b.busy-a.busy) / float64(d)
			}
			out[host+".cpu_source"] = "node /proc/stat, user+nice+system over all cores"
		default:
			wall := b.at - a.at
			if wall > 0 {
				pct = 100 * float64(b.busy-a.busy) / float64(a.hz) / (wall * float64(a.cores))
			}
			out[host+".cpu_source"] = fmt.Sprintf("the database processes' own CPU time, as a share of this machine's %d cores (local hosts share one kernel and its /proc/stat)", a.cores)
			out[host+".cpu_seconds_end"] = strconv.FormatFloat(float64(b.busy)/float64(b.hz), 'f', 2, 64)
			out[host+".cpu_seconds"] = strconv.FormatFloat(float64(b.busy-a.busy)/float64(a.hz), 'f', 2, 64)
		}
		out[host+".cpu_percent"] = strconv.FormatFloat(pct, 'f', 1, 64)
	}
	return out
}
