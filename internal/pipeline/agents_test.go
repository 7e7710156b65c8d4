package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/provision"
)

func TestSplitCoversEverythingOnce(t *testing.T) {
	for _, c := range []struct {
		n int64
		k int
	}{{10, 3}, {1_000_000, 2}, {7, 7}, {5, 1}} {
		var next, total int64
		for i := 0; i < c.k; i++ {
			s, n := split(c.n, c.k, i)
			if s != next {
				t.Fatalf("%d over %d: part %d starts at %d, want %d", c.n, c.k, i, s, next)
			}
			next += n
			total += n
		}
		if total != c.n {
			t.Errorf("%d over %d: parts sum to %d", c.n, c.k, total)
		}
	}
}

// The agents' command lines: disjoint load ranges and run-phase insert
// keys per agent, the seed's parameters, and no secret on them.
func TestAgentArgs(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	load := strings.Join(agentArgs("ysql", Phase{"workloadd", "load"}, 1000, 10_000, 32, 0, "range", 1, 2, "/b/agent", "client2", at), " ")
	for _, want := range []string{"load ysql -P workloads/workloadd -P /b/agent/workloadd-load.properties", "recordcount=1000", "insertstart=500", "insertcount=500", "threadcount=16", "ybload.start.at=1700000000000", "ybload.records=/b/agent/workloadd-load.jsonl"} {
		if !strings.Contains(load, want) {
			t.Errorf("load args lack %q:\n%s", want, load)
		}
	}
	run := strings.Join(agentArgs("ysql", Phase{"workloadd", "run"}, 1000, 10_001, 256, 180*time.Second, "range", 0, 2, "/b/agent", "client1", at), " ")
	for _, want := range []string{"run ysql", "operationcount=5001", "ybload.agent.index=0", "ybload.agent.count=2", "maxexecutiontime=180", "threadcount=128"} {
		if !strings.Contains(run, want) {
			t.Errorf("run args lack %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, "insertstart") {
		t.Error("the run phase reads the whole key space")
	}
	prep := strings.Join(agentArgs("ysql", Phase{"workloada", "prepare"}, 1000, 0, 32, 0, "hash", 0, 1, "/b/agent", "c", at), " ")
	if !strings.Contains(prep, "ybload.prepare.only=true") || !strings.Contains(prep, "ysql.ddl=hash") || !strings.Contains(prep, "ysql.droptable=true") {
		t.Errorf("prepare args %s", prep)
	}
	props := agentProps("postgres", []provision.Endpoint{{Addr: "10.0.0.2", Port: 5433}, {Addr: "10.0.0.3", Port: 5433}}, "ycsb", "ybbench", "s3cret")
	if !strings.Contains(props, "db.url=jdbc:postgresql://10.0.0.2:5433/ycsb;jdbc:postgresql://10.0.0.3:5433/ycsb;") || !strings.Contains(props, "db.passwd=s3cret") {
		t.Errorf("props %s", props)
	}
	for _, a := range []string{load, run, prep} {
		if strings.Contains(a, "s3cret") || strings.Contains(a, "passw") {
			t.Errorf("a secret on a command line: %s", a)
		}
	}
}

func TestExtraPropsNamePerPhaseFiles(t *testing.T) {
	got := strings.Join(extraProps(map[string]string{"measurement.raw.output_file": "raw-{workload}-{phase}.txt", "b": "1"}, Phase{"workloada", "run"}), " ")
	if got != "-p b=1 -p measurement.raw.output_file=raw-workloada-run.txt" {
		t.Errorf("got %q", got)
	}
}
