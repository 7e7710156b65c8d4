package agentrun_test

import (
	"fmt"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/kv"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/sysbench"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/bench/ysql"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/profiles"
	"github.com/ybbench/ybbench/provision"
)

const testPassword = `s3cret Pw\0123=:#!`

func noEnv(string) string { return "" }

// inputs are the invocation inputs of every phase of every workload of a
// profile, for two agents, with authentication on and (YCQL) off.
func inputs(t *testing.T, p *profiles.Profile) []agentrun.Input {
	var out []agentrun.Input
	users := []string{"ybbench"}
	if p.Binding == "ycql" {
		users = append(users, "") // db_auth=off
	}
	props := map[string]string(nil)
	if p.Family == "ycsb" {
		props = map[string]string{"hdrhistogram.percentiles": "50,99", "exportfile": "/x/{workload}-{phase}.txt"}
	}
	for wi, w := range p.Workloads {
		// Every other workload runs as a repetition (--repeat), whose
		// files carry it in their names.
		rep := (wi % 2) * (wi + 1)
		for _, ph := range agentrun.Phases(p.Family) {
			n := 2
			if agentrun.FirstClientOnly(p.Family, ph) {
				n = 1
			}
			for i := 0; i < n; i++ {
				for _, u := range users {
					pw := testPassword
					if u == "" {
						pw = ""
					}
					in := agentrun.Input{Family: p.Family, Binding: p.Binding, Phase: agentrun.Phase{Workload: w, Phase: ph, Rep: rep},
						WorkloadArgs: p.WorkloadArgs[w], Index: i, Count: n, Dir: t.TempDir(), Host: fmt.Sprintf("client-%d", i+1),
						StartAt: time.UnixMilli(1_700_000_000_123),
						Params: agentrun.Params{Records: p.Parameters.Records, Operations: p.Parameters.Operations + 1,
							Threads: p.Parameters.Threads, LoadThreads: p.Parameters.LoadThreads, Duration: p.Parameters.Duration,
							Warmup: p.Parameters.Warmup, DDL: p.Parameters.DDL, Tables: p.Parameters.Tables},
						DB: agentrun.DB{Database: "bench", User: u, Password: pw,
							YSQL: []provision.Endpoint{{Host: "db-1", Addr: "10.0.0.1", Port: 5433}, {Host: "db-2", Addr: "10.0.0.2", Port: 5433}},
							YCQL: []provision.Endpoint{{Host: "db-1", Addr: "10.0.0.1", Port: 9042}, {Host: "db-2", Addr: "10.0.0.2", Port: 9042}}},
					}
					if ph != agentrun.Prepare {
						in.Properties = props
					}
					// Every other workload serves live metrics, on the
					// client's own address.
					if wi%2 == 0 {
						in.Addr, in.MetricsPort = fmt.Sprintf("10.0.1.%d", i+1), 9464
					}
					if ph == agentrun.Run && wi%3 == 1 {
						// A sweep's step: paced, with a late-start tolerance.
						in.Phase.Sweep, in.Phase.Rep = 2, 0
						in.TargetOpsPerSec, in.LateAfter, in.StepWarmup = 2345.6, 20*time.Millisecond, 7*time.Second
					}
					out = append(out, in)
				}
			}
		}
	}
	return out
}

// writeFiles puts an invocation's files where the agent reads them, 0600
// as the agents are given them.
func writeFiles(t *testing.T, inv agentrun.Invocation) {
	t.Helper()
	for _, f := range inv.Files() {
		if err := os.WriteFile(f.Path, []byte(f.Content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// checks maps a field of an invocation struct (dotted path) to what the
// agent's own parser read for it.
type checks[P any] map[string]func(P) any

// compare checks every field of v (nested structs by their fields) against
// what the agent parsed; a field without a check fails, so a new field
// cannot reach the agent unchecked.
func compare[P any](t *testing.T, v any, parsed P, cs checks[P]) {
	t.Helper()
	seen := map[string]bool{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name := prefix + f.Name
			fv := v.Field(i)
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}) {
				walk(name+".", fv)
				continue
			}
			seen[name] = true
			c, ok := cs[name]
			if !ok {
				t.Errorf("%s.%s has no check against the agent's parser: add one", v.Type(), name)
				continue
			}
			got := c(parsed)
			if !reflect.DeepEqual(fv.Interface(), got) {
				t.Errorf("%s: built %#v, the agent read %#v", name, fv.Interface(), got)
			}
		}
	}
	walk("", reflect.ValueOf(v).Elem())
	for name := range cs {
		if !seen[name] {
			t.Errorf("check %s names no field", name)
		}
	}
}

// ycsbParsed is what ybload's YCSB mode reads from a command line.
type ycsbParsed struct {
	inv  *ycsb.Invocation
	cfg  *ycsb.Config
	ysql *ysql.Config
}

// given reports whether the command line set key (the workload files set
// some of the same keys, which the invocation leaves as they are).
func (p ycsbParsed) given(key string) bool { return p.inv.Props.SourceOf(key).Flag != "" }

func (p ycsbParsed) num(key string) int64 {
	if !p.given(key) {
		return 0
	}
	v, err := p.inv.Props.Long(key, 0)
	if err != nil {
		panic(err)
	}
	return v
}

func (p ycsbParsed) get(key string) string { return p.inv.Props.Get(key, "") }

// ownKeys are the properties the YCSB invocation sets itself; any other
// given with -p is one of its extra Properties.
var ownKeys = map[string]bool{"recordcount": true, "ybload.prepare.only": true, "ycql.createtable": true, "ycql.droptable": true,
	"ysql.createdatabase": true, "ysql.droptable": true, "ysql.createtable": true, "ysql.ddl": true, "insertstart": true,
	"insertcount": true, "operationcount": true, "ybload.agent.index": true, "ybload.agent.count": true, "maxexecutiontime": true, "warmuptime": true,
	"threadcount": true, "status": true, "ybload.agent": true, "ybload.records": true, "ybload.summary": true, "ybload.start.at": true,
	"ybload.metrics.addr": true, "dotransactions": true} // the command word sets it

var ycsbChecks = checks[ycsbParsed]{
	"Phase.Workload": func(p ycsbParsed) any { return strings.TrimPrefix(p.inv.WorkloadFiles[0], "built-in ") },
	"Phase.Phase": func(p ycsbParsed) any {
		prep, err := p.inv.Props.StrictBool("ybload.prepare.only", false)
		switch {
		case err != nil:
			return err
		case prep:
			return agentrun.Prepare
		case p.inv.Load:
			return agentrun.Load
		}
		return agentrun.Run
	},
	// The repetition reaches the agent only in its file names.
	"Phase.Rep": func(p ycsbParsed) any {
		var k int
		if _, err := fmt.Sscanf(path.Base(p.get("ybload.summary")), p.inv.WorkloadFiles[0][len("built-in "):]+"-r%d-", &k); err != nil {
			return 0
		}
		return k
	},
	// So does the sweep's step.
	"Phase.Sweep": func(p ycsbParsed) any {
		var k int
		if _, err := fmt.Sscanf(path.Base(p.get("ybload.summary")), p.inv.WorkloadFiles[0][len("built-in "):]+"-s%d-", &k); err != nil {
			return 0
		}
		return k
	},
	"Binding":        func(p ycsbParsed) any { return p.inv.Binding },
	"PropertiesFile": func(p ycsbParsed) any { return p.inv.WorkloadFiles[1] },
	"RecordCount":    func(p ycsbParsed) any { return p.cfg.RecordCount },
	"Agent":          func(p ycsbParsed) any { return p.get("ybload.agent") },
	"SummaryFile":    func(p ycsbParsed) any { return p.get("ybload.summary") },
	"Threads":        func(p ycsbParsed) any { return int(p.num("threadcount")) },
	"RecordsFile":    func(p ycsbParsed) any { return p.get("ybload.records") },
	"StartAt": func(p ycsbParsed) any {
		if !p.given("ybload.start.at") {
			return time.Time{}
		}
		return time.UnixMilli(p.num("ybload.start.at"))
	},
	"DDL": func(p ycsbParsed) any {
		if p.ysql == nil || !p.given("ysql.ddl") {
			return ""
		}
		return p.ysql.DDL
	},
	"InsertStart": func(p ycsbParsed) any {
		if !p.given("insertstart") {
			return int64(0)
		}
		return p.cfg.InsertStart
	},
	"InsertCount": func(p ycsbParsed) any {
		if !p.given("insertcount") {
			return int64(0)
		}
		return p.cfg.InsertCount
	},
	"OperationCount": func(p ycsbParsed) any {
		if !p.given("operationcount") {
			return int64(0)
		}
		return p.cfg.OperationCount
	},
	"AgentIndex":       func(p ycsbParsed) any { return int(p.num("ybload.agent.index")) },
	"AgentCount":       func(p ycsbParsed) any { return int(p.num("ybload.agent.count")) },
	"MaxExecutionTime": func(p ycsbParsed) any { return time.Duration(p.num("maxexecutiontime")) * time.Second },
	"Warmup":           func(p ycsbParsed) any { return time.Duration(p.num("warmuptime")) * time.Second },
	// Read by the agent's own parser of the address, which the YCSB
	// mode's run options use.
	"MetricsAddr": func(p ycsbParsed) any {
		if !p.given("ybload.metrics.addr") {
			return ""
		}
		a, err := livemetrics.ParseAddr(p.get("ybload.metrics.addr"))
		if err != nil {
			return err
		}
		return a
	},
	"Properties": func(p ycsbParsed) any {
		var out []agentrun.Property
		for _, k := range p.inv.Props.Keys() {
			if !ownKeys[k] && p.inv.Props.SourceOf(k).Flag != "" {
				out = append(out, agentrun.Property{Name: k, Value: p.get(k)})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out
	},
	"Conn.Servers": func(p ycsbParsed) any {
		var out []agentrun.Server
		if p.ysql != nil {
			for _, e := range p.ysql.Endpoints {
				out = append(out, agentrun.Server{Addr: e.Host, Port: e.Port})
			}
			return out
		}
		port, err := p.inv.Props.Int("port", 0)
		if err != nil {
			return err
		}
		for _, h := range strings.Split(p.get("hosts"), ",") {
			out = append(out, agentrun.Server{Addr: h, Port: int(port)})
		}
		return out
	},
	"Conn.Database": func(p ycsbParsed) any {
		if p.ysql == nil {
			return ""
		}
		for _, e := range p.ysql.Endpoints[1:] {
			if e.Database != p.ysql.Endpoints[0].Database {
				return "endpoints disagree on the database"
			}
		}
		return p.ysql.Endpoints[0].Database
	},
	"Conn.User": func(p ycsbParsed) any {
		if p.ysql != nil {
			return p.ysql.User
		}
		return p.get("cassandra.username")
	},
	"Conn.Password": func(p ycsbParsed) any {
		if p.ysql != nil {
			return p.ysql.Password
		}
		f := p.get("cassandra.password.file")
		if f == "" {
			return ""
		}
		pw, err := agentutil.ReadSecretFile(f)
		if err != nil {
			return err
		}
		return pw
	},
	"Conn.PasswordFile": func(p ycsbParsed) any { return p.get("cassandra.password.file") },
}

var sysbenchChecks = checks[*sysbench.Options]{
	"Workload":     func(o *sysbench.Options) any { return o.Workload },
	"Command":      func(o *sysbench.Options) any { return o.Command },
	"Tables":       func(o *sysbench.Options) any { return int(o.Tables) },
	"TableSize":    func(o *sysbench.Options) any { return o.TableSize },
	"Hosts":        func(o *sysbench.Options) any { return o.Hosts },
	"Port":         func(o *sysbench.Options) any { return o.Port },
	"User":         func(o *sysbench.Options) any { return o.User },
	"Database":     func(o *sysbench.Options) any { return o.DB },
	"Password":     func(o *sysbench.Options) any { return o.Password },
	"PasswordFile": func(o *sysbench.Options) any { return o.Given["pgsql_password_file"] },
	"SummaryFile":  func(o *sysbench.Options) any { return o.Summary },
	"Threads": func(o *sysbench.Options) any {
		if _, ok := o.Given["threads"]; !ok {
			return 0
		}
		return o.Threads
	},
	"Time": func(o *sysbench.Options) any {
		if _, ok := o.Given["time"]; !ok {
			return time.Duration(0)
		}
		return time.Duration(o.Time) * time.Second
	},
	"Warmup": func(o *sysbench.Options) any {
		if _, ok := o.Given["warmup_time"]; !ok {
			return time.Duration(0)
		}
		return time.Duration(o.Warmup) * time.Second
	},
	"ReportInterval": func(o *sysbench.Options) any {
		if _, ok := o.Given["report_interval"]; !ok {
			return time.Duration(0)
		}
		return time.Duration(o.ReportInterval) * time.Second
	},
	"RecordsFile": func(o *sysbench.Options) any { return o.Records },
	"Agent":       func(o *sysbench.Options) any { return o.Given["ybload_agent"] },
	"StartAt":     func(o *sysbench.Options) any { return o.StartAt },
	"Rate": func(o *sysbench.Options) any {
		if o.Rate > 0 && !o.QueueFullStop {
			return "a paced step whose full queue would fail the sweep"
		}
		return o.Rate
	},
	"LateAfter": func(o *sysbench.Options) any {
		if _, ok := o.Given["ybload_late_after"]; !ok {
			return time.Duration(0)
		}
		return o.LateAfter
	},
	"MetricsAddr": func(o *sysbench.Options) any { return o.MetricsAddr },
}

var kvChecks = checks[*kv.Options]{
	"Workload": func(o *kv.Options) any { return o.Workload },
	"NoUUID":   func(o *kv.Options) any { return o.NoUUID },
	"BatchSize": func(o *kv.Options) any {
		if o.Set["batch_size"] == "" {
			return 0
		}
		return o.BatchSize
	},
	"ValueSize": func(o *kv.Options) any {
		if o.Set["value_size"] == "" {
			return 0
		}
		return o.ValueSize
	},
	"Readers": func(o *kv.Options) any { return o.Readers },
	"Writers": func(o *kv.Options) any { return o.Writers },
	"UniqueKeys": func(o *kv.Options) any {
		if o.Set["num_unique_keys"] == "" {
			return int64(0)
		}
		return o.UniqueKeys
	},
	"Nodes": func(o *kv.Options) any {
		var out []agentrun.Server
		for _, h := range o.Hosts {
			out = append(out, agentrun.Server{Addr: h, Port: o.Port})
		}
		return out
	},
	"NumReads":        func(o *kv.Options) any { return o.NumReads },
	"NumWrites":       func(o *kv.Options) any { return o.NumWrites },
	"RunTime":         func(o *kv.Options) any { return o.RunTime },
	"Warmup":          func(o *kv.Options) any { return o.Warmup },
	"RecordsFile":     func(o *kv.Options) any { return o.Records },
	"SummaryFile":     func(o *kv.Options) any { return o.Summary },
	"Agent":           func(o *kv.Options) any { return o.Agent },
	"User":            func(o *kv.Options) any { return o.Username },
	"Password":        func(o *kv.Options) any { return o.Password },
	"PasswordFile":    func(o *kv.Options) any { return o.Set["ybload_password_file"] },
	"StartAt":         func(o *kv.Options) any { return o.StartAt },
	"AgentIndex":      func(o *kv.Options) any { return o.AgentIndex },
	"AgentCount":      func(o *kv.Options) any { return o.AgentCount },
	"TargetOpsPerSec": func(o *kv.Options) any { return o.TargetOpsPerSec },
	"LateAfter": func(o *kv.Options) any {
		if o.Set["ybload_late_after_ms"] == "" {
			return time.Duration(0)
		}
		return o.LateAfter
	},
	"MetricsAddr": func(o *kv.Options) any { return o.MetricsAddr },
}

// Every built-in profile's invocations, for every phase, go through the
// agent's own parsers, and every field of each invocation struct is what
// the agent read.
func TestEveryInvocationIsWhatTheAgentReads(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]bool{}
	for _, p := range all {
		for _, in := range inputs(t, p) {
			name := fmt.Sprintf("%s/%s/agent%d-of-%d/user=%q", p.Name, in.Phase.FileBase(), in.Index, in.Count, in.DB.User)
			t.Run(name, func(t *testing.T) {
				inv, err := agentrun.Build(in)
				if err != nil {
					t.Fatal(err)
				}
				families[p.Family] = true
				writeFiles(t, inv)
				args := inv.Args()
				for _, a := range args {
					if in.DB.Password != "" && strings.Contains(a, in.DB.Password) {
						t.Fatalf("a password on the command line: %q", args)
					}
				}
				for _, f := range inv.Files() {
					if path.Dir(f.Path) != in.Dir {
						t.Errorf("file %s is outside the agent's directory %s", f.Path, in.Dir)
					}
				}
				switch v := inv.(type) {
				case *agentrun.YCSB:
					parsed := parseYCSB(t, args)
					compare(t, v, parsed, ycsbChecks)
				case *agentrun.Sysbench:
					o, err := sysbench.ParseArgs(args[1:], noEnv, agentutil.ReadSecretFile)
					if err != nil {
						t.Fatalf("ybload sysbench refuses %q: %v", args, err)
					}
					compare(t, v, o, sysbenchChecks)
				case *agentrun.KV:
					o, err := kv.ParseArgs(args[1:], noEnv)
					if err != nil {
						t.Fatalf("ybload kv refuses %q: %v", args, err)
					}
					compare(t, v, o, kvChecks)
				default:
					t.Fatalf("no parser for %T", inv)
				}
			})
		}
	}
	for _, f := range []string{"ycsb", "sysbench", "kv"} {
		if !families[f] {
			t.Errorf("no built-in profile of family %s was checked", f)
		}
	}
}

// parseYCSB reads a YCSB command line as ybload does, with the binding's
// own reading of the connection.
func parseYCSB(t *testing.T, args []string) ycsbParsed {
	t.Helper()
	inv, err := ycsb.ParseArgs(args, nil)
	if err != nil {
		t.Fatalf("ybload refuses %q: %v", args, err)
	}
	cfg, err := ycsb.ReadConfig(inv.Props)
	if err != nil {
		t.Fatalf("ybload's YCSB configuration of %q: %v", args, err)
	}
	p := ycsbParsed{inv: inv, cfg: cfg}
	switch inv.Binding {
	case "ysql":
		if p.ysql, err = ysql.ReadConfig(inv.Props, noEnv); err != nil {
			t.Fatalf("the YSQL binding refuses %q: %v", args, err)
		}
	case "ycql":
		b, err := ycql.NewYCSB(inv.Props, nil, noEnv)
		if err != nil {
			t.Fatalf("the YCQL binding refuses %q: %v", args, err)
		}
		if u := p.get("cassandra.username"); u != "" && !strings.Contains(fmt.Sprint(b.Settings()), "password (user "+u+")") {
			t.Errorf("the YCQL binding does not authenticate as %s: %v", u, b.Settings())
		}
	default:
		t.Fatalf("binding %q", inv.Binding)
	}
	return p
}
