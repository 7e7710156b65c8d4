package agentrun_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

func TestSplitCoversEverythingOnce(t *testing.T) {
	for _, c := range []struct {
		n int64
		k int
	}{{10, 3}, {1_000_000, 2}, {7, 7}, {5, 1}} {
		var next, total int64
		for i := 0; i < c.k; i++ {
			s, n := agentrun.Split(c.n, c.k, i)
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

func ysqlInput(ph string, idx, n int) agentrun.Input {
	return agentrun.Input{Family: "ycsb", Binding: "ysql", Phase: agentrun.Phase{Workload: "workloadd", Phase: ph}, Index: idx, Count: n,
		Dir: "/b/agent", Host: fmt.Sprintf("client%d", idx+1), StartAt: time.UnixMilli(1_700_000_000_000),
		Params: agentrun.Params{Records: 1000, Operations: 10_001, Threads: 256, LoadThreads: 32, Duration: 180 * time.Second, DDL: "hash"},
		DB: agentrun.DB{Database: "ycsb", User: "ybbench", Password: "s3cret",
			YSQL: []provision.Endpoint{{Addr: "10.0.0.2", Port: 5433}, {Addr: "10.0.0.3", Port: 5433}}}}
}

func args(t *testing.T, in agentrun.Input) string {
	t.Helper()
	inv, err := agentrun.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(inv.Args(), " ")
}

// The seeds' parameters, split over two agents: disjoint load ranges, half
// the threads and operations each, and the run phase over the whole key
// space (no insertstart).
func TestYCSBSharesOverAgents(t *testing.T) {
	load := args(t, ysqlInput("load", 1, 2))
	for _, want := range []string{"load ysql -P workloads/workloadd -P /b/agent/workloadd-load.properties", "recordcount=1000", "insertstart=500", "insertcount=500",
		"threadcount=16", "ybload.start.at=1700000000000", "ybload.records=/b/agent/workloadd-load.jsonl"} {
		if !strings.Contains(load, want) {
			t.Errorf("load args lack %q:\n%s", want, load)
		}
	}
	run := args(t, ysqlInput("run", 0, 2))
	for _, want := range []string{"run ysql", "operationcount=5001", "ybload.agent.index=0", "ybload.agent.count=2", "maxexecutiontime=180", "threadcount=128"} {
		if !strings.Contains(run, want) {
			t.Errorf("run args lack %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, "insertstart") {
		t.Error("the run phase reads the whole key space")
	}
	prep := args(t, ysqlInput("prepare", 0, 1))
	for _, want := range []string{"ybload.prepare.only=true", "ysql.ddl=hash", "ysql.droptable=true", "ybload.summary=/b/agent/workloadd-prepare.json"} {
		if !strings.Contains(prep, want) {
			t.Errorf("prepare args lack %q:\n%s", want, prep)
		}
	}
	inv, _ := agentrun.Build(ysqlInput("run", 0, 1))
	props := inv.Files()[0].Content
	if !strings.Contains(props, "db.url=jdbc:postgresql://10.0.0.2:5433/ycsb;jdbc:postgresql://10.0.0.3:5433/ycsb;") || !strings.Contains(props, "db.passwd=s3cret") {
		t.Errorf("props %s", props)
	}
	for _, a := range []string{load, run, prep} {
		if strings.Contains(a, "s3cret") || strings.Contains(a, "passw") {
			t.Errorf("a secret on a command line: %s", a)
		}
	}
}

func TestPropertiesNamePerPhaseFiles(t *testing.T) {
	in := ysqlInput("run", 0, 1)
	in.Properties = map[string]string{"measurement.raw.output_file": "raw-{workload}-{phase}.txt", "b": "1"}
	if got := args(t, in); !strings.HasSuffix(got, " -p b=1 -p measurement.raw.output_file=raw-workloadd-run.txt") {
		t.Errorf("got %q", got)
	}
	// A repetition's files are its own when the name says which.
	in.Properties = map[string]string{"measurement.raw.output_file": "raw-{workload}-{repetition}-{phase}.txt"}
	in.Phase.Rep = 2
	if got := args(t, in); !strings.HasSuffix(got, " -p measurement.raw.output_file=raw-workloadd-r2-run.txt") {
		t.Errorf("got %q", got)
	}
	in.Family = "kv"
	if _, err := agentrun.Build(in); exitcode.Of(err) != exitcode.Config {
		t.Errorf("agent_properties for a kv profile: %v, want a configuration error", err)
	}
}

// A kv profile's thread count replaces the active side's, split over the
// agents; an argument the kv profiles do not use is refused.
func TestKVThreads(t *testing.T) {
	in := agentrun.Input{Family: "kv", Phase: agentrun.Phase{Workload: "w", Phase: "run"}, Index: 1, Count: 2, Dir: "/a", Host: "c2",
		WorkloadArgs: []string{"--workload", "CassandraKeyValue", "--num_threads_read", "0", "--num_threads_write", "256"},
		Params:       agentrun.Params{Threads: 9, Duration: time.Minute},
		DB:           agentrun.DB{YCQL: []provision.Endpoint{{Addr: "10.0.0.1", Port: 9042}}}}
	got := args(t, in)
	if !strings.Contains(got, "--num_threads_read 0 --num_threads_write 4 ") || !strings.Contains(got, "--run_time 60") || strings.Contains(got, "--username") {
		t.Errorf("kv args %s", got)
	}
	in.WorkloadArgs = append(in.WorkloadArgs, "--read_rate", "5")
	if _, err := agentrun.Build(in); exitcode.Of(err) != exitcode.Config {
		t.Errorf("an unknown kv argument: %v, want a configuration error", err)
	}
}

// metrics_addr's port is served at each client's own address on the
// phases that measure, never on prepare; a client without a private
// address is a configuration error naming the setting.
func TestMetricsAddrOnMeasuringPhases(t *testing.T) {
	for _, c := range []struct {
		addr, want string
	}{{"10.0.0.9", "-p ybload.metrics.addr=10.0.0.9:9464"}, {"fd00::5", "-p ybload.metrics.addr=[fd00::5]:9464"}} {
		for ph, on := range map[string]bool{"prepare": false, "load": true, "run": true} {
			in := ysqlInput(ph, 0, 1)
			in.Addr, in.MetricsPort = c.addr, 9464
			got := args(t, in)
			if has := strings.Contains(got, "metrics"); has != on || (on && !strings.Contains(got, c.want)) {
				t.Errorf("%s at %s: metrics there %v, want %v (%s): %s", ph, c.addr, has, on, c.want, got)
			}
		}
	}
	in := ysqlInput("run", 0, 1)
	if got := args(t, in); strings.Contains(got, "metrics") {
		t.Errorf("metrics_addr unset: %s", got)
	}
	in.MetricsPort = 9464
	if _, err := agentrun.Build(in); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "metrics_addr") {
		t.Errorf("no private address: %v, want a configuration error naming metrics_addr", err)
	}
}

// The exact command lines and files of every profile's phases (agent 1 of
// 2 where a phase runs on every client), pinned.
func TestInvocationsGolden(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		var b strings.Builder
		for _, in := range inputs(t, p) {
			if in.DB.User == "" || in.Index != in.Count-1 || in.Phase.Workload != p.Workloads[0] {
				continue
			}
			in.Dir = "/opt/ybbench/ybbench/agent"
			inv, err := agentrun.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "# %s, agent %d of %d\nybload %s\n", in.Phase.FileBase(), in.Index+1, in.Count, shellquote.Join(inv.Args()))
			for _, f := range inv.Files() {
				fmt.Fprintf(&b, "--- %s\n%s", f.Path, f.Content)
			}
			b.WriteString("\n")
		}
		golden.Check(t, "invocations-"+p.Name+".txt", []byte(b.String()))
	}
}
