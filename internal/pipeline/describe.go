package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/agentrun"
	"github.com/ybbench/ybbench/internal/profiles"
	"github.com/ybbench/ybbench/provision"
)

// WritePlan says what a run of s would do, without doing it: hosts and
// roles (as the provider of deps plans them), versions (where the flavor
// says its software comes from), the commands of each stage, and an
// expected duration.
func WritePlan(w io.Writer, s *Resolved, deps Deps) error {
	p := s.P
	var b strings.Builder
	fmt.Fprintf(&b, "profile %s (seed %s): %s\n", p.Name, p.Seed, p.Description)
	fmt.Fprintf(&b, "documented hardware: %s %d× %s + %d× %s client(s); %s\n", p.Hardware.Cloud, p.Hardware.DB.Count, p.Hardware.DB.Type, p.Hardware.Client.Count, p.Hardware.Client.Type, p.Hardware.Note)
	if len(s.Overridden) > 0 {
		fmt.Fprintf(&b, "overridden: %s (the report marks them)\n", strings.Join(s.Overridden, ", "))
	}
	b.WriteString("\nhosts:\n")
	prov, err := deps.Provider(&s.Spec, "")
	if err != nil {
		return err
	}
	planned, create, err := prov.Plan(infra.ClusterSpec{DBHosts: s.DBHosts, ClientHosts: s.ClientHosts,
		Options: map[string]string{"subnet": s.Subnet}})
	if err != nil {
		return err
	}
	clients := 0
	for _, h := range planned {
		fmt.Fprintf(&b, "  %-9s roles %-10s %s\n", h.Name, roleList(h.Roles), h.Where)
		if slices.Contains(h.Roles, infra.RoleClient) {
			clients++
		}
	}
	fl, err := deps.Flavor(s.Flavor)
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "\nversions: ybbench %s; database %s %s", Version, s.Flavor, fl.Describe(provision.FlavorSpec{Source: s.YBTarball}))
	b.WriteString("\n\nstages:\n")
	fmt.Fprintf(&b, "  up         %s\n", create)
	fmt.Fprintf(&b, "  preflight  on every host over SSH: reachable, disk, ulimits, clock skew ≤ %v\n", s.MaxClockSkew)
	fmt.Fprintf(&b, "  install    %s on the db hosts\n", s.Flavor)
	par := s.Params
	fam, err := familyOf(p.Family)
	if err != nil {
		return err
	}
	db := agentrun.DB{User: "<user>", Database: "<database>",
		YSQL: []provision.Endpoint{{Addr: "<db hosts>", Port: 5433}}, YCQL: []provision.Endpoint{{Addr: "<db hosts>", Port: 9042}}}
	for _, wl := range s.Workloads {
		for _, ph := range fam.phases(wl) {
			phase := agentrun.Phase{Workload: wl, Phase: ph}
			n := clients
			if fam.firstClientOnly(ph) {
				n = 1
			}
			in := agentrun.Input{Family: p.Family, Binding: p.Binding, Phase: phase, WorkloadArgs: p.WorkloadArgs[wl],
				Count: n, Dir: "<client>/agent", Host: "<client>", DB: db, StartAt: planStartAt,
				Params: agentrun.Params{Records: par.Records, Operations: par.Operations, Threads: par.Threads, LoadThreads: par.LoadThreads,
					Duration: par.Duration, Warmup: par.Warmup, DDL: par.DDL, Tables: par.Tables}}
			if p.Family == "ycsb" && ph != "prepare" {
				in.Properties = s.AgentProperties
			}
			inv, err := agentrun.Build(in)
			if err != nil {
				return err
			}
			args := inv.Args()
			line := strings.Join(args, " ")
			if i := strings.Index(line, "ybload.start.at="); i >= 0 {
				line = line[:i] + "ybload.start.at=<start time>"
			}
			line = strings.ReplaceAll(line, strconv.FormatInt(planStartAt.UnixMilli(), 10), "<start time>")
			fmt.Fprintf(&b, "  bench      on %d client(s): ybload %s\n", n, line)
		}
	}
	est := planEstimate(p, s.Workloads, par)
	b.WriteString("  collect    merge every agent's records (histograms added) into result.json\n")
	b.WriteString("  report     report.md beside the published figures\n")
	if prov.Traits().ReusesMachines {
		b.WriteString("  down       always: stop and wipe what the run installed (the machines are kept)\n")
	} else {
		b.WriteString("  down       always: wipe what the run installed and destroy the hosts\n")
	}
	fmt.Fprintf(&b, "\nexpected duration: about %v (loads at ~20,000 records/s; runs bounded by %v or the published throughput)\n", est.Round(time.Second), par.Duration)
	fmt.Fprintf(&b, "results: %s\n", filepath.Join(s.RunsDir, "<id>"))
	_, err = io.WriteString(w, b.String())
	return err
}

// planStartAt stands for the start instant a run picks when a phase
// begins; the plan shows it as <start time>.
var planStartAt = time.UnixMilli(1_000_000_000_000)

// loadRate is the rows per second the plan assumes a load or a sysbench
// prepare writes.
const loadRate = 20000

// planOverhead is the plan's allowance for up, preflight, install,
// collect and down.
const planOverhead = 30 * time.Second

// planEstimate is the expected duration of a run: planOverhead plus the
// bound of every phase of every workload (phaseBound).
func planEstimate(p *profiles.Profile, workloads []string, par profiles.Parameters) time.Duration {
	est := planOverhead
	for _, wl := range workloads {
		for _, ph := range map[string][]string{"ycsb": {"load", "run"}, "sysbench": {"prepare", "run"}, "kv": {"run"}}[p.Family] {
			est += phaseBound(p, wl, ph, par)
		}
	}
	return est
}

// phaseBound is how long a phase is expected to take: a load writes
// records at loadRate (sysbench's prepare, records per table × tables); a
// YCSB run does its operations at the published throughput, or stops at
// the duration, whichever comes first; sysbench's run is its warm-up and
// its duration; a KV run lasts its duration (the seed's build ran until
// stopped). Phases not named take no time worth counting.
func phaseBound(p *profiles.Profile, wl, phase string, par profiles.Parameters) time.Duration {
	rows := func(n int64) time.Duration { return time.Duration(float64(n) / loadRate * float64(time.Second)) }
	switch p.Family + "/" + phase {
	case "ycsb/load":
		return rows(par.Records)
	case "sysbench/prepare":
		return rows(par.Records * int64(max(par.Tables, 1)))
	case "ycsb/run":
		if row := p.Baseline.Row(wl); row != nil && row.Throughput > 0 && par.Operations > 0 {
			d := time.Duration(float64(par.Operations) / row.Throughput * float64(time.Second))
			if par.Duration > 0 && d > par.Duration {
				return par.Duration
			}
			return d
		}
		return par.Duration
	case "sysbench/run":
		return par.Warmup + par.Duration
	case "kv/run":
		return par.Duration
	}
	return 0
}

func roleList(rs []infra.Role) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return strings.Join(out, ",")
}
