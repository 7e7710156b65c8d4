package collect_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/profiles"
)

// Aggregate builds each profile's result from a fixture run directory
// alone: the merged figures match what the fixture's agents recorded, the
// family's own figures and the published table are in it, it matches
// result.schema.json, and nothing of how to reach the hosts or the
// database's credentials is in it. The result is pinned as
// testdata/<profile>.result.json, the fixture the report tests render.
func TestAggregateProfiles(t *testing.T) {
	all, err := profiles.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		t.Run(p.Name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixtureRun(t, dir, p)
			res, err := collect.Aggregate(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := collect.ValidateResult(res); err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			for _, leak := range []string{fixtureKeyFile, fixtureHostKey, fixturePassword, "password_file", "key_file", "pid_file", dir} {
				if strings.Contains(string(b), leak) {
					t.Errorf("result.json holds %q", leak)
				}
			}
			if res.Baseline == nil || res.Baseline.Source != p.Baseline.Source || len(res.Baseline.Rows) != len(p.Baseline.Rows) {
				t.Errorf("the published table is not the profile's: %+v", res.Baseline)
			}
			for _, wr := range res.Workloads {
				checkWorkload(t, p, &wr)
			}
			golden.Check(t, p.Name+".result.json", append(b, '\n'))
		})
	}
}

// checkWorkload checks one workload's figures against what the fixture
// recorded (fixtureOps, 60 s), computed here from the fixture's numbers.
func checkWorkload(t *testing.T, p *profiles.Profile, wr *collect.WorkloadResult) {
	t.Helper()
	run := wr.Phases[len(wr.Phases)-1]
	if run.Phase != "run" {
		t.Fatalf("%s: last phase %s", wr.Name, run.Phase)
	}
	ops := fixtureOps(p, wr.Name)
	var units, samples int64
	for _, op := range ops {
		samples += int64(op.n)
		units += int64(op.n) * max(op.units, 1)
		m := run.Find(op.name)
		if m == nil || m.Count != int64(op.n) {
			t.Fatalf("%s: %s merged as %+v", wr.Name, op.name, m)
		}
		// Samples base, base+step, … base+(n-1)·step: their mean, within
		// the histograms' precision.
		mean := float64(op.base) + float64(op.step)*float64(op.n-1)/2
		if math.Abs(m.Latency.Mean-mean)/mean > 0.01 {
			t.Errorf("%s %s: mean %.1f µs, recorded %.1f", wr.Name, op.name, m.Latency.Mean, mean)
		}
	}
	if run.Ops != units || math.Abs(run.Throughput-float64(units)/60) > 0.01 {
		t.Errorf("%s: %d operations at %.2f/s, recorded %d over 60 s", wr.Name, run.Ops, run.Throughput, units)
	}
	// The compared throughput counts what the family's tool counts: keys
	// for the KV tool, operations (events) otherwise; both are units/60 here.
	if math.Abs(wr.Throughput-float64(units)/60) > 0.01 || wr.ThroughputBasis == "" {
		t.Errorf("%s: compared throughput %.2f (%s), want %.2f", wr.Name, wr.Throughput, wr.ThroughputBasis, float64(units)/60)
	}
	if wr.SanityText == "" || wr.Sanity <= 0 {
		t.Errorf("%s: no Little's-law figure: %q", wr.Name, wr.SanityText)
	}
	if row := p.Baseline.Row(wr.Name); row != nil {
		if wr.Published == nil || len(wr.Comparisons) == 0 || wr.Comparisons[0].Published != row.Throughput {
			t.Errorf("%s: published %+v, comparisons %+v", wr.Name, wr.Published, wr.Comparisons)
		}
		want, _ := row.LittlesLaw(p.Baseline.Threads)
		if wr.PublishedLittlesLaw == nil || wr.PublishedLittlesLaw.Value != want {
			t.Errorf("%s: published row's Little's law %+v, want %.2f", wr.Name, wr.PublishedLittlesLaw, want)
		}
	}
	if wr.CPU["db-1"].Percent != 41.5 || wr.CPU["db-2"].Percent != 38.5 || len(wr.CPU) != 2 {
		t.Errorf("%s: cpu %+v", wr.Name, wr.CPU)
	}
	if p.Family == "ycsb" && wr.DDL != "CREATE TABLE usertable (ycsb_key varchar PRIMARY KEY) -- "+wr.Name {
		t.Errorf("%s: DDL %q, not the one the agent's summary says it ran", wr.Name, wr.DDL)
	}
}

// The KV batch row was measured at 64 writers, not the table's 256; a run
// that allowed trust on first use, or left its database open, says so.
func TestAggregateRecordsRowThreadsAndSafety(t *testing.T) {
	for _, name := range []string{"kv-ycql", "sysbench-ysql"} {
		p, err := profiles.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		writeFixtureRun(t, dir, p)
		res, err := collect.Aggregate(dir)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(res.Notes, "\n")
		switch name {
		case "kv-ycql":
			var batch *collect.WorkloadResult
			for i := range res.Workloads {
				if res.Workloads[i].Name == "batch-write" {
					batch = &res.Workloads[i]
				}
			}
			// 64 ÷ (140000/25 batches/s × 0.009 s) = 1.27
			if batch == nil || batch.PublishedLittlesLaw == nil || batch.PublishedLittlesLaw.Threads != 64 ||
				math.Abs(batch.PublishedLittlesLaw.Value-1.27) > 0.005 {
				t.Errorf("batch-write: %+v", batch)
			}
			if !res.Environment.AcceptNewHostKeys || res.Hosts[0].HostKeySource != "accepted-on-first-use" ||
				!strings.Contains(notes, "db-1, db-2, db-3, client-1 were not known beforehand") {
				t.Errorf("accepted host keys: %+v %+v\n%s", res.Environment, res.Hosts[0], notes)
			}
		case "sysbench-ysql":
			if res.Environment.DBAuth != "off" || !strings.Contains(notes, "without authentication (db_auth=off)") {
				t.Errorf("db_auth: %+v\n%s", res.Environment, notes)
			}
		}
	}
}

// A run directory without setup.json cannot be described; one whose
// agents left no records is described, and the error says nothing was
// measured while each workload says what it lacks.
func TestAggregateWithoutRecords(t *testing.T) {
	if _, err := collect.Aggregate(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no setup.json") {
		t.Errorf("no setup.json: %v", err)
	}
	p, err := profiles.Get("ycsb-ysql")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFixtureRun(t, dir, p)
	if err := os.RemoveAll(filepath.Join(dir, "agents")); err != nil {
		t.Fatal(err)
	}
	res, err := collect.Aggregate(dir)
	if err == nil || !strings.Contains(err.Error(), "nothing was measured") || res == nil {
		t.Fatalf("%v", err)
	}
	for _, w := range res.Workloads {
		if len(w.Problems) == 0 || !strings.Contains(w.Problems[0], "no agent records for "+w.Name) {
			t.Errorf("%s: problems %q", w.Name, w.Problems)
		}
	}
	if err := collect.ValidateResult(res); err != nil {
		t.Error(err)
	}
}
