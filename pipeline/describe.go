package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/repetition"
)

// PlanSchema versions the JSON that `ybbench plan -o json` prints.
const PlanSchema = "ybbench-plan/1"

// Plan is what a run would do, without doing it (its JSON is a documented
// interface: docs/json-output.md).
type Plan struct {
	Schema      string          `json:"schema"`
	Profile     string          `json:"profile"`
	Seeds       []string        `json:"seeds"`
	Description string          `json:"description"`
	Hardware    ProfileHardware `json:"documented_hardware"`
	// Overridden are the settings that change the profile's run (the
	// report marks them).
	Overridden []string `json:"overridden"`
	// Chosen are the settings a default chose that differ from the
	// profile's (the flavor on a machine without a release tarball).
	Chosen   []collect.Choice `json:"chosen"`
	Hosts    []PlanHost       `json:"hosts"`
	Versions struct {
		Ybbench string `json:"ybbench"`
		// Database is the flavor, and Source where its software comes from.
		Database string `json:"database"`
		Source   string `json:"database_source"`
	} `json:"versions"`
	Stages []PlanStage `json:"stages"`
	// ExpectedSeconds is the expected duration (ExpectedBasis says how it
	// is reckoned).
	ExpectedSeconds float64 `json:"expected_duration_seconds"`
	// AtMostSeconds is the same with every run phase lasting its whole
	// duration: what a YCSB run takes on hosts slower than the published
	// ones, which stop at the duration rather than at the operation count.
	AtMostSeconds float64 `json:"at_most_duration_seconds"`
	ExpectedBasis string  `json:"expected_duration_basis"`
	// Results is where the run's directory would be (<id>: drawn at the start).
	Results string `json:"results"`
	// Cloud is where and from what a cloud provider would make the hosts,
	// and Cost what they would cost (both only for a cloud provider).
	Cloud *PlanCloud `json:"cloud,omitempty"`
	Cost  *PlanCost  `json:"cost,omitempty"`
}

// PlanCloud is a cloud run's place, machines and bounds.
type PlanCloud struct {
	Provider     string `json:"provider"`
	Region       string `json:"region"`
	Zone         string `json:"zone"`
	ZoneFallback bool   `json:"zone_fallback"`
	Project      string `json:"project,omitempty"`
	Image        string `json:"image"`
	InstanceType string `json:"instance_type"`
	ClientType   string `json:"client_type"`
	// Disks are each db host's data disks.
	Disks PlanDisks `json:"disks"`
	// SSHFrom is the only source the hosts' SSH port accepts
	// (PlanAddress when the run will look it up), and SSHFromBy what
	// gives it.
	SSHFrom   string `json:"ssh_from"`
	SSHFromBy string `json:"ssh_from_by"`
	// Lifetime is how long the hosts may live: they power off at its end.
	Lifetime        string  `json:"lifetime"`
	LifetimeSeconds float64 `json:"lifetime_seconds"`
}

// PlanDisks are a db host's data disks, all alike.
type PlanDisks struct {
	Count  int    `json:"count"`
	Kind   string `json:"kind"`
	SizeGB int    `json:"size_gb"`
}

// PlanHost is a host the provider would make or take.
type PlanHost struct {
	Name  string   `json:"name"`
	Roles []string `json:"roles"`
	Where string   `json:"where"`
}

// PlanStage is one stage of the run, in order; a bench stage is one
// phase of one workload, with the agent's command line (placeholders in
// <>: what only the run knows).
type PlanStage struct {
	Stage    string `json:"stage"`
	What     string `json:"what"`
	Workload string `json:"workload,omitempty"`
	// Repetition is the workload's repetition (from 1) when the run
	// repeats its workloads.
	Repetition int      `json:"repetition,omitempty"`
	Phase      string   `json:"phase,omitempty"`
	Clients    int      `json:"clients,omitempty"`
	Command    []string `json:"command,omitempty"`
	// Agents are each client's command line, in agent order, where they
	// differ: each client's own part of the keys or operations.
	Agents [][]string `json:"agents,omitempty"`
}

// WritePlan says what a run of s would do, without doing it: hosts and
// roles (as the provider of deps plans them), versions (where the flavor
// says its software comes from), the commands of each stage, and an
// expected duration.
func WritePlan(w io.Writer, s *Resolved, deps Deps) error {
	pl, err := MakePlan(s, deps)
	if err != nil {
		return err
	}
	return WritePlanText(w, pl)
}

// MakePlan works out what a run of s would do (WritePlan).
func MakePlan(s *Resolved, deps Deps) (*Plan, error) {
	p := s.P
	pl := &Plan{Schema: PlanSchema, Profile: p.Name, Seeds: strings.Split(p.Seed, ", "), Description: p.Description,
		Hardware: profileInfo(p).Hardware, Overridden: append([]string{}, s.Overridden...),
		Chosen: append([]collect.Choice{}, s.Chosen...), Hosts: []PlanHost{}}
	prov, err := deps.Provider(&s.Spec, "")
	if err != nil {
		return nil, err
	}
	reg := deps.registry()
	spec, err := s.clusterSpec(reg, p)
	if err != nil {
		return nil, err
	}
	if _, cloud := s.cloudOf(reg); cloud {
		if pl.Cloud, err = planCloud(s, spec); err != nil {
			return nil, err
		}
		// An address not given is looked up when the run is created, not
		// now: the provider is given none and its plan says so.
		if pl.Cost, err = planCost(spec, s.Provider, s.MaxCost); err != nil {
			return nil, err
		}
	}
	planned, create, err := prov.Plan(spec)
	if err != nil {
		return nil, err
	}
	clients := 0
	for _, h := range planned {
		pl.Hosts = append(pl.Hosts, PlanHost{Name: h.Name, Roles: strings.Split(roleList(h.Roles), ","), Where: h.Where})
		if slices.Contains(h.Roles, infra.RoleClient) {
			clients++
		}
	}
	fl, err := deps.Flavor(s.Flavor)
	if err != nil {
		return nil, err
	}
	pl.Versions.Ybbench, pl.Versions.Database, pl.Versions.Source = Version, s.Flavor, fl.Describe(provision.FlavorSpec{Source: s.YBTarball})
	stage := func(name, what string) { pl.Stages = append(pl.Stages, PlanStage{Stage: name, What: what}) }
	stage("up", create)
	preflight := fmt.Sprintf("on every host over SSH: reachable, disk, ulimits, clock skew ≤ %v", s.MaxClockSkew)
	if _, cloud := s.cloudOf(reg); cloud {
		preflight += "; first cloud-init's end (cloud-init status --wait), and each data directory on a disk mount of its own"
	}
	stage("preflight", preflight)
	stage("install", s.Flavor+" on the db hosts")
	benches, err := planBench(s, clients)
	if err != nil {
		return nil, err
	}
	pl.Stages = append(pl.Stages, benches...)
	stage("collect", "merge every agent's records (histograms added) into result.json")
	stage("report", "report.md and report.html (charts, CSV) beside the published figures")
	if prov.Traits().ReusesMachines {
		stage("down", "always: stop and wipe what the run installed (the machines are kept)")
	} else {
		stage("down", "always: wipe what the run installed and destroy the hosts")
	}
	par := s.Params
	pl.ExpectedSeconds = repeated(planEstimate(p, s.Workloads, par, false), s.Repeat).Round(time.Second).Seconds()
	pl.AtMostSeconds = repeated(planEstimate(p, s.Workloads, par, true), s.Repeat).Round(time.Second).Seconds()
	pl.ExpectedBasis = fmt.Sprintf("loads at ~20,000 records/s; runs bounded by %v or the published throughput", par.Duration)
	if sw, ok := sweepBound(s, clients); ok {
		pl.Stages = append(pl.Stages[:len(pl.Stages)-3], append([]PlanStage{sw.stage}, pl.Stages[len(pl.Stages)-3:]...)...)
		pl.AtMostSeconds += sw.seconds
		pl.ExpectedSeconds += sw.seconds / 2
		pl.ExpectedBasis += "; a sweep's steps at most as many as its plan allows"
	}
	pl.Results = filepath.Join(s.RunsDir, "<id>")
	return pl, nil
}

// planCloud says where and from what a cloud run's hosts would be made.
func planCloud(s *Resolved, spec infra.ClusterSpec) (*PlanCloud, error) {
	c := &PlanCloud{Provider: s.Provider, Region: spec.Region, Zone: spec.Zone, ZoneFallback: s.ZoneFallback,
		Project: s.Project, Image: spec.Options[infra.OptionImage], InstanceType: spec.InstanceType, ClientType: spec.ClientType,
		Disks:    PlanDisks{Count: spec.Disks.Count, Kind: spec.Disks.Kind, SizeGB: spec.Disks.SizeGB},
		Lifetime: spec.Lifetime.String(), LifetimeSeconds: spec.Lifetime.Seconds()}
	switch {
	case s.SSHCIDR == "":
		u := s.SSHCIDRLookupURL
		if u == "" {
			u = defaultLookupURL
		}
		c.SSHFrom, c.SSHFromBy = PlanAddress, "looked up at "+u+" when the run is created"
	case s.SSHCIDRSource != "":
		c.SSHFrom, c.SSHFromBy = s.SSHCIDR, s.SSHCIDRSource
	default:
		c.SSHFrom, c.SSHFromBy = s.SSHCIDR, s.where(sshCIDRSetting)
	}
	return c, nil
}

// planBench is a bench stage per phase of every workload, with the agent's
// command line; the start instant, which only the run knows, is shown as
// <start time>.
func planBench(s *Resolved, clients int) ([]PlanStage, error) {
	p, par := s.P, s.Params
	fam, err := familyOf(p.Family)
	if err != nil {
		return nil, err
	}
	db := agentrun.DB{User: "<user>", Database: "<database>",
		YSQL: []provision.Endpoint{{Addr: "<db hosts>", Port: 5433}}, YCQL: []provision.Endpoint{{Addr: "<db hosts>", Port: 9042}}}
	startAt := strconv.FormatInt(planStartAt.UnixMilli(), 10)
	var out []PlanStage
	for _, wl := range s.Workloads {
		for _, k := range repetition.Numbers(s.Repeat) {
			for _, ph := range fam.phases(wl) {
				phase := agentrun.Phase{Workload: wl, Phase: ph, Rep: k}
				n := clients
				if fam.firstClientOnly(ph) {
					n = 1
				}
				cmds := make([][]string, n)
				for i := range n {
					in := agentrun.Input{Family: p.Family, Binding: p.Binding, Phase: phase, WorkloadArgs: p.WorkloadArgs[wl],
						Index: i, Count: n, Dir: "<client>/agent", Host: "<client>", Addr: "<client address>", DB: db, StartAt: planStartAt,
						Params: par}
					in.Properties = s.agentProperties(p.Family, ph)
					in.LateAfter = s.agentLateAfter(ph)
					in.MetricsPort = s.agentMetricsPort()
					inv, err := agentrun.Build(in)
					if err != nil {
						return nil, err
					}
					cmds[i] = []string{"ybload"}
					for _, a := range inv.Args() {
						cmds[i] = append(cmds[i], strings.ReplaceAll(a, startAt, "<start time>"))
					}
				}
				st := PlanStage{Stage: "bench", What: fmt.Sprintf("on %d client(s): %s", n, strings.Join(cmds[0], " ")),
					Workload: wl, Repetition: k, Phase: ph, Clients: n, Command: cmds[0]}
				if !allSame(cmds) {
					// The clients' lines differ by their parts: each is shown.
					st.Agents = cmds
					st.What = fmt.Sprintf("on %d client(s), each its own part:", n)
					for i, c := range cmds {
						st.What += fmt.Sprintf("\nclient %d: %s", i+1, strings.Join(c, " "))
					}
				}
				if l := repetition.Label(k, s.Repeat); l != "" {
					st.What = "repetition " + l + ", " + st.What
				}
				out = append(out, st)
			}
		}
	}
	return out, nil
}

// allSame reports whether every command line is the first one.
func allSame(cmds [][]string) bool {
	for _, c := range cmds[1:] {
		if !slices.Equal(c, cmds[0]) {
			return false
		}
	}
	return true
}

// WritePlanText prints a plan for people.
func WritePlanText(w io.Writer, pl *Plan) error {
	var b strings.Builder
	h := pl.Hardware
	fmt.Fprintf(&b, "profile %s (seed %s): %s\n", pl.Profile, strings.Join(pl.Seeds, ", "), pl.Description)
	fmt.Fprintf(&b, "documented hardware: %s %d× %s + %d× %s client(s); %s\n", h.Cloud, h.DB.Count, h.DB.Type, h.Client.Count, h.Client.Type, h.Note)
	if len(pl.Overridden) > 0 {
		fmt.Fprintf(&b, "overridden: %s (the report marks them)\n", strings.Join(pl.Overridden, ", "))
	}
	for _, c := range pl.Chosen {
		fmt.Fprintf(&b, "chosen, not asked for: %s %s — %s\n", c.Setting, c.Value, c.By)
	}
	b.WriteString("\nhosts:\n")
	for _, h := range pl.Hosts {
		fmt.Fprintf(&b, "  %-9s roles %-10s %s\n", h.Name, strings.Join(h.Roles, ","), h.Where)
	}
	if c := pl.Cloud; c != nil {
		writePlanCloud(&b, c)
	}
	if pl.Cost != nil {
		b.WriteString("\n" + pl.Cost.Text)
	}
	fmt.Fprintf(&b, "\nversions: ybbench %s; database %s %s", pl.Versions.Ybbench, pl.Versions.Database, pl.Versions.Source)
	b.WriteString("\n\nstages:\n")
	for _, st := range pl.Stages {
		// A stage said in several lines (a cloud provider's plan) keeps
		// its continuation lines under its first.
		what := strings.ReplaceAll(strings.TrimRight(st.What, "\n"), "\n", "\n"+strings.Repeat(" ", 13))
		fmt.Fprintf(&b, "  %-10s %s\n", st.Stage, what)
	}
	expected := time.Duration(pl.ExpectedSeconds * float64(time.Second))
	atMost := time.Duration(pl.AtMostSeconds * float64(time.Second))
	if atMost > expected {
		fmt.Fprintf(&b, "\nexpected duration: about %v, at most %v (%s; at most: every run to its time limit)\n", expected, atMost, pl.ExpectedBasis)
	} else {
		fmt.Fprintf(&b, "\nexpected duration: about %v (%s)\n", expected, pl.ExpectedBasis)
	}
	fmt.Fprintf(&b, "results: %s\n", pl.Results)
	_, err := io.WriteString(w, b.String())
	return err
}

// writePlanCloud writes where and from what a cloud run's hosts would be
// made, who may reach their SSH port, and for how long they live.
func writePlanCloud(b *strings.Builder, c *PlanCloud) {
	fallback := "off"
	if c.ZoneFallback {
		fallback = "on: another zone of the region when this one does not offer the type"
	}
	fmt.Fprintf(b, "\ncloud: %s, region %s, zone %s (zone_fallback %s)", c.Provider, c.Region, c.Zone, fallback)
	if c.Project != "" {
		fmt.Fprintf(b, ", project %s", c.Project)
	}
	fmt.Fprintf(b, "\n  image %s\n", c.Image)
	fmt.Fprintf(b, "  db hosts %s, each with %d× %s %d GB data disks; client hosts %s\n",
		c.InstanceType, c.Disks.Count, c.Disks.Kind, c.Disks.SizeGB, c.ClientType)
	fmt.Fprintf(b, "  SSH (port 22) only from %s (%s)\n", c.SSHFrom, c.SSHFromBy)
	fmt.Fprintf(b, "  lifetime %s: the hosts power off at its end, and ybbench janitor removes what is left\n", c.Lifetime)
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

// repeated is a run's estimate with every workload run n times: the
// overhead once, the phases n times.
func repeated(est time.Duration, n int) time.Duration {
	return planOverhead + (est-planOverhead)*time.Duration(max(n, 1))
}

// planEstimate is the expected duration of a run: planOverhead plus the
// bound of every phase of every workload (phaseBound); atMost takes every
// run phase to its time limit.
func planEstimate(p *profiles.Profile, workloads []string, par profiles.Parameters, atMost bool) time.Duration {
	est := planOverhead
	for _, wl := range workloads {
		for _, ph := range map[string][]string{"ycsb": {"load", "run"}, "sysbench": {"prepare", "run"}, "kv": {"run"}}[p.Family] {
			est += phaseBound(p, wl, ph, par, atMost)
		}
	}
	return est
}

// phaseBound is how long a phase is expected to take: a load writes
// records at loadRate (sysbench's prepare, records per table × tables); a
// YCSB run does its operations at the published throughput, or stops at
// the duration, whichever comes first; sysbench's run is its warm-up and
// its duration; a KV run lasts its duration (the seed's build ran until
// stopped). Phases not named take no time worth counting. atMost: a YCSB
// run lasts its whole duration (hosts slower than the published ones).
func phaseBound(p *profiles.Profile, wl, phase string, par profiles.Parameters, atMost bool) time.Duration {
	rows := func(n int64) time.Duration { return time.Duration(float64(n) / loadRate * float64(time.Second)) }
	switch p.Family + "/" + phase {
	case "ycsb/load":
		return rows(par.Records)
	case "sysbench/prepare":
		return rows(par.Records * int64(max(par.Tables, 1)))
	case "ycsb/run":
		if atMost && par.Duration > 0 {
			return par.Duration
		}
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
