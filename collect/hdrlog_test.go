package collect_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/ybbench/ybbench/record/hist"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/record"
)

// hdrFixture is a run directory whose agents wrote known latencies: the
// raw values of every measured tick, per agent, phase and operation, kept
// so the logs can be checked against a recount rather than against the
// records they were written from.
type hdrFixture struct {
	dir string
	// raw[agent][phase][op] are the measured (not warm-up) service times,
	// µs; resp the same for response times (the run phase has a schedule).
	raw, resp map[string]map[string]map[string][]int64
	// starts[agent][phase] are the measured ticks' (start, end) in ms.
	spans map[string]map[string][][2]int64
}

// Warm-up latencies are far above every measured one, so any of them in a
// log would show in its maximum.
const hdrWarmupUS = 2_000_000

// writeHDRFixture writes setup.json and two agents' record files of a
// YCSB workload's load and run phases: five one-second ticks per
// operation, the first two warm-up, the third split between a warm-up and
// a measured tick as the engine writes an interval the warm-up ends in.
// The run phase ran to a schedule: its ticks carry response times too.
func writeHDRFixture(t *testing.T) *hdrFixture {
	t.Helper()
	dir := t.TempDir()
	fx := &hdrFixture{dir: dir, raw: map[string]map[string]map[string][]int64{}, resp: map[string]map[string]map[string][]int64{}, spans: map[string]map[string][][2]int64{}}
	setup := &collect.Setup{Schema: collect.SetupSchema, RunID: "r1", Created: fixtureEpoch, Profile: "ycsb-ysql", Family: "ycsb",
		Workloads: []collect.SetupWorkload{{Name: "workloada", Phases: fixturePhases("ycsb")}}}
	if err := collect.WriteSetup(filepath.Join(dir, collect.SetupFile), setup); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ops := map[string][]string{"load": {"INSERT"}, "run": {"READ", "UPDATE"}}
	for ai, agent := range []string{"client-1", "client-2"} {
		fx.raw[agent] = map[string]map[string][]int64{}
		fx.resp[agent] = map[string]map[string][]int64{}
		fx.spans[agent] = map[string][][2]int64{}
		for pi, phase := range []string{"load", "run"} {
			fx.raw[agent][phase] = map[string][]int64{}
			fx.resp[agent][phase] = map[string][]int64{}
			schedule := ""
			if phase == "run" {
				schedule = "fixed 1000/s"
			}
			// Agents start a little apart and off the whole second.
			start := fixtureEpoch.Add(time.Duration(pi)*time.Minute + time.Duration(ai*137)*time.Millisecond)
			var buf bytes.Buffer
			w := record.NewWriter(&buf)
			must(t, w.Write(&record.Meta{V: record.Version, Type: record.KindMeta, Agent: agent, Workload: "workloada", Phase: phase,
				Start: start, IntervalMS: 1000, Threads: 4, Schedule: schedule, Geometry: record.Shared, Ops: ops[phase]}))
			for i := range 5 {
				ts, te := start.Add(time.Duration(i)*time.Second), start.Add(time.Duration(i+1)*time.Second)
				parts := []bool{false}
				switch {
				case i < 2:
					parts = []bool{true}
				case i == 2:
					parts = []bool{true, false}
				}
				if !parts[0] || len(parts) > 1 {
					fx.spans[agent][phase] = append(fx.spans[agent][phase], [2]int64{ts.UnixMilli(), te.UnixMilli()})
				}
				for _, warm := range parts {
					for _, op := range ops[phase] {
						h, rh := hist.New(), hist.New()
						n := 50 + rng.IntN(200)
						for range n {
							v := 100 + rng.Int64N(50_000)
							if rng.IntN(100) == 0 {
								v = 50_000 + rng.Int64N(900_000) // a tail
							}
							if warm {
								v += hdrWarmupUS
							} else {
								fx.raw[agent][phase][op] = append(fx.raw[agent][phase][op], v)
							}
							h.Record(v)
							if schedule != "" {
								// Late starts add a wait of up to 100 ms.
								r := v + rng.Int64N(100_000)
								rh.Record(r)
								if !warm {
									fx.resp[agent][phase][op] = append(fx.resp[agent][phase][op], r)
								}
							}
						}
						enc, err := h.Encode()
						must(t, err)
						tk := record.Tick{V: record.Version, Type: record.KindTick, Agent: agent, Phase: phase, Op: op,
							Warmup: warm, Index: i, Start: ts, End: te, Count: h.Count(), Service: enc}
						if schedule != "" {
							tk.Response, err = rh.Encode()
							must(t, err)
						}
						must(t, w.Write(&tk))
					}
				}
			}
			must(t, w.Write(&record.End{V: record.Version, Type: record.KindEnd, Agent: agent, Phase: phase,
				MeasureStart: start.Add(2500 * time.Millisecond), End: start.Add(5 * time.Second), RunTimeMS: 2500, Stop: "duration"}))
			must(t, w.Flush())
			path := filepath.Join(dir, "agents", agent, "workloada-"+phase+".jsonl")
			must(t, os.MkdirAll(filepath.Dir(path), 0o755))
			must(t, os.WriteFile(path, buf.Bytes(), 0o644))
		}
	}
	return fx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// readHDRLog reads a log with hdrhistogram-go's own reader: per tag, the
// interval histograms merged, and every interval's (start, end) in ms.
func readHDRLog(t *testing.T, path string) (map[string]*hdrhistogram.Histogram, map[string][][2]int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdrhistogram.NewHistogramLogReader(f)
	merged := map[string]*hdrhistogram.Histogram{}
	spans := map[string][][2]int64{}
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("%s: %v", path, err)
		}
		if h == nil {
			break
		}
		if merged[h.Tag()] == nil {
			merged[h.Tag()] = hdrhistogram.New(hist.Lowest, hist.Highest, hist.SigFigs)
		}
		merged[h.Tag()].Merge(h)
		spans[h.Tag()] = append(spans[h.Tag()], [2]int64{h.StartTimeMs(), h.EndTimeMs()})
	}
	return merged, spans
}

// nearestRank is the value at percentile p of sorted values, by the
// nearest-rank rule HdrHistogram uses (the smallest value with at least
// p% of the values at or below it).
func nearestRank(sorted []int64, p float64) int64 {
	rank := int(p/100*float64(len(sorted)) + 0.5)
	rank = max(rank, 1)
	return sorted[min(rank, len(sorted))-1]
}

// The logs read back with hdrhistogram-go's reader hold, per agent, phase
// and operation, exactly the measured latencies (service times, and
// response times where the phase had a schedule): the same count as a
// recount of the raw values, percentiles within HDR precision of the
// sorted raw values and equal to the merged records', each interval at
// its tick's times, no warm-up tick.
func TestWriteHDRLogs(t *testing.T) {
	fx := writeHDRFixture(t)
	paths, err := collect.WriteHDRLogs(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	// 2 agents × (load, run) service logs, and the run phase's response logs.
	if len(paths) != 6 {
		t.Fatalf("wrote %d logs, want 6: %v", len(paths), paths)
	}
	ps := []float64{0, 50, 95, 99, 99.9, 100}
	for _, series := range []struct {
		what string
		raw  map[string]map[string]map[string][]int64
		name func(agent, workload, phase string) string
		of   func(*collect.Measurement) *hist.Hist
	}{
		{"service", fx.raw, collect.HDRLogName, func(m *collect.Measurement) *hist.Hist { return m.Service }},
		{"response", fx.resp, collect.HDRResponseLogName, func(m *collect.Measurement) *hist.Hist { return m.Response }},
	} {
		for agent, phases := range series.raw {
			for phase, ops := range phases {
				path := filepath.Join(fx.dir, collect.HDRDir, series.name(agent, "workloada", phase))
				if len(ops) == 0 {
					if slices.Contains(paths, path) {
						t.Errorf("%s written for a phase without %s times", path, series.what)
					}
					continue
				}
				if !slices.Contains(paths, path) {
					t.Errorf("%s not among the written logs %v", path, paths)
					continue
				}
				merged, spans := readHDRLog(t, path)
				if len(merged) != len(ops) {
					t.Errorf("%s: tags %v, want one per operation (%d)", path, keys(merged), len(ops))
				}
				// The records merged as result.json merges them, for this agent alone.
				rf := readRecordFile(t, filepath.Join(fx.dir, "agents", agent, "workloada-"+phase+".jsonl"))
				want, err := collect.Merge([]collect.AgentFile{{Host: agent, File: rf}})
				if err != nil {
					t.Fatal(err)
				}
				for op, raw := range ops {
					h := merged[op]
					if h == nil {
						t.Errorf("%s: no interval tagged %s", path, op)
						continue
					}
					if h.TotalCount() != int64(len(raw)) {
						t.Errorf("%s %s: %d values, the measured ticks had %d", path, op, h.TotalCount(), len(raw))
					}
					if h.Max() >= hdrWarmupUS {
						t.Errorf("%s %s: max %d µs, a warm-up latency", path, op, h.Max())
					}
					sorted := slices.Sorted(slices.Values(raw))
					rec := series.of(want.Find(op))
					for i, got := range h.ValueAtPercentilesSlice(ps) {
						if exact := nearestRank(sorted, ps[i]); !h.ValuesAreEquivalent(got, exact) {
							t.Errorf("%s %s p%g: %d µs, the raw values' is %d µs (not within HDR precision)", path, op, ps[i], got, exact)
						}
						if r := rec.Percentile(ps[i]); r != got {
							t.Errorf("%s %s p%g: %d µs, the merged records' is %d µs", path, op, ps[i], got, r)
						}
					}
					if !slices.Equal(spans[op], fx.spans[agent][phase]) {
						t.Errorf("%s %s: intervals %v, want the measured ticks' %v", path, op, spans[op], fx.spans[agent][phase])
					}
				}
			}
		}
	}
}

// Running it again from the run directory gives the same logs.
func TestWriteHDRLogsAgain(t *testing.T) {
	fx := writeHDRFixture(t)
	first, err := collect.WriteHDRLogs(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, p := range first {
		before[p], _ = os.ReadFile(p)
	}
	again, err := collect.WriteHDRLogs(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, again) {
		t.Fatalf("second run wrote %v, first %v", again, first)
	}
	for _, p := range again {
		b, _ := os.ReadFile(p)
		if len(b) == 0 || !bytes.Equal(b, before[p]) {
			t.Errorf("%s differs on the second run", p)
		}
	}
}

func readRecordFile(t *testing.T, path string) *record.File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := record.Read(path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func keys[V any](m map[string]V) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// The log's layout, pinned: header (format version, what it holds, start
// and base time at the agent's start cut to the second, legend), then per
// measured interval one line per operation, times relative to the base.
func TestHDRLogGolden(t *testing.T) {
	fx := writeHDRFixture(t)
	if _, err := collect.WriteHDRLogs(fx.dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fx.dir, collect.HDRDir, collect.HDRResponseLogName("client-2", "workloada", "run")))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "hdr-client-2-workloada-run.response.hlog", b)
}
