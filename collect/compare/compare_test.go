package compare

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
)

var readP99 = Key{Workload: "workloada", Operation: "READ", Metric: "p99"}

// twoRuns are runs A and B with one figure each (values over repetitions).
func twoRuns(a, b []float64) []Run {
	run := func(id string, v []float64) Run {
		return Run{ID: id, Profile: "ycsb-ysql", Repetitions: len(v), Figures: map[Key][]float64{readP99: v}, Order: []Key{readP99}}
	}
	return []Run{run("a", a), run("b", b)}
}

// The flagging rule on hand-built repetitions: ranges decide where both
// runs have several, the 10% ratio where either has one.
func TestFlagRule(t *testing.T) {
	for _, c := range []struct {
		name    string
		a, b    []float64
		ratio   float64
		flagged bool
	}{
		{"2% apart, ranges overlap", []float64{99, 100, 101}, []float64{101, 102, 103}, 1.02, false},
		{"20% apart, ranges disjoint", []float64{99, 100, 101}, []float64{119, 120, 121}, 1.20, true},
		{"20% apart, ranges overlap", []float64{80, 100, 120}, []float64{100, 120, 140}, 1.20, false},
		{"3% apart, ranges disjoint", []float64{99.5, 100, 100.5}, []float64{102, 103, 103.5}, 1.03, true},
		{"one repetition each, 12% apart", []float64{100}, []float64{112}, 1.12, true},
		{"one repetition each, 12% below", []float64{100}, []float64{88}, 0.88, true},
		{"one repetition each, 8% apart", []float64{100}, []float64{108}, 1.08, false},
		{"one repetition each, exactly 10% apart", []float64{100}, []float64{110}, 1.10, false},
		{"one repetition against three, 15% apart", []float64{100}, []float64{110, 115, 130}, 1.15, true},
		{"one repetition against three, 5% apart", []float64{100}, []float64{90, 105, 130}, 1.05, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp := Compare(twoRuns(c.a, c.b))
			if len(cmp.Figures) != 1 {
				t.Fatalf("%d figures, want 1", len(cmp.Figures))
			}
			cell := cmp.Figures[0].Runs[1]
			if cell.Ratio == nil || *cell.Ratio < c.ratio-1e-9 || *cell.Ratio > c.ratio+1e-9 {
				t.Errorf("ratio %v, want %v", ptr(cell.Ratio), c.ratio)
			}
			if cell.Flagged != c.flagged || cmp.Figures[0].Flagged != c.flagged || (cmp.Flagged == 1) != c.flagged {
				t.Errorf("flagged %v (row %v, count %d), want %v", cell.Flagged, cmp.Figures[0].Flagged, cmp.Flagged, c.flagged)
			}
			if cmp.Figures[0].Runs[0].Flagged || cmp.Figures[0].Runs[0].Ratio != nil {
				t.Error("the first run is flagged or has a ratio to itself")
			}
		})
	}
}

// A figure one run lacks is shown as absent and not flagged; a first
// run's 0 gives no ratio, and a later run's figure that is not 0 beside
// it is flagged (with one repetition).
func TestMissingAndZeroFigures(t *testing.T) {
	runs := twoRuns([]float64{100}, nil)
	delete(runs[1].Figures, readP99)
	cmp := Compare(runs)
	if c := cmp.Figures[0].Runs[1]; c.Median != nil || c.Ratio != nil || c.Flagged || len(c.Values) != 0 {
		t.Errorf("a missing figure: %+v", c)
	}
	var b bytes.Buffer
	if err := Markdown(&b, cmp); err != nil || !strings.Contains(b.String(), "| workloada | READ | p99 | µs | 100 | - | - |") {
		t.Errorf("a missing figure in Markdown (%v):\n%s", err, b.String())
	}
	cmp = Compare(twoRuns([]float64{0}, []float64{0.01}))
	if c := cmp.Figures[0].Runs[1]; c.Ratio != nil || !c.Flagged {
		t.Errorf("0 then 0.01: %+v", c)
	}
	cmp = Compare(twoRuns([]float64{0}, []float64{0}))
	if c := cmp.Figures[0].Runs[1]; c.Ratio != nil || c.Flagged {
		t.Errorf("0 then 0: %+v", c)
	}
}

func fixture(t *testing.T, name string) (*collect.Result, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return r, m
}

// A result's figures are its measured phase's, checked against the
// fixture's JSON read apart from collect's types.
func TestFromResult(t *testing.T) {
	r, m := fixture(t, "ycsb-ysql.result.json")
	run := FromResult("x", r)
	ops := 0
	for _, w := range m["workloads"].([]any) {
		w := w.(map[string]any)
		name := w["name"].(string)
		if got := run.Figures[Key{Workload: name, Metric: "throughput"}]; len(got) != 1 || got[0] != w["throughput"].(float64) {
			t.Errorf("%s throughput %v, want %v", name, got, w["throughput"])
		}
		for _, p := range w["phases"].([]any) {
			p := p.(map[string]any)
			if p["phase"] != "run" {
				continue
			}
			for _, me := range p["measurements"].([]any) {
				me := me.(map[string]any)
				ops++
				lat := me["latency_us"].(map[string]any)
				for metric, field := range map[string]string{"p99": "p99", "p99.9": "p99_9", "mean": "mean", "max": "max"} {
					k := Key{Workload: name, Operation: me["name"].(string), Metric: metric}
					if got := run.Figures[k]; len(got) != 1 || got[0] != lat[field].(float64) {
						t.Errorf("%v: %v, want %v", k, got, lat[field])
					}
				}
			}
		}
	}
	if want := 3*2 + ops*8; len(run.Figures) != want || len(run.Order) != want {
		t.Errorf("%d figures (%d in order), want %d: 2 per workload, 8 per operation", len(run.Figures), len(run.Order), want)
	}
	if run.ID != r.RunID || run.Flavor != "yugabyte" || run.Repetitions != 1 {
		t.Errorf("run %+v", run)
	}
}

// A workload whose measured phase did not complete is left out, with a
// note naming it.
func TestFromResultLeavesOutAnIncompleteWorkload(t *testing.T) {
	r, _ := fixture(t, "ycsb-ysql.result.json")
	r.Workloads[2].Phases[1].Complete = false
	run := FromResult("x", r)
	for k := range run.Figures {
		if k.Workload == "workloadc" {
			t.Errorf("figure %v of an incomplete workload", k)
		}
	}
	if len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "workloadc") || !strings.Contains(run.Notes[0], "did not complete") {
		t.Errorf("notes %q", run.Notes)
	}
}

// ReadRun names the file it could not use: one not there, one of another
// schema.
func TestReadRunRefuses(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "result.json")
	if _, err := ReadRun(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
	other := filepath.Join(dir, "old.json")
	if err := os.WriteFile(other, []byte(`{"schema": "ybbench-result/2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(other); err == nil || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "ybbench-result/2") {
		t.Errorf("another schema: %v", err)
	}
}

// candidate is the fixture run as another run measured it: its throughput
// 2% higher, workloada's READ p99 20% higher, with other parameters.
func candidate(t *testing.T) *collect.Result {
	r, _ := fixture(t, "ycsb-ysql.result.json")
	r.RunID = "ycsb-ysql-250302-0900-ffeeddcc"
	r.Parameters = map[string]string{"client_hosts": "1", "duration": "2m0s", "flavor": "yugabyte", "threads": "64", "records": "2000"}
	for i := range r.Workloads {
		r.Workloads[i].Throughput *= 1.02
	}
	r.Workloads[0].Phases[1].Measurements[0].Latency.P99 = r.Workloads[0].Phases[1].Measurements[0].Latency.P99 * 12 / 10
	return r
}

// The three renderings of two fixture runs, and of hand-built runs with
// several repetitions.
func TestRenderGolden(t *testing.T) {
	base, _ := fixture(t, "ycsb-ysql.result.json")
	cmp := Compare([]Run{FromResult("runs/a/result.json", base), FromResult("runs/b/result.json", candidate(t))})
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Render(&b, cmp, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "ycsb-ysql."+map[string]string{"markdown": "md", "json": "json", "csv": "csv"}[f], b.Bytes())
	}

	tput := Key{Workload: "workloada", Metric: "throughput"}
	runs := []Run{
		{ID: "a", Source: "a.json", Profile: "ycsb-ysql", Repetitions: 3, Order: []Key{tput, readP99},
			Figures: map[Key][]float64{tput: {990, 1000, 1010}, readP99: {4000, 4100, 4200}}},
		{ID: "b", Source: "b.json", Profile: "ycsb-ysql", Repetitions: 3, Order: []Key{tput, readP99},
			Figures: map[Key][]float64{tput: {1010, 1020, 1030}, readP99: {4900, 4920, 5000}}},
		{ID: "c", Source: "c.json", Profile: "ycsb-ycql", Repetitions: 1, Order: []Key{tput},
			Figures: map[Key][]float64{tput: {1120}}},
	}
	var b bytes.Buffer
	if err := Markdown(&b, Compare(runs)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "repetitions.md", b.Bytes())
}

// Runs of another profile, flavor or parameters are compared, and how
// they differ is said.
func TestDifferences(t *testing.T) {
	a, _ := fixture(t, "ycsb-ysql.result.json")
	b, _ := fixture(t, "ycsb-ycql.result.json")
	cmp := Compare([]Run{FromResult("a", a), FromResult("b", a), FromResult("c", b)})
	text := strings.Join(cmp.Differences, "\n")
	if !strings.Contains(text, "C ran profile ycsb-ycql, A ran ycsb-ysql") || strings.Contains(text, "B ") {
		t.Errorf("differences:\n%s", text)
	}
	if unit := cmp.Figures[0].Unit; unit != "ops/s" {
		t.Errorf("the first figure's unit is %q", unit)
	}
}

func ptr(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// A result of 3 repetitions gives each figure its values over them, as
// the result's spread lists them (read apart from collect's types).
func TestFromResultRepetitions(t *testing.T) {
	r, m := fixture(t, "repeat3.result.json")
	run := FromResult("x", r)
	if run.Repetitions != 3 {
		t.Errorf("%d repetitions, want 3", run.Repetitions)
	}
	n := 0
	for _, w := range m["workloads"].([]any) {
		w := w.(map[string]any)
		for _, sp := range w["spread"].([]any) {
			sp := sp.(map[string]any)
			op, _ := sp["operation"].(string)
			k := Key{Workload: w["name"].(string), Operation: op, Metric: sp["metric"].(string)}
			want := sp["values"].([]any)
			got := run.Figures[k]
			if len(got) != 3 || len(want) != 3 {
				t.Fatalf("%v: %v, want %v", k, got, want)
			}
			for i := range want {
				if got[i] != want[i].(float64) {
					t.Errorf("%v: %v, want %v", k, got, want)
				}
			}
			n++
		}
	}
	if n == 0 || len(run.Figures) != n {
		t.Errorf("%d figures, want the %d of the spreads", len(run.Figures), n)
	}
}

// Fixture results compared on their throughput: with 3 repetitions each
// (the fixture's within 3% of each other), 2% apart is within the runs'
// spread and 20% apart is not; with one repetition each, 12% apart is
// past the 10% rule.
func TestCompareFixtureRepetitions(t *testing.T) {
	scaled := func(name string, f float64) *collect.Result {
		r, _ := fixture(t, name)
		for i := range r.Workloads {
			w := &r.Workloads[i]
			w.Throughput *= f
			if sp := w.FindSpread("", "throughput"); sp != nil {
				for j := range sp.Values {
					sp.Values[j] *= f
				}
				sp.Median, sp.Min, sp.Max = sp.Median*f, sp.Min*f, sp.Max*f
			}
		}
		return r
	}
	tput := Key{Workload: "workloada", Metric: "throughput"}
	for _, c := range []struct {
		name    string
		fixture string
		f       float64
		flagged bool
	}{
		{"3 repetitions, 2% apart, ranges overlap", "repeat3.result.json", 1.02, false},
		{"3 repetitions, 20% apart, ranges disjoint", "repeat3.result.json", 1.20, true},
		{"one repetition each, 12% apart", "ycsb-ysql.result.json", 1.12, true},
	} {
		a, _ := fixture(t, c.fixture)
		cmp := Compare([]Run{FromResult("a", a), FromResult("b", scaled(c.fixture, c.f))})
		found := false
		for _, fig := range cmp.Figures {
			if (Key{fig.Workload, fig.Operation, fig.Metric}) != tput {
				continue
			}
			found = true
			cell := fig.Runs[1]
			if cell.Flagged != c.flagged || cell.Ratio == nil || *cell.Ratio < c.f-1e-9 || *cell.Ratio > c.f+1e-9 {
				t.Errorf("%s: flagged %v ratio %v, want %v %v", c.name, cell.Flagged, ptr(cell.Ratio), c.flagged, c.f)
			}
		}
		if !found {
			t.Errorf("%s: no throughput figure", c.name)
		}
	}
}
