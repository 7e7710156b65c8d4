package collect_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/ybbench/ybbench/record/hist"
	"github.com/ybbench/ybbench/record/hostcpu"
	"github.com/ybbench/ybbench/record/repetition"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/record"
)

// Secrets a fixture run directory holds in its cluster.json and
// deployment.json, which no result may repeat.
const (
	fixtureKeyFile  = "/home/op/.ssh/fixture_id_ed25519"
	fixtureHostKey  = "ssh-ed25519 AAAAC3NzaFIXTUREHOSTKEY"
	fixturePassword = "secrets/db-password"
)

// fixtureEpoch is the fixture runs' start.
var fixtureEpoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fixturePhases are a family's agent phases, as the orchestrator runs them.
func fixturePhases(family string) []collect.SetupPhase {
	switch family {
	case "ycsb":
		return []collect.SetupPhase{{Name: "prepare"}, {Name: "load", Records: true}, {Name: "run", Records: true}}
	case "sysbench":
		return []collect.SetupPhase{{Name: "prepare"}, {Name: "run", Records: true}, {Name: "cleanup"}}
	}
	return []collect.SetupPhase{{Name: "run", Records: true}}
}

// fixtureOp is one measurement of a fixture phase: n samples with
// latencies base, base+step, … (µs), units keys each when units > 1.
type fixtureOp struct {
	name       string
	n          int
	base, step int64
	units      int64
}

// fixtureOps are the measurements of a workload's phase: the operations
// its published row names, each with its own latencies.
func fixtureOps(p *profiles.Profile, workload string) []fixtureOp {
	row := p.Baseline.Row(workload)
	var names []string
	if row != nil {
		for op := range row.Mix {
			names = append(names, op)
		}
	}
	if len(names) == 0 {
		names = []string{"READ"}
	}
	sort.Strings(names)
	units := int64(1)
	if row != nil && row.UnitsPerOp > 1 {
		units = int64(row.UnitsPerOp)
	}
	var out []fixtureOp
	for i, n := range names {
		out = append(out, fixtureOp{name: n, n: 1000, base: int64(500 * (i + 1)), step: 7, units: units})
	}
	return out
}

// writeFixtureRun makes a run directory of a profile as a finished run
// leaves it: setup.json, cluster.json (with a key file and a pinned host
// key), hosts.json, deployment.json (with a password file), run.json with
// the measured phases' CPU, and one client's record files and summaries.
// Its first three workloads ran; the duration was overridden.
// fixtureSite is where a fixture run ran and how it was asked for.
type fixtureSite struct {
	provider, flavor, product, version string
	// shared marks hosts sharing one machine (a local cluster).
	shared bool
	cpus   string
	// warning is the preflight's warning of a host ("" for none).
	warning      func(host string) string
	settings     map[string]string
	parameters   map[string]string
	ddl          string
	overridden   []string
	overriddenBy map[string]string
	chosen       []collect.Choice
	invocations  []collect.Invocation
	// repetitions is --repeat (0: not given). Repetition k's operations
	// count repetitionOps[k] each, so that each has its own throughput.
	repetitions int
}

// repetitionOps are each fixture repetition's operations per measurement
// (index 0: a run without repetitions): repetition 1 is the median by
// throughput, 3 the slowest; they are 3% apart at most.
var repetitionOps = []int{1000, 1000, 1020, 990}

// inventorySite is an on-prem run of YugabyteDB on machines of its own,
// one of them with a slow clock measurement.
var inventorySite = fixtureSite{provider: "inventory", flavor: "yugabyte", product: "YugabyteDB", version: "2.20.1.0", cpus: "16",
	warning: func(h string) string {
		if h == "db-2" {
			return "clock of db-2 measured with ±12ms uncertainty (slow round trips)"
		}
		return ""
	},
	settings:   map[string]string{"replication_factor": "3"},
	parameters: map[string]string{"threads": "64", "duration": "1m0s", "flavor": "yugabyte", "client_hosts": "1"},
	overridden: []string{"duration"},
	invocations: []collect.Invocation{{At: fixtureEpoch, Tool: "ybbench 1.0.0 (commit 0123abc, go1.26.0)",
		Args: []string{"ybbench", "run", "--inventory", "hosts.yaml", "--duration", "1m",
			"--yb-tarball", "https://REDACTED@downloads.example/yugabyte-2.20.1.0.tar.gz?REDACTED"}}},
}

// localPostgresSite is `ybbench run --local --quick` on a 2-core machine:
// PostgreSQL chosen by this machine's default, the --quick sizes, the
// hosts' ulimits below the recommendation, a plain table for ddl range.
var localPostgresSite = fixtureSite{provider: "local", flavor: "postgres", product: "PostgreSQL", version: "15.14", shared: true, cpus: "2",
	warning: func(h string) string {
		return "ulimit -n (open files) on " + h + " is 1024, below the recommended 1048576; ulimit -u (processes) on " + h + " is 7823, below the recommended 12000"
	},
	settings: map[string]string{"topology": "primary db-1, streaming replicas db-2, db-3, synchronous commit to a quorum", "auth": "scram-sha-256"},
	parameters: map[string]string{"threads": "64", "duration": "1m0s", "flavor": "postgres", "client_hosts": "1", "records": "20000",
		"operations": "200000", "load_threads": "16", "ddl": "range"},
	ddl:        "CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, FIELD1 TEXT)",
	overridden: []string{"records", "operations", "duration", "threads", "load_threads"},
	overriddenBy: map[string]string{"records": "--quick", "operations": "--quick", "duration": "--duration",
		"threads": "--quick", "load_threads": "--quick"},
	chosen: []collect.Choice{{Setting: "flavor", Value: "postgres",
		By: "the default for YSQL on this machine (the profile's is yugabyte, which needs a release tarball, yb_tarball)"}},
	invocations: []collect.Invocation{{At: fixtureEpoch, Tool: "ybbench 1.0.0 (commit 0123abc, go1.26.0)",
		Args: []string{"bin/ybbench", "run", "--local", "--quick", "--duration", "1m"}, Env: []string{"YBBENCH_AGENT_PROPERTIES=ysql.passwd=REDACTED"}}},
}

func writeFixtureRun(t *testing.T, dir string, p *profiles.Profile) {
	t.Helper()
	writeFixtureRunAt(t, dir, p, inventorySite)
}

// writeFixtureRunAt writes a fixture run directory of profile p run at a
// site: setup.json, cluster.json, hosts.json, deployment.json, run.json,
// the agents' records and summaries and the CPU files.
func writeFixtureRunAt(t *testing.T, dir string, p *profiles.Profile, site fixtureSite) {
	t.Helper()
	workloads := p.Workloads
	if len(workloads) > 3 {
		workloads = workloads[:3]
	}
	setup := &collect.Setup{Schema: collect.SetupSchema, RunID: p.Name + "-250301-1200-0a1b2c3d", Created: fixtureEpoch,
		Profile: p.Name, Family: p.Family, Binding: p.Binding, Baseline: &p.Baseline, Notes: p.Notes,
		Parameters: site.parameters, Overridden: site.overridden, OverriddenBy: site.overriddenBy, Chosen: site.chosen, Invocations: site.invocations,
		Provider: site.provider, DBHosts: 3, ClientHosts: 1,
		AcceptNewHostKeys: p.Family == "kv", DBAuth: map[bool]string{true: "off", false: "on"}[p.Family == "sysbench"],
		Versions:        map[string]string{"ybbench": "test", "go": "go1.test"},
		DatabaseProduct: site.product, PublishedProduct: "YugabyteDB", CPUs: 2, Repetitions: site.repetitions}
	for _, w := range workloads {
		setup.Workloads = append(setup.Workloads, collect.SetupWorkload{Name: w, Phases: fixturePhases(p.Family)})
	}
	writeJSON(t, filepath.Join(dir, collect.SetupFile), setup)

	type ssh struct {
		User          string `json:"user"`
		KeyFile       string `json:"key_file"`
		HostKey       string `json:"host_key,omitempty"`
		HostKeySource string `json:"host_key_source,omitempty"`
	}
	type host struct {
		Name         string   `json:"name"`
		Roles        []string `json:"roles"`
		PublicIP     string   `json:"public_ip"`
		InstanceType string   `json:"instance_type"`
		SSH          ssh      `json:"ssh"`
		Base         string   `json:"base"`
		Shared       bool     `json:"shared,omitempty"`
	}
	source := "inventory ssh.host_key"
	if setup.AcceptNewHostKeys {
		source = collect.AcceptedOnFirstUse
	}
	var hosts []host
	facts := map[string]map[string]string{}
	for i, name := range []string{"db-1", "db-2", "db-3", "client-1"} {
		role := "db"
		if name == "client-1" {
			role = "client"
		}
		hosts = append(hosts, host{Name: name, Roles: []string{role}, PublicIP: "10.0.0." + strconv.Itoa(i+1), InstanceType: "i3.4xlarge",
			SSH: ssh{User: "op", KeyFile: fixtureKeyFile, HostKey: fixtureHostKey, HostKeySource: source}, Base: "/data", Shared: site.shared})
		facts[name] = map[string]string{"kernel": "6.1.0", "cpus": site.cpus, "clock_skew_ms": strconv.Itoa(i)}
		if w := site.warning(name); w != "" {
			facts[name]["warnings"] = w
		}
	}
	writeJSON(t, filepath.Join(dir, "cluster.json"), map[string]any{"name": setup.RunID, "provider": site.provider, "hosts": hosts})
	writeJSON(t, filepath.Join(dir, "hosts.json"), facts)
	settings := map[string]string{"credentials": filepath.Join(dir, fixturePassword)}
	for k, v := range site.settings {
		settings[k] = v
	}
	if setup.DBAuth == "off" {
		settings["auth"] = "off"
	}
	writeJSON(t, filepath.Join(dir, "deployment.json"), map[string]any{"flavor": site.flavor, "version": site.version,
		"ysql": []map[string]any{{"host": "db-1", "addr": "10.0.0.1", "port": 5433}},
		"ycql": []map[string]any{{"host": "db-1", "addr": "10.0.0.1", "port": 9042}},
		"user": "ybbench", "password_file": filepath.Join(dir, fixturePassword), "database": "ycsb", "settings": settings,
		"processes": []map[string]string{{"host": "db-1", "name": "yb-tserver", "pid_file": "/data/ybbench/yb-tserver.pid"}}})

	var steps []map[string]any
	agent := filepath.Join(dir, "agents", "client-1")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range workloads {
		for _, k := range repetition.Numbers(site.repetitions) {
			stem := repetition.Stem(w, k)
			for _, ph := range fixturePhases(p.Family) {
				if ph.Name == "prepare" && p.Family == "ycsb" {
					ddl := site.ddl
					if ddl == "" {
						ddl = "CREATE TABLE usertable (ycsb_key varchar PRIMARY KEY) -- " + w
					}
					writeJSON(t, filepath.Join(agent, stem+"-prepare.json"), map[string]any{"schema": "ybload-ycsb-summary/1", "phase": "prepare",
						"ddl": ddl})
				}
				if !ph.Records {
					continue
				}
				ops := fixtureOps(p, w)
				for i := range ops {
					ops[i].n = repetitionOps[k]
				}
				writeRecords(t, filepath.Join(agent, stem+"-"+ph.Name+".jsonl"), w, ph.Name, ops)
				if ph.Name == "run" {
					step := "bench/" + w + "/run"
					if k > 0 {
						step = "bench/" + w + "/" + repetition.Tag(k) + "/run"
					}
					steps = append(steps, map[string]any{"name": step, "status": "done", "details": map[string]string{"client-1.exit": "0"}})
					// The db hosts' CPU over the phase, as the sampler writes it:
					// 41.5 % and 38.5 % of their node's ticks.
					span := func(busy int64) hostcpu.Span {
						return hostcpu.Span{Before: hostcpu.Sample{Mode: hostcpu.ModeNode, Hz: 100, Cores: 16},
							After: hostcpu.Sample{Mode: hostcpu.ModeNode, Busy: busy, Total: 1000, Hz: 100, Cores: 16, At: 60}}
					}
					if err := hostcpu.Write(dir, &hostcpu.File{Workload: w, Phase: "run", Rep: k, Hosts: map[string]hostcpu.Span{"db-1": span(415), "db-2": span(385)}}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	writeJSON(t, filepath.Join(dir, "run.json"), map[string]any{"schema": "ybbench-run/1", "id": setup.RunID, "steps": steps})
}

// writeRecords writes one agent's record file of a phase through the
// agents' own format: two ticks per measurement, then the end record
// (60 s of run time).
func writeRecords(t *testing.T, path, workload, phase string, ops []fixtureOp) {
	t.Helper()
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	w.Write(&record.Meta{V: record.Version, Type: record.KindMeta, Agent: "client-1", Workload: workload, Phase: phase, Start: fixtureEpoch,
		Threads: 64, Geometry: record.Shared, Settings: map[string]string{"ybload.version": "test-agent", "ysql.driver": "pgx test"}})
	var total int64
	for _, op := range ops {
		for tick := 0; tick < 2; tick++ {
			h := hist.New()
			for i := 0; i < op.n/2; i++ {
				h.Record(op.base + int64(tick*(op.n/2)+i)*op.step)
			}
			enc, err := h.Encode()
			if err != nil {
				t.Fatal(err)
			}
			tk := record.Tick{V: record.Version, Type: record.KindTick, Agent: "client-1", Phase: phase, Op: op.name, Index: tick,
				Count: int64(op.n / 2), Statuses: map[string]int64{"OK": int64(op.n / 2)}, Service: enc}
			if op.units > 1 {
				tk.Units = tk.Count * op.units
			}
			w.Write(&tk)
		}
		total += int64(op.n) * max(op.units, 1)
	}
	w.Write(&record.End{V: record.Version, Type: record.KindEnd, Agent: "client-1", Phase: phase, MeasureStart: fixtureEpoch,
		End: fixtureEpoch.Add(time.Minute), RunTimeMS: 60000, Ops: total, Stop: "duration"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
