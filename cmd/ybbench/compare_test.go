package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect/compare"
	"github.com/ybbench/ybbench/pipeline"
)

// ybbench compare on the built binary: runs named by id, directory and
// result.json path; a throughput 2% higher is not flagged, workloada's
// READ p99 20% higher is (one repetition each), in every format.
func TestCLICompare(t *testing.T) {
	runs := t.TempDir()
	a := gatedRun(t, runs, "ycsb-ysql-260101-0000-aaaaaaaa", nil)
	gatedRun(t, runs, "ycsb-ysql-260101-0000-bbbbbbbb", func(m map[string]any) {
		for _, w := range m["workloads"].([]any) {
			w := w.(map[string]any)
			w["throughput"] = w["throughput"].(float64) * 1.02
		}
		w := m["workloads"].([]any)[0].(map[string]any)
		lat := w["phases"].([]any)[1].(map[string]any)["measurements"].([]any)[0].(map[string]any)["latency_us"].(map[string]any)
		lat["p99"] = math.Round(lat["p99"].(float64) * 1.2)
		m["parameters"].(map[string]any)["threads"] = "32"
	})
	r := cli(t, nil, "compare", "--runs-dir", runs, a, "ycsb-ysql-260101-0000-bbbbbbbb")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"| workloada | (workload) | throughput | ops/s | 33.33 | 34 | 1.020 |",
		"| workloada | READ | p99 | µs | 7423 | 8908 | 1.200 ⚑ |", "threads 32 (A: 64)", "off by more than 10%", "1 of 46 figures flagged"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, r.stdout)
		}
	}

	r = cli(t, nil, "compare", filepath.Join(a, pipeline.ResultFile), filepath.Join(runs, "ycsb-ysql-260101-0000-bbbbbbbb"), "--format", "json")
	var c compare.Comparison
	if err := json.Unmarshal([]byte(r.stdout), &c); r.code != 0 || err != nil {
		t.Fatalf("--format json: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if c.Schema != compare.Schema || len(c.Runs) != 2 || c.Flagged != 1 || c.Runs[1].ID != "ycsb-ysql-260101-0000-bbbbbbbb" {
		t.Errorf("--format json: %s, %d runs, %d flagged", c.Schema, len(c.Runs), c.Flagged)
	}

	r = cli(t, nil, "compare", "--runs-dir", runs, a, a, "ycsb-ysql-260101-0000-bbbbbbbb", "--format", "csv")
	lines, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil {
		t.Fatalf("--format csv: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	flagged := 0
	for _, l := range lines[1:] {
		if l[len(l)-1] == "true" {
			flagged++
			if l[0] != "workloada" || l[1] != "READ" || l[2] != "p99" || l[4] != "C" {
				t.Errorf("flagged: %q", l)
			}
		}
	}
	if len(lines) != 1+46*3 || flagged != 1 {
		t.Errorf("--format csv: %d lines, %d flagged; want a header and 46 figures × 3 runs, 1 flagged", len(lines), flagged)
	}
}

// Bad input exits 2 with every problem named together: a run that does
// not exist, a run without results, a result of another schema; so do one
// run alone and an unknown format.
func TestCLICompareRefuses(t *testing.T) {
	runs := t.TempDir()
	a := gatedRun(t, runs, "ycsb-ysql-260101-0000-aaaaaaaa", nil)
	empty := makeRun(t, runs, "ycsb-ysql-260101-0000-eeeeeeee", "alice", []string{"up"}, "", pipeline.RunActive)
	old := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(old, []byte(`{"schema": "ybbench-result/2", "run_id": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cli(t, nil, "compare", "--runs-dir", runs, a, "ycsb-ysql-260101-0000-nonesuch", "ycsb-ysql-260101-0000-eeeeeeee", old)
	for _, want := range []string{"ycsb-ysql-260101-0000-nonesuch: no such run", filepath.Join(empty, pipeline.ResultFile) + ": no such file",
		old + `: result.json is "ybbench-result/2", not ybbench-result/3`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if r.code != 2 || r.stdout != "" {
		t.Errorf("bad runs: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a}, "takes two runs or more"},
		{[]string{"compare", a, a, "--format", "html"}, `"html": want one of markdown, json, csv`},
	} {
		if r := cli(t, nil, c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("ybbench %q: exit %d, %q", c.args, r.code, r.stderr)
		}
	}
}
