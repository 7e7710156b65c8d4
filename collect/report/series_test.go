package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
)

// collectSeries has collect write a synthetic run's series.json, as
// ybbench collect writes it: the run's setup.json first (what collect
// reads of the run besides its records), then the result's reading of
// the records, which makes the series on the way. The result itself is
// writeSynth's.
func collectSeries(dir string, s synth) error {
	setup := &collect.Setup{Schema: collect.SetupSchema, RunID: "fixture-run", Created: synthStart, Profile: "ycsb-ysql", Family: "ycsb",
		Parameters: map[string]string{}, Provider: "local", DBHosts: len(s.dbHosts), ClientHosts: len(s.agents), DBAuth: "on"}
	if s.reps > 0 {
		setup.Repetitions = s.reps
	}
	for _, w := range s.workloads {
		setup.Workloads = append(setup.Workloads, collect.SetupWorkload{Name: w,
			Phases: []collect.SetupPhase{{Name: "load", Records: true}, {Name: "run", Records: true}}})
	}
	if err := collect.WriteSetup(filepath.Join(dir, collect.SetupFile), setup); err != nil {
		return err
	}
	series, err := collect.CreateSeries(dir)
	if err != nil {
		return err
	}
	if res, _ := collect.AggregateSeries(dir, series); res == nil {
		series.Abort()
		return os.ErrInvalid
	}
	return series.Commit()
}

// written is every file the report wrote, by name.
func written(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	out[HTMLFile] = string(b)
	entries, err := os.ReadDir(filepath.Join(dir, CSVDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, CSVDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d files, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %s differs from the page drawn from the records", what, name)
		}
	}
}

// The page drawn from series.json is the page drawn from the records, byte
// for byte, and is drawn from series.json alone: with the records gone,
// it is still the same. A series.json of another schema is passed over
// for the records. A tick whose histogram cannot be read (a warm-up
// tick's: result.json still holds the phase) and a file whose ticks are
// out of order are drawn alike both ways.
func TestPageFromSeriesIsPageFromRecords(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		dir := t.TempDir()
		if err := writeSynth(dir, fixture); err != nil {
			t.Fatal(err)
		}
		if damaged {
			damageFixture(t, dir)
		}
		if _, err := Write(dir); err != nil {
			t.Fatal(err)
		}
		want := written(t, dir)
		if damaged && !strings.Contains(want[HTMLFile], "decode histogram") {
			t.Fatal("the damaged fixture's page names no histogram that could not be read")
		}
		if err := collectSeries(dir, fixture); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(dir); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "from series.json", written(t, dir), want)

		// Another schema: drawn from the records.
		path := filepath.Join(dir, collect.SeriesFile)
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bytes.Replace(good, []byte(collect.SeriesSchema), []byte("ybbench-series/0"), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(dir); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "series.json of another schema", written(t, dir), want)

		// The records gone: series.json alone.
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(dir, "agents")); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(dir); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "series.json without the records", written(t, dir), want)
	}
}

// damageFixture breaks a warm-up tick's histogram in r2's run phase and
// swaps two ticks of r3's load phase.
func damageFixture(t *testing.T, dir string) {
	t.Helper()
	edit := func(name string, fn func(lines []string)) {
		path := filepath.Join(dir, "agents", "client-2", name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		fn(lines)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("workloada-r2-run.jsonl", func(lines []string) {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &m); err != nil || m["warmup"] != true {
			t.Fatalf("line 2 is not a warm-up tick: %s", lines[1])
		}
		m["service"] = "AAAA" + m["service"].(string)[8:]
		b, _ := json.Marshal(m)
		lines[1] = string(b)
	})
	edit("workloada-r3-load.jsonl", func(lines []string) { lines[2], lines[5] = lines[5], lines[2] })
}
