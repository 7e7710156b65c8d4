package collect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// writeWalkPhase writes a phase "w"/"run" of three agents, each with 12
// ticks of two operations (2 of warm-up), response times too, and
// returns every file's lines, by host.
func writeWalkPhase(t *testing.T, dir string) map[string][][]byte {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	out := map[string][][]byte{}
	for a, host := range []string{"client-1", "client-2", "client-3"} {
		at := start.Add(time.Duration(a) * 137 * time.Millisecond)
		lines := []any{&record.Meta{V: record.Version, Type: record.KindMeta, Agent: host, Workload: "w", Phase: "run", Start: at,
			IntervalMS: 1000, Threads: 8 + a, TargetOpsPerSec: 100.1 * float64(a+1), WarmupMS: 2000, Geometry: record.Shared, Schedule: "fixed"}}
		for i := range 12 {
			for j, op := range []string{"READ", "UPDATE"} {
				h := hist.New()
				for k := range 20 + i + a {
					h.Record(int64(300*(j+1) + 37*k + 11*i + a))
				}
				enc, _ := h.Encode()
				lines = append(lines, &record.Tick{V: record.Version, Type: record.KindTick, Agent: host, Phase: "run", Op: op, Warmup: i < 2, Index: i,
					Start: at.Add(time.Duration(i) * time.Second), End: at.Add(time.Duration(i+1)*time.Second + time.Duration(a)*time.Millisecond),
					Count: h.Count(), Errors: int64(a), Statuses: map[string]int64{"OK": h.Count()}, Service: enc, Response: enc})
			}
		}
		lines = append(lines, &record.End{V: record.Version, Type: record.KindEnd, Agent: host, Phase: "run", MeasureStart: at.Add(2 * time.Second),
			End: at.Add(12 * time.Second), RunTimeMS: 10000 + float64(a), Ops: 1000, Stop: "duration"})
		for _, l := range lines {
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			out[host] = append(out[host], b)
		}
	}
	return out
}

func writeLines(t *testing.T, dir, host string, lines [][]byte) {
	t.Helper()
	path := filepath.Join(dir, agentsDir, host, "w-run.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// badHist is a tick line of lines[i] with a histogram that does not
// decode, in the field named.
func badHist(t *testing.T, line []byte, field string) []byte {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	m[field] = "AAAA" + m[field].(string)[8:]
	b, _ := json.Marshal(m)
	return b
}

// The phase read side by side, each tick decoded once for the merge and
// the series, gives what the files read one after another give (Merge's
// order, as the collector always read them), and the series reading the
// files alone gives (the report's, for a run collected before
// series.json): on good files and on each kind of damage the readers
// tolerate or refuse.
func TestReadPhaseSideBySideIsByFile(t *testing.T) {
	damages := map[string]func(t *testing.T, f map[string][][]byte){
		"none": func(*testing.T, map[string][][]byte) {},
		"truncated last line": func(t *testing.T, f map[string][][]byte) {
			l := f["client-2"]
			l[len(l)-1] = l[len(l)-1][:20]
		},
		"no end record": func(t *testing.T, f map[string][][]byte) { f["client-3"] = f["client-3"][:len(f["client-3"])-1] },
		"bad histogram": func(t *testing.T, f map[string][][]byte) {
			f["client-3"][9] = badHist(t, f["client-3"][9], "service")
			f["client-2"][15] = badHist(t, f["client-2"][15], "service")
		},
		"bad warm-up histogram": func(t *testing.T, f map[string][][]byte) { f["client-2"][2] = badHist(t, f["client-2"][2], "service") },
		"bad response": func(t *testing.T, f map[string][][]byte) {
			f["client-1"][12] = badHist(t, f["client-1"][12], "response")
		},
		"shuffled ticks": func(t *testing.T, f map[string][][]byte) {
			l := f["client-1"]
			l[3], l[17], l[8], l[20] = l[17], l[3], l[20], l[8]
		},
		"duplicate index": func(t *testing.T, f map[string][][]byte) {
			l := f["client-2"]
			f["client-2"] = append(append(append([][]byte{}, l[:7]...), l[6]), l[7:]...)
		},
		"ticks go back": func(t *testing.T, f map[string][][]byte) {
			l := f["client-3"]
			moved := l[5]
			f["client-3"] = append(append(append([][]byte{}, l[:5]...), l[6:20]...), append([][]byte{moved}, l[20:]...)...)
		},
		"tick before meta": func(t *testing.T, f map[string][][]byte) {
			l := f["client-2"]
			l[0], l[1] = l[1], l[0]
		},
		"another workload": func(t *testing.T, f map[string][][]byte) {
			f["client-2"][0] = bytes.Replace(f["client-2"][0], []byte(`"workload":"w"`), []byte(`"workload":"x"`), 1)
		},
		"unreadable line": func(t *testing.T, f map[string][][]byte) { f["client-1"][4] = []byte(`{"v": 99}`) },
		"no meta":         func(t *testing.T, f map[string][][]byte) { f["client-3"] = f["client-3"][1:] },
	}
	expect := map[string]string{"none": "false false true false", "truncated last line": "false false false false", "no end record": "false false false false",
		"bad histogram": "false true false true", "bad warm-up histogram": "false false true true", "bad response": "false true false false",
		"shuffled ticks": "false false true false", "duplicate index": "false false true false", "ticks go back": "false false true false",
		"tick before meta": "false false true false", "another workload": "false true false false", "unreadable line": "true false false false",
		"no meta": "true false false false"}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			files := writeWalkPhase(t, dir)
			damage(t, files)
			for host, lines := range files {
				writeLines(t, dir, host, lines)
			}
			got := readPhase(dir, "w", "run", true)
			want := readPhaseByFile(dir, "w", "run")
			if fmt.Sprint(got.readErr) != fmt.Sprint(want.readErr) || fmt.Sprint(got.mergeErr) != fmt.Sprint(want.mergeErr) {
				t.Fatalf("errors: read %v, merge %v; file by file: read %v, merge %v", got.readErr, got.mergeErr, want.readErr, want.mergeErr)
			}
			if !reflect.DeepEqual(got.files, want.files) {
				t.Errorf("files %+v, file by file %+v", got.files, want.files)
			}
			if !reflect.DeepEqual(got.merged, want.merged) {
				t.Errorf("merged %+v, file by file %+v", got.merged, want.merged)
			}
			// Each damage does what it is named for.
			if e := expect[name]; e != fmt.Sprint(got.readErr != nil, got.mergeErr != nil, got.merged != nil && got.merged.Complete, got.series != nil && len(got.series.Problems) > 0) {
				t.Errorf("read error, merge error, complete, series problems: got %v %v %v %v, want %s", got.readErr, got.mergeErr, got.merged != nil && got.merged.Complete, got.series != nil && len(got.series.Problems) > 0, e)
			}
			alone := PhaseSeriesOf(dir, "w", "run", true)
			if got.readErr != nil {
				if got.series != nil {
					t.Errorf("a series of files that could not be read")
				}
				return
			}
			if !reflect.DeepEqual(got.series, alone) {
				t.Errorf("series %+v, read alone %+v", got.series, alone)
			}
			whole := seriesWhole(dir, "w", "run", true)
			if w := seriesPhaseOf("w", "run", &whole); !reflect.DeepEqual(w, alone) {
				t.Errorf("series read whole %+v, side by side %+v", w, alone)
			}
		})
	}
}
