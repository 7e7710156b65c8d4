package history

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/collect/history/historytest"
)

// A run's entry holds, per series, each figure's value in each
// repetition, as the result's own fields give them (read here from the
// JSON document, not through collect): the workload's throughput and
// error rate, each operation's p50 and p99.
func TestFromResultFigures(t *testing.T) {
	dir := historytest.Run(t, t.TempDir(), "r1", time.Unix(1_800_000_000, 0), "b1", 1)
	r, err := ReadResultFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := FromResult(r, Build{})
	if err != nil {
		t.Fatal(err)
	}
	doc := historytest.ReadMap(t, filepath.Join(dir, "result.json"))
	reps := doc["workloads"].([]any)[0].(map[string]any)["repetitions"].([]any)
	var wantTP []float64
	wantP50 := map[string][]float64{}
	for _, rep := range reps {
		rep := rep.(map[string]any)
		wantTP = append(wantTP, rep["throughput"].(float64))
		for _, ph := range rep["phases"].([]any) {
			ph := ph.(map[string]any)
			if ph["phase"] != "run" {
				continue
			}
			for _, m := range ph["measurements"].([]any) {
				m := m.(map[string]any)
				wantP50[m["name"].(string)] = append(wantP50[m["name"].(string)], m["latency_us"].(map[string]any)["p50"].(float64))
			}
		}
	}
	got := map[string]Point{}
	for _, p := range e.Points {
		got[p.Key.Operation] = p
	}
	if len(got) != 3 {
		t.Fatalf("points %+v: want the workload, READ and UPDATE", e.Points)
	}
	if tp := got[""].Figures["throughput"]; !equal(tp, wantTP) {
		t.Errorf("throughput %v, want %v", tp, wantTP)
	}
	for op, want := range wantP50 {
		if p50 := got[op].Figures["p50"]; !equal(p50, want) {
			t.Errorf("%s p50 %v, want %v", op, p50, want)
		}
	}
	k := got["READ"].Key
	if k.Profile != "ycsb-ysql" || k.Workload != "workloada" || k.Flavor != "postgres" || k.Hardware != "client 1×local, db 1×local" ||
		k.Clients != 1 || k.Parameters["workloads"] != "" || k.Parameters["threads"] != "64" {
		t.Errorf("key %+v", k)
	}
	if e.Build.ID != "b1" {
		t.Errorf("build %+v, want the result's own", e.Build)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The build is the one given, else the result's, else the database's
// flavor and version; a result with none of them is refused.
func TestBuildOf(t *testing.T) {
	dir := historytest.Run(t, t.TempDir(), "r1", time.Unix(1_800_000_000, 0), "", 1)
	r, err := ReadResultFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b := BuildOf(r, Build{}); b.ID != "postgres 15.18" {
		t.Errorf("default build %q", b.ID)
	}
	if b := BuildOf(r, Build{ID: "rc-7"}); b.ID != "rc-7" {
		t.Errorf("given build %q", b.ID)
	}
	r.Build = &collect.Build{ID: "from-run"}
	if b := BuildOf(r, Build{}); b.ID != "from-run" {
		t.Errorf("the result's build %q", b.ID)
	}
	r.Build, r.Database, r.Versions = nil, nil, map[string]string{}
	if _, err := FromResult(r, Build{}); err == nil || !strings.Contains(err.Error(), "give --build-id") {
		t.Errorf("no build: %v", err)
	}
	if e, err := FromResult(r, Build{ID: "x"}); err != nil || e.Build.ID != "x" {
		t.Errorf("control, a build given: %v", err)
	}
}

// A workload limited by its client measured the client: it is left out,
// saying why, and the rest of the run stays.
func TestClientLimitedLeftOut(t *testing.T) {
	dir := historytest.Run(t, t.TempDir(), "r1", time.Unix(1_800_000_000, 0), "b1", 1)
	r, err := ReadResultFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := FromResult(r, Build{}); len(e.Points) == 0 || len(e.Skipped) != 0 {
		t.Fatalf("control: %+v", e)
	}
	r.Workloads[0].Limit = &bottleneck.Verdict{LimitedBy: bottleneck.Client, Summary: "Limited by the client: ybload used 1.96 of 2 cores"}
	e, err := FromResult(r, Build{})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Points) != 0 || len(e.Skipped) != 1 || !strings.Contains(e.Skipped[0], "limited by its client") {
		t.Errorf("client-limited: points %d, skipped %q", len(e.Points), e.Skipped)
	}
}
