// Package historytest makes run results for the history's tests: the
// report's fixture run, rescaled, under run ids and builds of the test's
// choosing, written as result.json files that pass the schema.
package historytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ybbench/ybbench/collect"
)

// BaseResult is the report's fixture run (one workload, three
// repetitions, READ and UPDATE), with a database and hosts of its own.
func BaseResult(t *testing.T) map[string]any {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "report", "testdata", "run", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["database"] = map[string]any{"flavor": "postgres", "version": "15.18"}
	m["hosts"] = []any{
		map[string]any{"name": "db-1", "roles": []any{"db"}, "shared": true},
		map[string]any{"name": "client-1", "roles": []any{"client"}, "shared": true},
	}
	return m
}

// Run writes a run directory holding only its result.json: the base
// result as run id, made at created, of the given build, its throughput
// multiplied by scale and its latencies divided by it.
func Run(t *testing.T, parent, runID string, created time.Time, build string, scale float64) string {
	t.Helper()
	m := BaseResult(t)
	m["run_id"], m["created"] = runID, created.UTC().Format(time.RFC3339Nano)
	if build != "" {
		m["build"] = map[string]any{"id": build}
	}
	scaleWorkloads(m, scale)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.Validate(b); err != nil {
		t.Fatalf("the synthetic result is not one: %v", err)
	}
	dir := filepath.Join(parent, runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// scaleWorkloads multiplies every throughput by scale and divides every
// latency by it, through the JSON document itself.
func scaleWorkloads(m map[string]any, scale float64) {
	var phases func(ps []any)
	phases = func(ps []any) {
		for _, p := range ps {
			p := p.(map[string]any)
			p["throughput_ops_per_sec"] = p["throughput_ops_per_sec"].(float64) * scale
			for _, ms := range p["measurements"].([]any) {
				l := ms.(map[string]any)["latency_us"].(map[string]any)
				for k, v := range l {
					if k == "mean" {
						l[k] = v.(float64) / scale
					} else {
						l[k] = float64(int64(v.(float64) / scale))
					}
				}
			}
		}
	}
	for _, w := range m["workloads"].([]any) {
		w := w.(map[string]any)
		w["throughput"] = w["throughput"].(float64) * scale
		phases(w["phases"].([]any))
		for _, r := range w["repetitions"].([]any) {
			r := r.(map[string]any)
			r["throughput"] = r["throughput"].(float64) * scale
			phases(r["phases"].([]any))
		}
		delete(w, "spread")
		delete(w, "comparisons")
	}
}

// ReadMap reads a result file as a generic document.
func ReadMap(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// WriteMap writes a generic document as a file.
func WriteMap(t *testing.T, path string, m map[string]any) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
