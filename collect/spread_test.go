package collect

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record"
)

func metaFile(host string, threads int, settings map[string]string) AgentFile {
	return AgentFile{Host: host, File: &record.File{Meta: &record.Meta{Agent: host, Threads: threads, Settings: settings}}}
}

// Several clients: the note names each agent's threads and its keys (kv)
// or seed (sysbench), as the agents recorded them, and says the seeds used
// one client; one client, as the seeds ran, has no note.
func TestSpreadNote(t *testing.T) {
	kv := []workloadFiles{{"write-heavy", "run", []AgentFile{
		metaFile("client-1", 64, map[string]string{"kv.agent_keys": "0-499999999"}),
		metaFile("client-2", 64, map[string]string{"kv.agent_keys": "500000000-999999999"}),
	}}}
	got := spreadNote("kv", 2, kv)
	for _, want := range []string{"**Load spread over 2 client hosts**", "its own range of the keys", "one client",
		"write-heavy: client-1 64 threads, keys 0-499999999; client-2 64 threads, keys 500000000-999999999."} {
		if !strings.Contains(got, want) {
			t.Errorf("kv note lacks %q:\n%s", want, got)
		}
	}
	sb := []workloadFiles{{"oltp_read_only", "run", []AgentFile{
		metaFile("client-1", 32, map[string]string{"sysbench.rand_seed": "11"}),
		metaFile("client-2", 31, map[string]string{"sysbench.rand_seed": "12"}),
	}}}
	if got := spreadNote("sysbench", 2, sb); !strings.Contains(got, "oltp_read_only: client-1 32 threads, seed 11; client-2 31 threads, seed 12.") ||
		!strings.Contains(got, "own random seed") {
		t.Errorf("sysbench note:\n%s", got)
	}
	load := metaFile("client-2", 16, map[string]string{"prop.insertstart": "500000", "prop.insertcount": "500000"})
	ycsb := []workloadFiles{{"workloada", "load", []AgentFile{load}}}
	if got := spreadNote("ycsb", 2, ycsb); !strings.Contains(got, "workloada load: client-2 16 threads, records 500000-999999.") {
		t.Errorf("ycsb note:\n%s", got)
	}
	if got := spreadNote("kv", 1, kv); got != "" {
		t.Errorf("one client: note %q", got)
	}
}
