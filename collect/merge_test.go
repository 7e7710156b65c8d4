package collect

import (
	"bytes"
	"testing"
	"time"

	"github.com/ybbench/ybbench/record/hist"

	"github.com/ybbench/ybbench/record"
)

// agentFile builds a record file of one agent whose READ latencies are
// base, base+step, …; written and read back through the real format.
func agentFile(t *testing.T, host string, n int, base, step int64, runtime time.Duration) AgentFile {
	t.Helper()
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	w.Write(&record.Meta{V: record.Version, Type: record.KindMeta, Agent: host, Workload: "ycsb", Phase: "run", Start: start, Threads: 4, Geometry: record.Shared})
	for tick := 0; tick < 2; tick++ {
		h := hist.New()
		for i := 0; i < n/2; i++ {
			h.Record(base + int64(tick*(n/2)+i)*step)
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&record.Tick{V: record.Version, Type: record.KindTick, Agent: host, Phase: "run", Op: "READ", Index: tick,
			Count: int64(n / 2), Statuses: map[string]int64{"OK": int64(n / 2)}, Service: enc})
	}
	w.Write(&record.End{V: record.Version, Type: record.KindEnd, Agent: host, Phase: "run", MeasureStart: start, End: start.Add(runtime),
		RunTimeMS: float64(runtime.Milliseconds()), Ops: int64(n), Stop: "operations", Counters: map[string]int64{"insert_ok": 3}})
	w.Flush()
	f, err := record.Read(host, &buf)
	if err != nil {
		t.Fatal(err)
	}
	return AgentFile{Host: host, Path: host + ".jsonl", File: f}
}

// Two agents whose latencies differ 10×: a busy fast agent (1 ms) and a
// slow one with few operations (10 ms). The merged p99 is the p99 of all
// their samples together (1 ms: 99.5 % of the samples are fast); averaging
// the agents' p99s would give 5.5 ms, off by more than 2×.
func TestMergeAddsHistogramsNeverAveragesPercentiles(t *testing.T) {
	fast := agentFile(t, "client1", 9_950, 1000, 0, 10*time.Second)
	slow := agentFile(t, "client2", 50, 10_000, 0, 10*time.Second)
	p, err := Merge([]AgentFile{fast, slow})
	if err != nil {
		t.Fatal(err)
	}
	read := p.Find("READ")
	if read == nil || read.Count() != 10_000 {
		t.Fatalf("merged READ %+v", read)
	}
	all := hist.New()
	for i := 0; i < 9_950; i++ {
		all.Record(1000)
	}
	for i := 0; i < 50; i++ {
		all.Record(10_000)
	}
	want := all.Percentile(99)
	got := read.Service.Percentile(99)
	if got != want {
		t.Errorf("merged p99 %d, exact %d", got, want)
	}
	averaged := float64(mergeOne(t, fast).Service.Percentile(99)+mergeOne(t, slow).Service.Percentile(99)) / 2
	if ratio := averaged / float64(got); ratio < 2 {
		t.Errorf("the scenario must make averaging wrong by > 2×: averaged %.0f vs merged %d", averaged, got)
	}
	if p.Ops != 10_000 || p.Counters["insert_ok"] != 6 || !p.Complete {
		t.Errorf("ops %d counters %v complete %v", p.Ops, p.Counters, p.Complete)
	}
	if p.Threads != 8 || len(p.Agents) != 2 {
		t.Errorf("threads %d agents %v", p.Threads, p.Agents)
	}
	if got := p.Throughput; got < 999 || got > 1001 {
		t.Errorf("throughput %.1f, want 1000 (sum of the agents' rates)", got)
	}
}

func mergeOne(t *testing.T, f AgentFile) *Measurement {
	t.Helper()
	p, err := Merge([]AgentFile{f})
	if err != nil {
		t.Fatal(err)
	}
	return p.Find("READ")
}

func TestMergeKeepsAKilledAgentsIntervals(t *testing.T) {
	a := agentFile(t, "client1", 100, 500, 1, time.Second)
	a.File.End = nil // killed before finishing
	p, err := Merge([]AgentFile{a})
	if err != nil {
		t.Fatal(err)
	}
	if p.Complete || p.Find("READ").Count() != 100 || len(p.Problems) != 1 {
		t.Errorf("complete %v count %d problems %v", p.Complete, p.Find("READ").Count(), p.Problems)
	}
}

// Two kv agents over one window: the merged key rate is the sum of theirs
// (9,950 and 50 keys in the same 10 s: 995 + 5 keys/s), not a mean.
func TestKVThroughputSumsTheAgents(t *testing.T) {
	p, err := Merge([]AgentFile{agentFile(t, "client1", 9_950, 1000, 0, 10*time.Second), agentFile(t, "client2", 50, 1000, 0, 10*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	pr := PhaseResultOf(p)
	if got := kvThroughput(&pr); got != 1000 {
		t.Errorf("merged kv throughput %.2f keys/s, want 1000 (995 + 5)", got)
	}
}
