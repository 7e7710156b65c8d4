package collect

import (
	"fmt"
	"strconv"
	"strings"
)

// workloadFiles are the agents' record files of one phase of a workload
// (YCSB's load, every family's run).
type workloadFiles struct {
	workload, phase string
	files           []AgentFile
}

// familySpread says, per family, how the orchestrator splits a workload
// between the agents of several clients (pipeline/agentrun builds the
// command lines that do it).
var familySpread = map[string]string{
	"ycsb":     "each agent loaded its own part of the records (insertstart, insertcount) and ran its part of the operations and threads, its run-phase inserts on keys of its own",
	"sysbench": "the threads were split between the agents, each drawing from its own random seed; the first client alone prepared and cleaned up the tables",
	"kv":       "each agent wrote and read only its own range of the keys (--ybload_agent_index, --ybload_agent_count) and did its part of the writes, reads and read-only setup, the threads split between them",
}

// spreadNote says how a run's load was spread over several clients, from
// what each agent recorded of each phase: its threads, and its records
// (YCSB's load), operations (YCSB's run), keys (kv) or random seed
// (sysbench). It is "" for one client, as the seeds ran.
func spreadNote(family string, clients int, runs []workloadFiles) string {
	if clients < 2 {
		return ""
	}
	var per []string
	for _, w := range runs {
		var agents []string
		for _, f := range w.files {
			m := f.File.Meta
			if m == nil {
				continue
			}
			a := fmt.Sprintf("%s %d threads", f.Host, m.Threads)
			if m.Operations > 0 {
				a += fmt.Sprintf(", %d operations", m.Operations)
			}
			if r := recordRange(m.Settings); r != "" {
				a += ", records " + r
			}
			if k := m.Settings["kv.agent_keys"]; k != "" {
				a += ", keys " + k
			}
			if s := m.Settings["sysbench.rand_seed"]; s != "" {
				a += ", seed " + s
			}
			agents = append(agents, a)
		}
		if len(agents) > 0 {
			name := w.workload
			if w.phase != "run" {
				name += " " + w.phase
			}
			per = append(per, name+": "+strings.Join(agents, "; "))
		}
	}
	how := familySpread[family]
	if how == "" {
		how = "the load was split between the agents"
	}
	note := "**Load spread over " + strconv.Itoa(clients) + " client hosts**, one agent each: " + how +
		". This is not the seeds' method, which measured from one client."
	if len(per) > 0 {
		note += " Per workload, each agent's part: " + strings.Join(per, " — ") + "."
	}
	return note
}

// recordRange is a YCSB load agent's records, first-last, from its
// insertstart and insertcount properties ("" when it has none).
func recordRange(settings map[string]string) string {
	start, err1 := strconv.ParseInt(settings["prop.insertstart"], 10, 64)
	count, err2 := strconv.ParseInt(settings["prop.insertcount"], 10, 64)
	if err1 != nil || err2 != nil || count <= 0 {
		return ""
	}
	return strconv.FormatInt(start, 10) + "-" + strconv.FormatInt(start+count-1, 10)
}
