package pipeline

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/profiles"
)

// ProfilesSchema versions the JSON that `ybbench profiles -o json` prints.
const ProfilesSchema = "ybbench-profiles/1"

// ProfileList is the built-in profiles as `ybbench profiles` shows them
// (its JSON is a documented interface: docs/json-output.md).
type ProfileList struct {
	Schema   string        `json:"schema"`
	Profiles []ProfileInfo `json:"profiles"`
}

// ProfileInfo is one profile: what it runs, on what, with which
// parameters (only those it uses), and its published table.
type ProfileInfo struct {
	Name        string            `json:"name"`
	Seeds       []string          `json:"seeds"`
	Description string            `json:"description"`
	Family      string            `json:"family"`
	API         string            `json:"api"`
	PublishedOn string            `json:"published_on"`
	Hardware    ProfileHardware   `json:"hardware"`
	Workloads   []string          `json:"workloads"`
	Parameters  ProfileParameters `json:"parameters"`
	Published   PublishedTable    `json:"published_table"`
}

// ProfileHardware is the hardware the profile's figures were published on.
type ProfileHardware struct {
	Cloud  string      `json:"cloud"`
	DB     MachineInfo `json:"db"`
	Client MachineInfo `json:"client"`
	Note   string      `json:"note,omitempty"`
}

// MachineInfo is a count of one instance type.
type MachineInfo struct {
	Count int    `json:"count"`
	Type  string `json:"type"`
}

// ProfileParameters are a profile's parameters; one the profile does not
// use is absent (zero). Durations are Go durations, as the settings take
// them (3m0s).
type ProfileParameters struct {
	Records     int64  `json:"records,omitempty"`
	Tables      int    `json:"tables,omitempty"`
	Operations  int64  `json:"operations,omitempty"`
	LoadThreads int    `json:"load_threads,omitempty"`
	Threads     int    `json:"threads,omitempty"`
	Duration    string `json:"duration,omitempty"`
	Warmup      string `json:"warmup,omitempty"`
	DDL         string `json:"ddl,omitempty"`
	// WorkloadThreads are the threads of each workload, for a profile
	// whose workloads set their own (kv); --threads replaces them.
	WorkloadThreads map[string]int `json:"workload_threads,omitempty"`
}

// PublishedTable is what a profile's published table is: its rows, and
// whether it passes Little's law (only then may it gate a release).
type PublishedTable struct {
	Rows           int  `json:"rows"`
	SelfConsistent bool `json:"self_consistent"`
}

// ListProfiles returns the built-in profiles, or the ones named (an
// unknown name is refused, exit 2, listing the known).
func ListProfiles(names ...string) (ProfileList, error) {
	all, err := profiles.All()
	if err != nil {
		return ProfileList{}, err
	}
	if len(names) > 0 {
		if all, err = pick(all, names); err != nil {
			return ProfileList{}, err
		}
	}
	l := ProfileList{Schema: ProfilesSchema}
	for _, p := range all {
		l.Profiles = append(l.Profiles, profileInfo(p))
	}
	return l, nil
}

func pick(all []*profiles.Profile, names []string) ([]*profiles.Profile, error) {
	byName := map[string]*profiles.Profile{}
	var known []string
	for _, p := range all {
		byName[p.Name] = p
		known = append(known, p.Name)
	}
	var picked []*profiles.Profile
	for _, n := range names {
		p, ok := byName[n]
		if !ok {
			return nil, exitcode.Errorf(exitcode.Config, "no profile %q (the built-in ones: %s)", n, strings.Join(known, ", "))
		}
		picked = append(picked, p)
	}
	return picked, nil
}

func profileInfo(p *profiles.Profile) ProfileInfo {
	pp := p.Parameters
	par := ProfileParameters{Tables: pp.Tables, DDL: pp.DDL}
	setParameters(&par, p)
	if par.Threads == 0 {
		par.WorkloadThreads = workloadThreads(p)
	}
	ok, _ := p.Baseline.Consistent(profiles.LittlesLawTolerance)
	return ProfileInfo{Name: p.Name, Seeds: strings.Split(p.Seed, ", "), Description: p.Description, Family: p.Family,
		API: p.Binding, PublishedOn: p.Flavor, Workloads: p.Workloads, Parameters: par,
		Hardware: ProfileHardware{Cloud: p.Hardware.Cloud, Note: p.Hardware.Note,
			DB:     MachineInfo{Count: p.Hardware.DB.Count, Type: p.Hardware.DB.Type},
			Client: MachineInfo{Count: p.Hardware.Client.Count, Type: p.Hardware.Client.Type}},
		Published: PublishedTable{Rows: len(p.Baseline.Rows), SelfConsistent: ok}}
}

// workloadThreads are the readers and writers each workload's own
// arguments ask for (kv), when any does.
func workloadThreads(p *profiles.Profile) map[string]int {
	out := map[string]int{}
	for wl, args := range p.WorkloadArgs {
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "--num_threads_read" || args[i] == "--num_threads_write" {
				n, _ := strconv.Atoi(args[i+1])
				out[wl] += n
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// WriteProfiles prints the profiles as a table with one column per
// profile and one row per fact or parameter, a dash where a profile does
// not use a parameter; then each profile's description and workloads.
func WriteProfiles(w io.Writer, l ProfileList) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label string, cell func(ProfileInfo) string) {
		cells := []string{label}
		for _, p := range l.Profiles {
			cells = append(cells, cell(p))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	num := func(n int64) string {
		if n == 0 {
			return "-"
		}
		return strconv.FormatInt(n, 10)
	}
	row("profile", func(p ProfileInfo) string { return p.Name })
	row("seed", func(p ProfileInfo) string { return seedNumbers(p.Seeds) })
	row("api", func(p ProfileInfo) string { return strings.ToUpper(p.API) })
	row("published on", func(p ProfileInfo) string { return p.PublishedOn })
	row("db hosts", func(p ProfileInfo) string {
		return fmt.Sprintf("%d× %s", p.Hardware.DB.Count, p.Hardware.DB.Type)
	})
	row("client hosts", func(p ProfileInfo) string {
		return fmt.Sprintf("%d× %s", p.Hardware.Client.Count, p.Hardware.Client.Type)
	})
	row("workloads", func(p ProfileInfo) string { return strconv.Itoa(len(p.Workloads)) })
	row("records", func(p ProfileInfo) string {
		if p.Parameters.Tables > 0 && p.Parameters.Records > 0 {
			return num(p.Parameters.Records) + "/table"
		}
		return num(p.Parameters.Records)
	})
	row("tables", func(p ProfileInfo) string { return num(int64(p.Parameters.Tables)) })
	row("operations", func(p ProfileInfo) string { return num(p.Parameters.Operations) })
	row("load_threads", func(p ProfileInfo) string { return num(int64(p.Parameters.LoadThreads)) })
	row("threads", func(p ProfileInfo) string {
		if p.Parameters.Threads == 0 && len(p.Parameters.WorkloadThreads) > 0 {
			var ts []string
			for _, wl := range p.Workloads {
				ts = append(ts, strconv.Itoa(p.Parameters.WorkloadThreads[wl]))
			}
			return strings.Join(ts, "/")
		}
		return num(int64(p.Parameters.Threads))
	})
	row("duration", func(p ProfileInfo) string { return orDash(p.Parameters.Duration) })
	row("warmup", func(p ProfileInfo) string { return orDash(p.Parameters.Warmup) })
	row("ddl", func(p ProfileInfo) string { return orDash(p.Parameters.DDL) })
	row("published rows", func(p ProfileInfo) string { return strconv.Itoa(p.Published.Rows) })
	row("may gate", func(p ProfileInfo) string {
		if p.Published.SelfConsistent {
			return "yes"
		}
		return "no (Little's law)"
	})
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n-: not used by the profile. threads a/b/c: each workload's own. may gate: only a table that passes Little's law gates a release.\n")
	for _, p := range l.Profiles {
		fmt.Fprintf(&b, "\n%s: %s\n  seed %s; workloads: %s\n", p.Name, p.Description, strings.Join(p.Seeds, ", "), strings.Join(p.Workloads, ", "))
		if p.Hardware.Note != "" {
			fmt.Fprintf(&b, "  hardware (%s): %s\n", p.Hardware.Cloud, p.Hardware.Note)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// seedNumbers are the seeds' numbers (001 of 001_17ee….txt).
func seedNumbers(seeds []string) string {
	var out []string
	for _, s := range seeds {
		n, _, _ := strings.Cut(s, "_")
		out = append(out, n)
	}
	return strings.Join(out, ",")
}

// setParameters fills the parameters a profile's agents read, as the
// settings table names them (each ProfileParameters field is tagged with
// its setting's name); a duration is written as the settings take it, and
// only when set.
func setParameters(par *ProfileParameters, p *profiles.Profile) {
	out := reflect.ValueOf(par).Elem()
	for _, st := range ParameterSettings() {
		if !Uses(p, st.Name) {
			continue
		}
		v := reflect.ValueOf(st.param(&p.Parameters)).Elem()
		f := fieldTagged(out, st.Name)
		if !f.IsValid() {
			continue
		}
		if d, ok := v.Interface().(time.Duration); ok {
			if d > 0 {
				f.SetString(d.String())
			}
			continue
		}
		f.Set(v)
	}
}

// fieldTagged is the field of struct v whose JSON name is name, or the
// zero Value (TestParameterSettingsReachTheirFields holds every parameter
// setting to a field).
func fieldTagged(v reflect.Value, name string) reflect.Value {
	for i := range v.NumField() {
		tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if tag == name {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}
