package collect_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/sweep"
)

// The checker refuses what result.schema.json forbids: each change to a
// valid fixture result is caught, and names where it is.
func TestValidateRefuses(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "ycsb-ysql.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.Validate(b); err != nil {
		t.Fatalf("the fixture itself: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"old schema", func(m map[string]any) { m["schema"] = "ybbench-result/1" }, "$.schema"},
		{"a cluster with its key files", func(m map[string]any) { m["cluster"] = map[string]any{"hosts": []any{}} }, `has "cluster"`},
		{"no environment", func(m map[string]any) { delete(m, "environment") }, `lacks the required "environment"`},
		{"db_auth not on or off", func(m map[string]any) { env(m)["db_auth"] = "maybe" }, "$.environment.db_auth"},
		{"accept_new_host_keys a string", func(m map[string]any) { env(m)["accept_new_host_keys"] = "yes" }, "$.environment.accept_new_host_keys: is string"},
		{"a host's ssh", func(m map[string]any) {
			m["hosts"].([]any)[0].(map[string]any)["ssh"] = map[string]any{"key_file": "/k"}
		}, `$.hosts[0]: has "ssh"`},
		{"a fractional thread count", func(m map[string]any) { phase(m)["threads"] = 1.5 }, "$.workloads[0].phases[0].threads: is number, want integer"},
		{"a measurement without latency", func(m map[string]any) {
			delete(phase(m)["measurements"].([]any)[0].(map[string]any), "latency_us")
		}, `lacks the required "latency_us"`},
		{"a date that is not one", func(m map[string]any) { m["created"] = "yesterday" }, "$.created: is not a date-time"},
		{"a spread of no values", func(m map[string]any) {
			m["workloads"].([]any)[0].(map[string]any)["spread"] = []any{map[string]any{"metric": "p99", "unit": "µs", "values": []any{},
				"median": 0, "min": 0, "max": 0, "cv": 0}}
		}, "$.workloads[0].spread[0].values: has 0 items, fewer than the minimum 1"},
	} {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m)
		bad, _ := json.Marshal(m)
		err := collect.Validate(bad)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func env(m map[string]any) map[string]any { return m["environment"].(map[string]any) }

func phase(m map[string]any) map[string]any {
	return m["workloads"].([]any)[0].(map[string]any)["phases"].([]any)[0].(map[string]any)
}

// Every field a Result can hold is one the schema allows: a result with
// every optional part filled in validates, so a new field without a
// schema entry fails here (the schema forbids properties it does not name).
func TestSchemaCoversResult(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "ycsb-ysql.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := collect.ReadResult(b)
	if err != nil {
		t.Fatal(err)
	}
	res.Overridden = []string{"duration"}
	res.Baseline.Inconsistencies = []string{"x"}
	res.Hosts[0].Cloud, res.Hosts[0].Region, res.Hosts[0].Zone, res.Hosts[0].Shared = "aws", "r", "z", true
	res.Database.YCQL = []string{"a:1"}
	w := &res.Workloads[0]
	w.Problems = []string{"p"}
	w.Published.CPU, w.Published.Threads, w.Published.UnitsPerOp = 1, 2, 3
	w.CPU["db-1"] = collect.HostCPU{Percent: 1, Source: "s", Seconds: 2, SecondsAtEnd: 3}
	ph := &w.Phases[0]
	ph.Problems, ph.Schedule, ph.Counters = []string{"p"}, "target", map[string]int64{"c": 1}
	m := &ph.Measurements[0]
	m.Units, m.Late, m.Latency.Overflow = 5, 1, 1
	m.Response = &collect.LatencySummary{Mean: 1}
	res.Build = &collect.Build{ID: "b1"}
	w.Sweep = &collect.SweepResult{Saturation: 100, Fractions: []float64{50}, SLOP99: 2, Resolution: 0.1, Complete: true,
		Steps: []sweep.Step{{Index: 1, Kind: sweep.KindFraction, Target: 50, Achieved: 50, Extended: true, Stopped: "s", LimitedBy: "target"}},
		Knee:  &sweep.Knee{Target: 50, Achieved: 50, Step: 1}, MaxSustainable: 50, Problems: []string{"p"}}
	if err := collect.ValidateResult(res); err != nil {
		t.Error(err)
	}
}
