package pipeline

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/profiles"
)

// metrics_addr takes a port, bare or as :PORT, and is off by default; a
// host, a port out of range or 0 (each agent would pick its own) is
// refused naming the setting.
func TestMetricsAddrSetting(t *testing.T) {
	if d := Defaults(); d.MetricsAddr != "" || d.agentMetricsPort() != 0 {
		t.Errorf("default %q: want off", d.MetricsAddr)
	}
	for v, want := range map[string]int{"9464": 9464, ":9464": 9464, "1": 1, "65535": 65535} {
		s := Defaults()
		s.MetricsAddr = v
		if err := s.Validate(); err != nil || s.agentMetricsPort() != want {
			t.Errorf("metrics_addr %q: port %d, %v; want %d", v, s.agentMetricsPort(), err, want)
		}
	}
	for _, v := range []string{"0", ":0", "65536", "10.0.0.5:9464", "http", "-1", ":"} {
		s := Defaults()
		s.MetricsAddr = v
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "metrics_addr") || !strings.Contains(err.Error(), "want a port") {
			t.Errorf("metrics_addr %q: %v; want refused, naming the setting", v, err)
		}
	}
}

// Set, metrics_addr reaches every family's agents on the phases that
// measure, in each mode's spelling, at the client's private address; off,
// no agent is told anything.
func TestMetricsAddrOnAgentCommandLines(t *testing.T) {
	want := map[string]string{"ycsb": "-p ybload.metrics.addr=10.0.0.9:9464", "sysbench": "--ybload-metrics-addr=10.0.0.9:9464",
		"kv": "--ybload_metrics_addr 10.0.0.9:9464"}
	for _, profile := range []string{"ycsb-ysql", "ycsb-ycql", "sysbench-ysql", "kv-ycql"} {
		off, err := agentArgs(profile, "", "")
		if err != nil {
			t.Fatal(err)
		}
		on, err := agentArgs(profile, "metrics_addr", ":9464")
		if err != nil {
			t.Fatal(err)
		}
		p, err := profiles.Get(profile)
		if err != nil {
			t.Fatal(err)
		}
		for i, inv := range on {
			line, offLine := strings.Join(inv.args, " "), strings.Join(off[i].args, " ")
			measures := inv.phase == "load" || inv.phase == "run"
			if strings.Contains(offLine, "metrics") {
				t.Errorf("%s: metrics_addr off, yet: %s", inv.key(), offLine)
			}
			if got := strings.Contains(line, want[p.Family]); got != measures || (!measures && strings.Contains(line, "metrics")) {
				t.Errorf("%s: %q there %v, want %v: %s", inv.key(), want[p.Family], got, measures, line)
			}
		}
	}
}
