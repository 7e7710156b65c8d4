package bottleneck

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/record/hostcpu"
)

// Phase is what of a measured phase the rules read besides the hosts.
type Phase struct {
	Threads    int
	Throughput float64 // operations per second
	// Sanity is threads ÷ (throughput × mean latency): Little's law's
	// figure, ≈ 1 for a closed loop (0: not computed).
	Sanity float64
	// TargetOpsPerSec is the open-model rate asked for (0: a closed loop).
	TargetOpsPerSec float64
	Ops, Late       int64
	// From and To bound the measured window, in Unix seconds (0: unknown).
	From, To float64
}

// Input is everything a verdict is drawn from.
type Input struct {
	Phase Phase
	// DBs and Clients are the hosts' spans by name; WantDBs and
	// WantClients the hosts that should have one (nil: those present).
	DBs, Clients         map[string]hostcpu.Span
	WantDBs, WantClients []string
	// Off says why no host was read on purpose ("host_samples off").
	Off   string
	Rules Rules
}

// Verdict is what limited a measured phase, and the figures that say so.
type Verdict struct {
	LimitedBy string `json:"limited_by"`
	// Summary is the one line the reports open with.
	Summary string `json:"summary"`
	// Evidence are the figures behind it; Fired every rule that fired,
	// in the order tried (the first is the verdict).
	Evidence []string `json:"evidence"`
	Fired    []string `json:"rules_fired,omitempty"`
	Hosts    []Load   `json:"hosts,omitempty"`
	Rules    Rules    `json:"rules"`
}

// Judge applies the rules in order (Verdicts) and gives the first that
// fires; with a host's counters missing it gives Unknown, saying which,
// for a saturated host it could not read might be the limit.
func Judge(in Input) Verdict {
	v := Verdict{Rules: in.Rules}
	if in.Off != "" {
		return v.unknown("the hosts were not read (" + in.Off + ")")
	}
	var missing []string
	loads := func(role string, spans map[string]hostcpu.Span, want []string) []Load {
		if want == nil {
			for h := range spans {
				want = append(want, h)
			}
			sort.Strings(want)
		}
		var out []Load
		for _, h := range want {
			s, ok := spans[h]
			if !ok {
				missing = append(missing, h+" was not read")
				continue
			}
			l, err := loadOf(h, role, s, in.Phase.From, in.Phase.To)
			if err != nil {
				missing = append(missing, err.Error())
				continue
			}
			out = append(out, l)
		}
		return out
	}
	dbs := loads("db", in.DBs, in.WantDBs)
	clients := loads("client", in.Clients, in.WantClients)
	v.Hosts = append(append(v.Hosts, clients...), dbs...)
	if len(missing) > 0 {
		return v.unknown(strings.Join(missing, "; "))
	}
	if len(dbs) == 0 || len(clients) == 0 {
		return v.unknown("no db host or no client was read")
	}
	for _, h := range v.Hosts {
		if h.Whole {
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s: fewer than two readings fell inside the measured window; its figures cover the whole phase, warm-up included", h.Host))
		}
	}
	r := in.Rules
	type fired struct{ verdict, summary string }
	var all []fired
	fire := func(verdict, summary string, evidence ...string) {
		all = append(all, fired{verdict, summary})
		v.Evidence = append(v.Evidence, evidence...)
	}
	ph := in.Phase
	if ph.TargetOpsPerSec > 0 && ph.Throughput >= ph.TargetOpsPerSec*r.Target/100 {
		fire(Target, fmt.Sprintf("Limited by its target: %s ops/s asked, %s achieved", num(ph.TargetOpsPerSec), num(ph.Throughput)),
			fmt.Sprintf("achieved %.1f%% of the target rate (rule: ≥ %g%%)", 100*ph.Throughput/ph.TargetOpsPerSec, r.Target))
	}
	resourceRules(clients, dbs, v.Hosts, r, fire)
	if ph.TargetOpsPerSec > 0 && ph.Ops > 0 && len(all) == 0 {
		if late := 100 * float64(ph.Late) / float64(ph.Ops); late > r.Late {
			fire(Client, fmt.Sprintf("Limited by the client: its %d workers were all busy when operations were due (%.1f%% started late)", ph.Threads, late),
				fmt.Sprintf("%.2f%% of the operations started late, nothing else saturated (rule: > %g%%)", late, r.Late))
		}
	}
	if len(all) == 0 {
		s := "Limited by concurrency: nothing saturated"
		if ph.Sanity > 0 && ph.Throughput > 0 {
			s = fmt.Sprintf("Limited by concurrency: nothing saturated; %d threads ÷ their mean latency = %s ops/s (measured %s)", ph.Threads, num(ph.Throughput*ph.Sanity), num(ph.Throughput))
		}
		fire(Concurrency, s, "no rule fired: "+busiest(v.Hosts))
	}
	if e := samplingEvidence(v.Hosts); e != "" {
		v.Evidence = append(v.Evidence, e)
	}
	v.LimitedBy, v.Summary = all[0].verdict, all[0].summary
	for _, f := range all {
		if !slices.Contains(v.Fired, f.verdict) {
			v.Fired = append(v.Fired, f.verdict)
		}
	}
	return v
}

// resourceRules fire the rules of the hosts' resources, in order: the
// clients' CPU, the database's CPU, its disks, the network.
func resourceRules(clients, dbs, hosts []Load, r Rules, fire func(verdict, summary string, evidence ...string)) {
	for _, c := range clients {
		if c.OwnPercent >= r.ClientCPU {
			fire(Client, fmt.Sprintf("Limited by the client: ybload used %.2f of %s cores on %s", c.OwnCores, num(c.AllowedCores), c.Host),
				fmt.Sprintf("%s: the agent used %.1f%% of the %s cores it may use%s (rule: ≥ %g%%)", c.Host, c.OwnPercent, num(c.AllowedCores), quotaRanOut(c), r.ClientCPU))
		} else if r.Throttled > 0 && c.ThrottledPercent >= r.Throttled {
			fire(Client, fmt.Sprintf("Limited by the client: ybload was held by its CPU quota of %s cores on %s, using %.2f", num(c.AllowedCores), c.Host, c.OwnCores),
				fmt.Sprintf("%s: the agent ran out of its CPU quota in %.1f%% of its periods, using %.1f%% of the %s cores it may use (rule: ≥ %g%% of the periods)", c.Host, c.ThrottledPercent, c.OwnPercent, num(c.AllowedCores), r.Throttled))
		} else if !c.Shared && c.BusyPercent >= r.ClientCPU {
			fire(Client, fmt.Sprintf("Limited by the client: %s was %.1f%% busy", c.Host, c.BusyPercent),
				fmt.Sprintf("%s: the host was %.1f%% busy, the agent using %.2f cores (rule: ≥ %g%%)", c.Host, c.BusyPercent, c.OwnCores, r.ClientCPU))
		}
	}
	for _, d := range dbs {
		switch {
		case d.OwnPercent >= r.DatabaseCPU:
			fire(DatabaseCPU, fmt.Sprintf("Limited by the database's CPU: its processes used %.2f of %s cores on %s", d.OwnCores, num(d.AllowedCores), d.Host),
				fmt.Sprintf("%s: the database's processes used %.1f%% of the %s cores they may use%s (rule: ≥ %g%%)", d.Host, d.OwnPercent, num(d.AllowedCores), quotaRanOut(d), r.DatabaseCPU))
		case r.Throttled > 0 && d.ThrottledPercent >= r.Throttled:
			fire(DatabaseCPU, fmt.Sprintf("Limited by the database's CPU: its processes were held by their CPU quota of %s cores on %s, using %.2f", num(d.AllowedCores), d.Host, d.OwnCores),
				fmt.Sprintf("%s: the database's processes ran out of their CPU quota in %.1f%% of its periods, using %.1f%% of the %s cores they may use (rule: ≥ %g%% of the periods)", d.Host, d.ThrottledPercent, d.OwnPercent, num(d.AllowedCores), r.Throttled))
		case !d.Shared && d.BusyPercent >= r.DatabaseCPU:
			fire(DatabaseCPU, fmt.Sprintf("Limited by the database's CPU: %s was %.1f%% busy", d.Host, d.BusyPercent),
				fmt.Sprintf("%s: the host was %.1f%% busy (rule: ≥ %g%%)", d.Host, d.BusyPercent, r.DatabaseCPU))
		}
	}
	if summary, evidence := sharedMachine(clients, dbs, r); summary != "" {
		fire(DatabaseCPU, summary, evidence)
	}
	for _, d := range dbs {
		if d.Disk != "" && d.DiskUtilPercent >= r.DiskUtil {
			fire(DatabaseDisk, fmt.Sprintf("Limited by the database's disk: %s was %.0f%% busy on %s", d.Disk, d.DiskUtilPercent, d.Host),
				fmt.Sprintf("%s: %s had I/O in flight %.1f%% of the time, reading %s B/s and writing %s B/s (rule: ≥ %g%%)", d.Host, d.Disk, d.DiskUtilPercent, num(d.DiskReadBps), num(d.DiskWriteBps), r.DiskUtil))
		}
	}
	if r.LinkGbps > 0 {
		for _, h := range hosts {
			if gbps := h.NetBps * 8 / 1e9; h.Net != "" && gbps >= r.LinkGbps*r.Link/100 {
				fire(Network, fmt.Sprintf("Limited by the network: %s carried %.2f of %g Gbit/s on %s", h.Net, gbps, r.LinkGbps, h.Host),
					fmt.Sprintf("%s: %s carried %.2f Gbit/s in its busier direction, %s packets/s (rule: ≥ %g%% of %g Gbit/s)", h.Host, h.Net, gbps, num(h.NetPps), r.Link, r.LinkGbps))
			}
		}
	}
}

// sharedMachine fires the database-cpu rule for hosts that share one
// kernel: when the machine was busy past the rule and the database's
// processes used more of it than the agents did. It gives the verdict's
// summary and its evidence ("" when the rule does not fire).
func sharedMachine(clients, dbs []Load, r Rules) (summary, evidence string) {
	var busy, db, agent float64
	for _, h := range append(append([]Load{}, clients...), dbs...) {
		if !h.Shared {
			return "", ""
		}
		busy = h.BusyPercent
		if h.Role == "db" {
			db += h.OwnCores
		} else {
			agent += h.OwnCores
		}
	}
	if busy < r.DatabaseCPU || db <= agent {
		return "", ""
	}
	return fmt.Sprintf("Limited by the database's CPU: the machine the local hosts share was %.1f%% busy, the database's processes using %.2f cores, the agents %.2f", busy, db, agent),
		fmt.Sprintf("the machine the local hosts share was %.1f%% busy; the database's processes used %.2f cores, the agents %.2f (rule: ≥ %g%%)", busy, db, agent, r.DatabaseCPU)
}

// busiest describes the most loaded figures of the hosts, for a verdict
// where no rule fired.
func busiest(hosts []Load) string {
	var parts []string
	for _, h := range hosts {
		p := fmt.Sprintf("%s %s %.2f of %s cores (%.1f%%), host %.1f%% busy", h.Host, own(h.Role), h.OwnCores, num(h.AllowedCores), h.OwnPercent, h.BusyPercent)
		parts = append(parts, p+quotaRanOut(h))
	}
	return strings.Join(parts, "; ")
}

// quotaRanOut says how often a host's processes ran out of their CPU
// quota, where they ever did ("" otherwise).
func quotaRanOut(l Load) string {
	if l.ThrottledPercent <= 0 {
		return ""
	}
	whose := "their"
	if l.Role == "client" {
		whose = "its"
	}
	return fmt.Sprintf(", running out of %s CPU quota in %.1f%% of its periods", whose, l.ThrottledPercent)
}

func (v Verdict) unknown(why string) Verdict {
	v.LimitedBy, v.Summary = Unknown, "Limit unknown: "+why
	v.Evidence = append(v.Evidence, why)
	return v
}

// num prints a figure as the reports do: thousands grouped, no more
// decimals than it needs.
func num(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	whole, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(whole, "-")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
