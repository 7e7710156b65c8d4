package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

// docs/settings.md's spellings table says, for every setting, how it is written
// on ybbench's command line, in a spec file and in the environment (from
// the settings table), and what it becomes on the load agent's command
// line in each profile family, in the reference tools' own spellings. The
// agent's side is not written by hand where it can be found: the settings
// that override a profile parameter are set to a marker value, the
// agents' command lines of every built-in profile are built the way a run
// builds them, and the arguments that changed are the spelling.

// spellingFamilies are the profile families, in the table's order, with
// the agent command each runs.
var spellingFamilies = []struct{ name, command string }{
	{"ycsb", "ybload load|run (YCSB)"},
	{"sysbench", "ybload sysbench (sysbench)"},
	{"kv", "ybload kv (yb-sample-apps)"},
}

// spellingMarker is the value a parameter setting is given to find it on
// the agents' command lines (seconds for a duration); it stands for no
// profile's own value.
const spellingMarker = "7777"

// agentNote says how a setting that is not a profile parameter reaches
// the agents of a family; tokens must be on the agents' command lines of
// that family (TestSpellingsNotesOnCommandLines checks them).
type agentNote struct {
	text   string
	tokens []string
}

// agentNotes are the other settings the agents see, per family.
var agentNotes = map[string]map[string]agentNote{
	"workloads": {
		"ycsb":     {"`-P workloads/workloada` … (which workload files run)", []string{"workloads/workloada"}},
		"sysbench": {"the workload argument (`oltp_point_select` …)", []string{"oltp_point_select"}},
		"kv":       {"`--workload CassandraKeyValue` … (which of the profile's workloads run)", []string{"--workload"}},
	},
	"start_delay": {
		"ycsb":     {"`-p ybload.start.at=<unix ms>` (load, run)", []string{"ybload.start.at="}},
		"sysbench": {"`--ybload-start-at=<unix ms>` (run)", []string{"--ybload-start-at="}},
		"kv":       {"`--ybload_start_at <unix ms>`", []string{"--ybload_start_at"}},
	},
	"agent_properties": {
		"ycsb":     {"`-p name=value` each (load, run)", nil},
		"sysbench": {"refused (exit 2): YCSB properties only", nil},
		"kv":       {"refused (exit 2): YCSB properties only", nil},
	},
	"client_hosts": {
		"ycsb":     {"one agent per client host; threads, records and operations split between them (`-p insertstart=`, `-p ybload.agent.index=`)", []string{"insertstart=", "ybload.agent.index="}},
		"sysbench": {"one agent per client host; `--threads=` split between them", []string{"--threads="}},
		"kv":       {"one agent per client host; the active side's threads split between them, and from two clients on each its own range of the keys and part of the writes and reads (`--ybload_agent_index`, `--ybload_agent_count`)", []string{"--num_threads_write"}},
	},
	"db_auth": {
		"ycsb":     {"on: `db.user`/`db.passwd` (YSQL) or `cassandra.username` and `cassandra.password.file` (YCQL) in the 0600 `-P` file", nil},
		"sysbench": {"on: `--pgsql-user=` and `--pgsql-password-file=`", []string{"--pgsql-user=", "--pgsql-password-file="}},
		"kv":       {"on: `--username` and `--ybload_password_file`", nil},
	},
	"db_hosts": {
		"ycsb":     {"the endpoints in the 0600 `-P` file (`db.url`; `hosts`)", nil},
		"sysbench": {"the endpoints: `--pgsql-host=`", []string{"--pgsql-host="}},
		"kv":       {"the endpoints: `--nodes`", []string{"--nodes"}},
	},
	"late_after": {
		"ycsb":     {"`-p ybload.late.after=` (run), when not 1ms", nil},
		"sysbench": {"`--ybload-late-after=` (sweep steps), when not 1ms; without sweep refused (exit 2)", nil},
		"kv":       {"`--ybload_late_after_ms` (sweep steps), when not 1ms; without sweep refused (exit 2)", nil},
	},
	"metrics_addr": {
		"ycsb":     {"`-p ybload.metrics.addr=<client address>:<port>` (load, run), when set", nil},
		"sysbench": {"`--ybload-metrics-addr=<client address>:<port>` (run), when set", nil},
		"kv":       {"`--ybload_metrics_addr <client address>:<port>`, when set", nil},
	},
	"sweep": {
		"ycsb":     {"each step: `-p target=` (its share of the step's rate), files `<workload>-s<k>-run.*`", nil},
		"sysbench": {"each step: `--rate=` (its share of the step's rate) with `--ybload-queue-full=stop`, files `<workload>-s<k>-run.*`", nil},
		"kv":       {"each step: `--ybload_target_ops_per_sec` (its share of the step's rate), files `<workload>-s<k>-run.*`", nil},
	},
	"agent": {
		"ycsb":     {"the binary that runs", nil},
		"sysbench": {"the binary that runs", nil},
		"kv":       {"the binary that runs", nil},
	},
}

// spellingRow is one setting's row: its three spellings on ybbench's side
// and what it becomes on each family's agent ("" for nothing).
type spellingRow struct {
	setting string
	agent   map[string]string // family → Markdown
}

// spellingRows are the rows of every setting, in the settings table's
// order.
func spellingRows() ([]spellingRow, error) {
	profs, err := profiles.All()
	if err != nil {
		return nil, err
	}
	var rows []spellingRow
	for _, st := range settings {
		row := spellingRow{setting: st.Name, agent: map[string]string{}}
		for _, fam := range spellingFamilies {
			if n, ok := agentNotes[st.Name][fam.name]; ok {
				row.agent[fam.name] = n.text
				continue
			}
			if st.param == nil {
				continue
			}
			cell, err := paramSpelling(profs, fam.name, st)
			if err != nil {
				return nil, err
			}
			row.agent[fam.name] = cell
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// paramSpelling is what a parameter setting becomes on the agents of one
// family: the arguments that change when it is set, over every built-in
// profile of the family, each with the phases (or workloads) it is on
// when not all of them; "refused (exit 2)" when validation refuses it.
func paramSpelling(profs []*profiles.Profile, family string, st Setting) (string, error) {
	placeholder := "<n>"
	value := spellingMarker
	if st.Type == "duration" {
		placeholder, value = "<seconds>", spellingMarker+"s"
	}
	var order []string
	where := map[string][]string{}
	for _, p := range profs {
		if p.Family != family {
			continue
		}
		base, err := agentArgs(p.Name, "", "")
		if err != nil {
			return "", fmt.Errorf("profile %s: %w", p.Name, err)
		}
		set, err := agentArgs(p.Name, st.Name, value)
		if err != nil {
			// Refused by validation, naming the setting; any other
			// failure is the table's own problem.
			if !strings.Contains(err.Error(), st.Name) {
				return "", fmt.Errorf("profile %s with %s=%s: %w", p.Name, st.Name, value, err)
			}
			return "refused (exit 2)", nil
		}
		for i, inv := range base {
			changed := changedArgs(inv.args, set[i].args, spellingMarker, placeholder)
			for _, c := range changed {
				if _, seen := where[c]; !seen {
					order = append(order, c)
				}
				where[c] = append(where[c], inv.key())
			}
		}
	}
	var cells []string
	for _, c := range order {
		cells = append(cells, "`"+c+"`"+phaseLabel(where[c], profs, family))
	}
	return strings.Join(cells, ", "), nil
}

// agentInvocation is one phase's agent command line in a spelled run.
type agentInvocation struct {
	profile, workload, phase string
	args                     []string
}

func (a agentInvocation) key() string { return a.profile + "/" + a.workload + "/" + a.phase }

// spellingStartAt is the start instant of the spelled runs' phases.
var spellingStartAt = time.UnixMilli(1_700_000_000_000)

// agentArgs builds the agents' command lines of every phase of a profile's
// run (one client), the setting name set to value when name is not "", as
// a run builds them (Run.agentInput, agentrun.Build), in the run's order
// (so that the table's order is the same every time).
func agentArgs(profile, name, value string) ([]agentInvocation, error) {
	s := Defaults()
	s.Profile = profile
	if name != "" {
		if err := SetString(&s, name, value); err != nil {
			return nil, err
		}
	}
	res, err := s.Resolve()
	if err != nil {
		return nil, err
	}
	fam, err := familyOf(res.P.Family)
	if err != nil {
		return nil, err
	}
	r := &Run{spec: res}
	db := agentrun.DB{Database: "bench", User: "bench", Password: "secret",
		YSQL: []provision.Endpoint{{Addr: "db1", Port: 5433}}, YCQL: []provision.Endpoint{{Addr: "db1", Port: 9042}}}
	var out []agentInvocation
	for _, w := range res.Workloads {
		for _, ph := range fam.phases(w) {
			in := r.agentInput(Phase{Workload: w, Phase: ph}, 1, db.Password, spellingStartAt)
			in.DB, in.Index, in.Dir, in.Host, in.Addr = db, 0, "/agent", "client1", "10.0.0.9"
			inv, err := agentrun.Build(in)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", w, ph, err)
			}
			out = append(out, agentInvocation{profile: profile, workload: w, phase: ph, args: inv.Args()})
		}
	}
	return out, nil
}

// changedArgs are the arguments of set that differ from base, each with
// the flag before it when it is a flag's value (-p name=value, --flag
// value), marker replaced by placeholder.
func changedArgs(base, set []string, marker, placeholder string) []string {
	if len(base) != len(set) {
		return []string{"(the command line changes)"}
	}
	var out []string
	for i := range set {
		if set[i] == base[i] {
			continue
		}
		a := strings.ReplaceAll(set[i], marker, placeholder)
		if i > 0 && strings.HasPrefix(set[i-1], "-") && !strings.HasPrefix(set[i], "-") {
			a = set[i-1] + " " + a
		}
		out = append(out, a)
	}
	return out
}

// phaseLabel says where an argument is when it is not on every phase of
// every run of the family: the phases, or the workloads when every
// workload has one phase.
func phaseLabel(keys []string, profs []*profiles.Profile, family string) string {
	all := 0
	phases, workloads := map[string]bool{}, map[string]bool{}
	for _, p := range profs {
		if p.Family != family {
			continue
		}
		fam, _ := familyOf(family)
		for _, w := range p.Workloads {
			all += len(fam.phases(w))
		}
	}
	if len(keys) == all {
		return ""
	}
	var names []string
	for _, k := range keys {
		parts := strings.Split(k, "/")
		w, ph := parts[1], parts[2]
		if !phases[ph] {
			phases[ph] = true
		}
		if !workloads[w] {
			workloads[w] = true
			names = append(names, w)
		}
	}
	if family != "kv" {
		names = nil
		for _, ph := range agentrun.Phases(family) {
			if phases[ph] {
				names = append(names, ph)
			}
		}
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// WriteSpellingsTable writes docs/settings.md's table of every setting's
// spellings: spec file, flag, variable, and what the load agent of each
// profile family is given.
func WriteSpellingsTable(b *strings.Builder) error {
	rows, err := spellingRows()
	if err != nil {
		return err
	}
	cell := func(s string) string {
		if s == "" {
			return "—"
		}
		return strings.ReplaceAll(s, "|", `\|`)
	}
	b.WriteString("| spec file | flag | variable |")
	for _, f := range spellingFamilies {
		fmt.Fprintf(b, " %s |", cell(f.command))
	}
	b.WriteString("\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | `--%s` | `%s` |", r.setting, FlagName(r.setting), EnvName(r.setting))
		for _, f := range spellingFamilies {
			fmt.Fprintf(b, " %s |", cell(r.agent[f.name]))
		}
		b.WriteString("\n")
	}
	return nil
}
