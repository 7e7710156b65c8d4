package bottleneck

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/record/hostcpu"
)

// reading is one host reading as the sampler writes it: at seconds, the
// own processes' ticks, the machine's busy and idle ticks (100 Hz, 2
// cores), a disk's io_ticks and an interface's bytes.
type reading struct {
	at                  float64
	own, busy, idle     int64
	quota, allowed      string
	ioTicks, bytes, pkt int64
	shared              bool
	// periods and throttled are the quota's cgroup cpu.stat counters.
	periods, throttled int64
}

func (r reading) sample() hostcpu.Sample {
	mode := hostcpu.ModeNode
	if r.shared {
		mode = hostcpu.ModeProcess
	}
	allowed := r.allowed
	if allowed == "" {
		allowed = "0-1"
	}
	return hostcpu.Sample{Mode: mode, Busy: r.own, Hz: 100, Cores: 2, At: r.at,
		Node:  &hostcpu.NodeTicks{User: r.busy, Idle: r.idle},
		Own:   &hostcpu.Own{Busy: r.own, Procs: 3, Threads: 9, CPUsAllowed: allowed, CPUQuota: r.quota, Periods: r.periods, Throttled: r.throttled},
		Disks: []hostcpu.Disk{{Name: "sda", IOTicks: r.ioTicks, ReadSectors: r.ioTicks * 8, WriteSectors: r.ioTicks * 16}},
		Nets:  []hostcpu.Net{{Name: "eth0", RxBytes: r.bytes, TxBytes: r.bytes / 2, RxPackets: r.pkt, TxPackets: r.pkt}}}
}

func span(rs ...reading) hostcpu.Span {
	s := hostcpu.Span{Before: rs[0].sample(), After: rs[len(rs)-1].sample()}
	for _, r := range rs[1 : len(rs)-1] {
		s.Samples = append(s.Samples, r.sample())
	}
	return s
}

// idle10 is a host read 10 s apart, its own processes and the machine at
// a tenth of one core.
func idle10(shared bool) hostcpu.Span {
	return span(reading{at: 100, shared: shared}, reading{at: 110, own: 10, busy: 20, idle: 1980, shared: shared})
}

func input(ph Phase, db, client hostcpu.Span) Input {
	return Input{Phase: ph, DBs: map[string]hostcpu.Span{"db-1": db}, Clients: map[string]hostcpu.Span{"client-1": client}, Rules: Default()}
}

var closed = Phase{Threads: 16, Throughput: 4000, Sanity: 1.01, Ops: 40000, From: 100, To: 110}

func TestJudgeEachVerdict(t *testing.T) {
	quota := "10000 100000" // a tenth of one core
	withLink := Default()
	withLink.LinkGbps = 1
	tests := []struct {
		name    string
		in      Input
		want    string
		summary string
	}{
		{"agent at its quota", input(closed, idle10(false),
			span(reading{at: 100, quota: quota}, reading{at: 110, own: 99, busy: 120, idle: 1880, quota: quota})),
			Client, "Limited by the client: ybload used 0.10 of 0.1 cores on client-1"},
		{"client host busy", input(closed, idle10(false),
			span(reading{at: 100}, reading{at: 110, own: 900, busy: 1900, idle: 100})),
			Client, "Limited by the client: client-1 was 95.0% busy"},
		{"database at its quota", input(closed,
			span(reading{at: 100, quota: "50000 100000"}, reading{at: 110, own: 490, busy: 600, idle: 1400, quota: "50000 100000"}), idle10(false)),
			DatabaseCPU, "Limited by the database's CPU: its processes used 0.49 of 0.5 cores on db-1"},
		// A group held by its quota gets less than the quota (here 80%
		// of it), but the kernel says it ran out in nearly every period.
		{"database held by its quota", input(closed,
			span(reading{at: 100, quota: quota, periods: 1000, throttled: 990}, reading{at: 110, own: 80, busy: 160, idle: 1840, quota: quota, periods: 1100, throttled: 1088}), idle10(false)),
			DatabaseCPU, "Limited by the database's CPU: its processes were held by their CPU quota of 0.1 cores on db-1, using 0.08"},
		{"agent held by its quota", input(closed, idle10(false),
			span(reading{at: 100, quota: quota, periods: 50, throttled: 0}, reading{at: 110, own: 70, busy: 160, idle: 1840, quota: quota, periods: 150, throttled: 97})),
			Client, "Limited by the client: ybload was held by its CPU quota of 0.1 cores on client-1, using 0.07"},
		// The control: a quota that ran out now and then, below the
		// rule, holds nothing.
		{"a quota with room", input(closed,
			span(reading{at: 100, quota: quota, periods: 100, throttled: 5}, reading{at: 110, own: 60, busy: 160, idle: 1840, quota: quota, periods: 200, throttled: 45}), idle10(false)),
			Concurrency, "Limited by concurrency: nothing saturated; 16 threads ÷ their mean latency = 4,040 ops/s (measured 4,000)"},
		{"database disk", input(closed,
			span(reading{at: 100}, reading{at: 110, own: 100, busy: 200, idle: 1800, ioTicks: 9700}), idle10(false)),
			DatabaseDisk, "Limited by the database's disk: sda was 97% busy on db-1"},
		{"network", func() Input {
			in := input(closed, span(reading{at: 100}, reading{at: 110, own: 10, busy: 20, idle: 1980, bytes: 1_200_000_000, pkt: 900_000}), idle10(false))
			in.Rules = withLink
			return in
		}(), Network, "Limited by the network: eth0 carried 0.96 of 1 Gbit/s on db-1"},
		{"target reached", input(Phase{Threads: 16, Throughput: 995, TargetOpsPerSec: 1000, Ops: 9950, From: 100, To: 110}, idle10(false), idle10(false)),
			Target, "Limited by its target: 1,000 ops/s asked, 995 achieved"},
		{"late starts", input(Phase{Threads: 2, Throughput: 700, TargetOpsPerSec: 1000, Ops: 7000, Late: 700, From: 100, To: 110}, idle10(false), idle10(false)),
			Client, "Limited by the client: its 2 workers were all busy when operations were due (10.0% started late)"},
		{"nothing saturated", input(closed, idle10(false), idle10(false)),
			Concurrency, "Limited by concurrency: nothing saturated; 16 threads ÷ their mean latency = 4,040 ops/s (measured 4,000)"},
		{"shared machine saturated by the database", input(closed,
			span(reading{at: 100, shared: true}, reading{at: 110, own: 1500, busy: 1900, idle: 100, shared: true}),
			span(reading{at: 100, shared: true}, reading{at: 110, own: 300, busy: 1900, idle: 100, shared: true})),
			DatabaseCPU, "Limited by the database's CPU: the machine the local hosts share was 95.0% busy, the database's processes using 1.50 cores, the agents 0.30"},
		{"sampling off", Input{Phase: closed, Off: "host_samples off", Rules: Default()}, Unknown, "Limit unknown: the hosts were not read (host_samples off)"},
		{"a client not read", Input{Phase: closed, DBs: map[string]hostcpu.Span{"db-1": idle10(false)}, WantClients: []string{"client-1"}, Rules: Default()},
			Unknown, "Limit unknown: client-1 was not read"},
		{"readings without counters", input(closed, idle10(false), hostcpu.Span{Before: hostcpu.Sample{Mode: "node", Hz: 100, Cores: 2, At: 100}, After: hostcpu.Sample{Mode: "node", Hz: 100, Cores: 2, At: 110}}),
			Unknown, "Limit unknown: client-1's readings carry no process or kernel counters (taken before they were read)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(tc.in)
			if v.LimitedBy != tc.want || v.Summary != tc.summary {
				t.Fatalf("got %s %q, want %s %q\nevidence: %q", v.LimitedBy, v.Summary, tc.want, tc.summary, v.Evidence)
			}
			// The opposite verdicts are not given: no other rule fired.
			for _, f := range v.Fired {
				if f != tc.want {
					t.Errorf("rule %s fired too: %q", f, v.Evidence)
				}
			}
			if len(v.Evidence) == 0 {
				t.Error("a verdict without evidence")
			}
		})
	}
}

// The rules read the measured window only: a saturated warm-up before it
// does not make a run client-limited, and a saturated window does.
func TestJudgeLeavesTheWarmupOut(t *testing.T) {
	// The agent may use one core; it used 0.99 of it over the 100 s
	// warm-up, and a hundredth of it over the 10 s measured.
	warm := span(reading{at: 0, allowed: "0"}, reading{at: 100, own: 9900, busy: 10000, idle: 10000, allowed: "0"}, reading{at: 110, own: 9910, busy: 10020, idle: 11980, allowed: "0"})
	if v := Judge(input(closed, idle10(false), warm)); v.LimitedBy != Concurrency {
		t.Errorf("a warm-up at full CPU made the verdict %s: %q", v.LimitedBy, v.Evidence)
	}
	whole := closed
	whole.From, whole.To = 0, 0
	if v := Judge(input(whole, idle10(false), warm)); v.LimitedBy != Client || !strings.Contains(strings.Join(v.Evidence, " "), "whole phase") {
		t.Errorf("with no window known, the whole phase (and the saying so) was not used: %s %q", v.LimitedBy, v.Evidence)
	}
}

func TestParseRules(t *testing.T) {
	r, err := Parse(map[string]string{"client_cpu": "80", "link_gbps": "10"})
	if err != nil || r.ClientCPU != 80 || r.LinkGbps != 10 || r.DatabaseCPU != 90 {
		t.Fatalf("positive control: %+v %v", r, err)
	}
	for m, want := range map[string]map[string]string{
		`"cpu" is no rule`:                {"cpu": "90"},
		`client_cpu="x" is not a number`:  {"client_cpu": "x"},
		`disk_util=120 must be a percent`: {"disk_util": "120"},
		`link_gbps=0 must be above 0`:     {"link_gbps": "0"},
	} {
		if _, err := Parse(want); err == nil || !strings.Contains(err.Error(), m) {
			t.Errorf("%v: got %v, want %q", want, err, m)
		}
	}
	if !slices.Equal(Names(), []string{"client_cpu", "database_cpu", "disk_util", "late", "link", "link_gbps", "target", "throttled"}) {
		t.Errorf("names %v", Names())
	}
	// The documented default parses back to the defaults.
	if back, err := Parse(parseList(Default().String())); err != nil || back != Default() {
		t.Errorf("%q parsed back as %+v (%v), want %+v", Default().String(), back, err, Default())
	}
	if txt := strings.Join(Default().Text(), "\n"); !strings.Contains(txt, "network: not applied") || !strings.Contains(txt, "≥ 90%") {
		t.Errorf("rules text: %s", txt)
	}
}

func TestAllowedCores(t *testing.T) {
	for _, tc := range []struct {
		allowed, quota string
		want           float64
	}{
		{"0-1", "max 100000", 2}, {"0", "", 1}, {"0-3,6", "-1 100000", 2}, {"0-1", "25000 100000", 0.25}, {"garbage", "", 2},
	} {
		if got := allowedCores(&hostcpu.Own{CPUsAllowed: tc.allowed, CPUQuota: tc.quota}, 2); got != tc.want {
			t.Errorf("%q %q: %g cores, want %g", tc.allowed, tc.quota, got, tc.want)
		}
	}
}

// Rules written before the quota rule existed (a run's setup.json, an
// older result) read as 0 for it: it is then not applied, and not printed,
// rather than firing on every host (every share is ≥ 0). The control: the
// same readings with today's rules fire it.
func TestRulesWrittenBeforeTheQuotaRule(t *testing.T) {
	var old Rules
	if err := json.Unmarshal([]byte(`{"client_cpu":90,"database_cpu":90,"disk_util":90,"link":90,"target":99,"late":1}`), &old); err != nil {
		t.Fatal(err)
	}
	held := span(reading{at: 100, quota: "10000 100000", periods: 100, throttled: 0}, reading{at: 110, own: 70, busy: 160, idle: 1840, quota: "10000 100000", periods: 200, throttled: 97})
	idle := span(reading{at: 100}, reading{at: 110, own: 10, busy: 20, idle: 1980})
	in := input(closed, idle10(false), idle)
	in.Rules = old
	if v := Judge(in); v.LimitedBy != Concurrency {
		t.Errorf("an unthrottled client under old rules: %s %q", v.LimitedBy, v.Evidence)
	}
	in = input(closed, idle10(false), held)
	in.Rules = old
	if v := Judge(in); v.LimitedBy != Concurrency {
		t.Errorf("old rules applied the quota rule: %s %q", v.LimitedBy, v.Evidence)
	}
	if txt := strings.Join(old.Text(), "\n"); strings.Contains(txt, "quota") {
		t.Errorf("old rules print the quota rule:\n%s", txt)
	}
	in.Rules = Default()
	if v := Judge(in); v.LimitedBy != Client {
		t.Errorf("today's rules on a throttled client: %s %q", v.LimitedBy, v.Evidence)
	}
}

// parseList splits "a=1,b=2" as a spec's limit_rules are given.
func parseList(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}
