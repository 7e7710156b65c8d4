package pipeline

import (
	"fmt"
	"sort"
)

// maxNotes is how many of the latest notes a frame shows.
const maxNotes = 5

// view is what the live progress shows, apart from the terminal: the
// current stage (or bench phase), the hosts' states and the agents'
// latest rates reported within it, how it ended, and the run's latest
// notes. Host and agent lines belong to the stage they were reported in:
// a new stage starts without them, so that "uploading the load agent" or
// the last rate of a load phase is never shown under a later stage.
// Notes are about the run (several clients, a stop asked for) and stay.
type view struct {
	name, about string
	// outcome is how the stage ended ("" while it runs).
	outcome string
	hosts   map[string]string
	agents  map[string]string
	notes   []string
}

func newView() view { return view{hosts: map[string]string{}, agents: map[string]string{}} }

func (v *view) stage(name, about string) {
	v.name, v.about, v.outcome = name, about, ""
	v.hosts, v.agents = map[string]string{}, map[string]string{}
}

// end records a stage's outcome; an outcome for another stage than the
// one shown (none is sent so) starts that stage's frame instead of
// labelling the wrong one.
func (v *view) end(name, outcome string) {
	if name != v.name {
		v.stage(name, "")
	}
	v.outcome = outcome
}

func (v *view) host(host, state string) { v.hosts[host] = state }

func (v *view) agent(host, line string) {
	if s := summarizeStatus(line); s != "" {
		v.agents[host] = s
	}
}

func (v *view) note(msg string) {
	v.notes = append(v.notes, msg)
	if len(v.notes) > maxNotes {
		v.notes = v.notes[len(v.notes)-maxNotes:]
	}
}

// frame renders the view as lines: the stage, how it ended once it has,
// the hosts' states and the agents' rates (each sorted by host), then the
// notes.
func (v *view) frame() []string {
	var out []string
	if v.name != "" {
		head := "stage: " + v.name
		if v.about != "" {
			head += " — " + v.about
		}
		out = append(out, head)
	}
	if v.outcome != "" {
		out = append(out, "  "+v.outcome)
	}
	for _, m := range []map[string]string{v.hosts, v.agents} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, fmt.Sprintf("  %-10s %s", k, m[k]))
		}
	}
	return append(out, v.notes...)
}
