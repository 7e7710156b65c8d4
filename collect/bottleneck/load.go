package bottleneck

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/record/hostcpu"
)

// Load is what a host's readings say of it over the measured window.
type Load struct {
	Host string `json:"host"`
	Role string `json:"role"` // db or client
	// Shared marks a host that shares this machine's kernel: its CPU,
	// disk and run-queue figures are the machine's.
	Shared bool `json:"shared,omitempty"`
	// Seconds is the time the readings used span; Whole is set when the
	// window held fewer than two of them and the whole phase (warm-up
	// included) was used.
	Seconds float64 `json:"seconds"`
	Whole   bool    `json:"whole_phase,omitempty"`
	// OwnCores are the cores the tool's own processes used (the agent's
	// on a client, the database's on a db host), of AllowedCores they may
	// use; OwnPercent is the one of the other; OwnThreads their threads.
	OwnCores     float64 `json:"own_cores"`
	AllowedCores float64 `json:"allowed_cores"`
	OwnPercent   float64 `json:"own_percent"`
	OwnThreads   int64   `json:"own_threads"`
	// ThrottledPercent is the share of its CPU quota's periods (those
	// with work) in which the processes' cgroup ran out of the quota (0
	// with no quota): CPU time reads below a quota the kernel held them to,
	// for what a period's leftover slices lose.
	ThrottledPercent float64 `json:"throttled_percent,omitempty"`
	// BusyPercent, StealPercent and IOWaitPercent are shares of the
	// kernel's ticks (the machine's for a shared host); RunQueue is the
	// mean of procs_running over the readings.
	BusyPercent   float64 `json:"busy_percent"`
	StealPercent  float64 `json:"steal_percent"`
	IOWaitPercent float64 `json:"iowait_percent"`
	RunQueue      float64 `json:"run_queue"`
	// Disk is the busiest disk, its utilisation and bytes/s.
	Disk            string  `json:"disk,omitempty"`
	DiskUtilPercent float64 `json:"disk_util_percent"`
	DiskReadBps     float64 `json:"disk_read_bytes_per_sec"`
	DiskWriteBps    float64 `json:"disk_write_bytes_per_sec"`
	// Net is the busiest interface in bytes, its bytes/s in its busier
	// direction and packets/s both ways.
	Net    string  `json:"net,omitempty"`
	NetBps float64 `json:"net_bytes_per_sec"`
	NetPps float64 `json:"net_packets_per_sec"`
	// SamplerPercent is what reading the host every second cost it, in
	// percent of one core (samplerCost; absent where its readings did not
	// count it).
	SamplerPercent *float64 `json:"sampler_percent_of_core,omitempty"`
}

// window picks a span's readings inside [from, to] (host clock seconds),
// the first and the last: when fewer than two fall inside, or no window is
// known, the span's first and last readings, and whole is set.
func window(s hostcpu.Span, from, to float64) (a, b hostcpu.Sample, whole bool) {
	r := s.Readings()
	if from > 0 && to > from {
		var in []hostcpu.Sample
		for _, x := range r {
			if x.At >= from && x.At <= to {
				in = append(in, x)
			}
		}
		if len(in) >= 2 {
			return in[0], in[len(in)-1], false
		}
	}
	// The last reading is taken after the agents stopped, when a client's
	// agent is gone and its CPU time with it: end at the last reading
	// that still saw the tool's processes.
	b = r[len(r)-1]
	for i := len(r) - 1; i > 0; i-- {
		if r[i].Own != nil && r[i].Own.Procs > 0 {
			b = r[i]
			break
		}
	}
	return r[0], b, true
}

// loadOf computes a host's load between the readings of its span inside
// the window; an error says what its readings lack.
func loadOf(host, role string, s hostcpu.Span, from, to float64) (Load, error) {
	a, b, whole := window(s, from, to)
	l := Load{Host: host, Role: role, Shared: a.Mode == hostcpu.ModeProcess, Whole: whole, Seconds: round(b.At-a.At, 100), SamplerPercent: samplerCost(s)}
	if a.Own == nil || b.Own == nil || a.Node == nil || b.Node == nil {
		return l, fmt.Errorf("%s's readings carry no process or kernel counters (taken before they were read)", host)
	}
	if a.Own.Procs == 0 && b.Own.Procs == 0 {
		return l, fmt.Errorf("%s: no process of the %s was found while it was read", host, own(role))
	}
	wall := b.At - a.At
	if wall <= 0 || a.Hz <= 0 {
		return l, fmt.Errorf("%s's readings span no time", host)
	}
	if d := b.Own.Busy - a.Own.Busy; d >= 0 {
		l.OwnCores = round(float64(d)/float64(a.Hz)/wall, 100)
	}
	l.AllowedCores = allowedCores(b.Own, b.Cores)
	if l.AllowedCores > 0 {
		l.OwnPercent = round(100*l.OwnCores/l.AllowedCores, 10)
	}
	l.OwnThreads = b.Own.Threads
	if p := b.Own.Periods - a.Own.Periods; p > 0 && b.Own.Throttled >= a.Own.Throttled {
		l.ThrottledPercent = round(math.Min(100*float64(b.Own.Throttled-a.Own.Throttled)/float64(p), 100), 10)
	}
	if tot := b.Node.Total() - a.Node.Total(); tot > 0 {
		l.BusyPercent = round(100*float64(b.Node.Busy()-a.Node.Busy())/float64(tot), 10)
		l.StealPercent = round(100*float64(b.Node.Steal-a.Node.Steal)/float64(tot), 10)
		l.IOWaitPercent = round(100*float64(b.Node.IOWait-a.Node.IOWait)/float64(tot), 10)
	}
	l.RunQueue = meanRunQueue(s, a.At, b.At)
	before := map[string]hostcpu.Disk{}
	for _, d := range a.Disks {
		before[d.Name] = d
	}
	for _, d := range b.Disks {
		p, ok := before[d.Name]
		if !ok {
			continue
		}
		if u := 100 * float64(d.IOTicks-p.IOTicks) / (wall * 1000); u > l.DiskUtilPercent || l.Disk == "" {
			l.Disk, l.DiskUtilPercent = d.Name, round(math.Min(u, 100), 10)
			l.DiskReadBps = round(float64(d.ReadSectors-p.ReadSectors)*512/wall, 1)
			l.DiskWriteBps = round(float64(d.WriteSectors-p.WriteSectors)*512/wall, 1)
		}
	}
	nets := map[string]hostcpu.Net{}
	for _, n := range a.Nets {
		nets[n.Name] = n
	}
	for _, n := range b.Nets {
		p, ok := nets[n.Name]
		if !ok {
			continue
		}
		bps := math.Max(float64(n.RxBytes-p.RxBytes), float64(n.TxBytes-p.TxBytes)) / wall
		if bps > l.NetBps || l.Net == "" {
			l.Net, l.NetBps = n.Name, round(bps, 1)
			l.NetPps = round(float64(n.RxPackets-p.RxPackets+n.TxPackets-p.TxPackets)/wall, 1)
		}
	}
	return l, nil
}

// own names whose processes a host of role counts as its own.
func own(role string) string {
	if role == "client" {
		return "agent"
	}
	return "database"
}

// meanRunQueue is the mean procs_running of a span's readings from a to b.
func meanRunQueue(s hostcpu.Span, a, b float64) float64 {
	var sum float64
	n := 0
	for _, x := range s.Readings() {
		if x.At >= a && x.At <= b {
			sum += float64(x.ProcsRunning)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return round(sum/float64(n), 10)
}

// allowedCores is what bounds the processes: the CPUs of their affinity,
// and their cgroup's quota ÷ period, whichever is fewer; the machine's
// cores when neither can be read.
func allowedCores(o *hostcpu.Own, machine int64) float64 {
	n := float64(machine)
	if c := cpuListLen(o.CPUsAllowed); c > 0 && (n == 0 || float64(c) < n) {
		n = float64(c)
	}
	if f := strings.Fields(o.CPUQuota); len(f) == 2 && f[0] != "max" && f[0] != "-1" {
		q, err1 := strconv.ParseFloat(f[0], 64)
		p, err2 := strconv.ParseFloat(f[1], 64)
		if err1 == nil && err2 == nil && q > 0 && p > 0 && q/p < n {
			n = q / p
		}
	}
	return round(n, 100)
}

// cpuListLen counts the CPUs of a list such as "0-3,6" (0 when it does not
// parse).
func cpuListLen(s string) int {
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}

func round(x, per float64) float64 { return math.Round(x*per) / per }
