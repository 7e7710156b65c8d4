package pipeline

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

// What a profile uses is what changes its agents' command lines: for every
// profile and overridable parameter, the command lines of every phase are
// built with the profile's value and with another, and differ exactly
// when Uses says the profile uses it.
func TestUsesIsWhatTheAgentsRead(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	change := map[string]func(*agentrun.Params){
		"records":      func(p *agentrun.Params) { p.Records += 7 },
		"operations":   func(p *agentrun.Params) { p.Operations += 7 },
		"load_threads": func(p *agentrun.Params) { p.LoadThreads += 7 },
		"threads":      func(p *agentrun.Params) { p.Threads += 7 },
		"duration":     func(p *agentrun.Params) { p.Duration += 7 * time.Second },
		"warmup":       func(p *agentrun.Params) { p.Warmup += 7 * time.Second },
	}
	for _, p := range all {
		pp := p.Parameters
		base := agentrun.Params{Records: pp.Records, Operations: pp.Operations, Threads: pp.Threads, LoadThreads: pp.LoadThreads,
			Duration: pp.Duration, Warmup: pp.Warmup, DDL: pp.DDL, Tables: pp.Tables}
		want := commandLines(t, p, base)
		for setting, edit := range change {
			par := base
			edit(&par)
			changed := commandLines(t, p, par) != want
			if changed != Uses(p, setting) {
				t.Errorf("%s %s: the agents' command lines change %v, Uses says %v", p.Name, setting, changed, Uses(p, setting))
			}
		}
	}
}

// commandLines are the agent command lines of every phase of a profile.
func commandLines(t *testing.T, p *profiles.Profile, par agentrun.Params) string {
	t.Helper()
	fam, err := familyOf(p.Family)
	if err != nil {
		t.Fatal(err)
	}
	db := agentrun.DB{YSQL: []provision.Endpoint{{Addr: "db", Port: 5433}}, YCQL: []provision.Endpoint{{Addr: "db", Port: 9042}}}
	var b strings.Builder
	for _, wl := range p.Workloads {
		for _, ph := range fam.phases(wl) {
			inv, err := agentrun.Build(agentrun.Input{Family: p.Family, Binding: p.Binding, Phase: agentrun.Phase{Workload: wl, Phase: ph},
				WorkloadArgs: p.WorkloadArgs[wl], Count: 1, Dir: "/agent", Host: "client", DB: db, StartAt: planStartAt, Params: par})
			if err != nil {
				t.Fatalf("%s %s %s: %v", p.Name, wl, ph, err)
			}
			b.WriteString(strings.Join(inv.Args(), " ") + "\n")
		}
	}
	return b.String()
}

// --quick overrides, and the report marks, only parameters the profile
// uses: a KV run is not reported as having fewer records.
func TestQuickOverridesOnlyWhatTheProfileUses(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		s, err := Load(CommandLine{Presets: []string{"quick"}, Flags: map[string]string{"profile": p.Name}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve()
		if err != nil {
			t.Fatalf("%s --quick: %v", p.Name, err)
		}
		marked := 0
		for _, o := range r.Overridden {
			if _, param := familyParametersAll[o]; !param {
				continue
			}
			marked++
			if !Uses(p, o) {
				t.Errorf("%s --quick: %s is marked overridden; the profile does not use it (overridden: %v)", p.Name, o, r.Overridden)
			}
		}
		if marked == 0 || !slices.Contains(r.Overridden, "duration") {
			t.Errorf("%s --quick: overridden %v; want its duration at least", p.Name, r.Overridden)
		}
	}
}

// familyParametersAll are the settings any family may use.
var familyParametersAll = map[string]bool{"records": true, "operations": true, "load_threads": true, "threads": true, "duration": true, "warmup": true}

// Every parameter setting lands somewhere: in a profile parameter, and in
// the profile listing's field of the same name.
func TestParameterSettingsReachTheirFields(t *testing.T) {
	if len(ParameterSettings()) < 6 {
		t.Fatalf("%d parameter settings", len(ParameterSettings()))
	}
	var par ProfileParameters
	for _, st := range ParameterSettings() {
		if len(st.Families) == 0 {
			t.Errorf("%s overrides a parameter no family reads", st.Name)
		}
		if f := fieldTagged(reflect.ValueOf(&par).Elem(), st.Name); !f.IsValid() {
			t.Errorf("%s: no ProfileParameters field", st.Name)
		}
	}
}
