package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/pace"
	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// The records of a run, decoded and merged, must hold exactly what the
// workload did: the sum over ticks equals the workload's own call count.
func TestRecordsHoldEveryMeasurement(t *testing.T) {
	var buf bytes.Buffer
	f := &fakeWorkload{failOn: 5, delay: 100 * time.Microsecond}
	sink := NewRecordSink(record.NewWriter(&buf), record.Meta{Agent: "a1", Phase: "run"})
	res, err := Run(context.Background(), f, Config{
		Threads: 3, Operations: 3000, Interval: 20 * time.Millisecond,
		Schedule: &pace.Target{OpsPerSec: 30_000, Threads: 3},
		Sinks:    []Sink{sink},
	})
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	file, err := record.Read("mem", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if file.Meta.Agent != "a1" || file.End == nil || file.End.Ops != 3000 || file.Truncated {
		t.Fatalf("meta %+v end %+v", file.Meta, file.End)
	}
	merged, resp := hist.New(), hist.New()
	var count, errs int64
	for _, tk := range file.Ticks {
		if tk.Op != "READ" {
			continue
		}
		count += tk.Count
		errs += tk.Errors
		for _, enc := range []struct {
			s string
			h *hist.Hist
		}{{tk.Service, merged}, {tk.Response, resp}} {
			if enc.s == "" {
				continue
			}
			h, err := hist.Decode(enc.s, 0)
			if err != nil {
				t.Fatal(err)
			}
			enc.h.Merge(h)
		}
	}
	if count+errs != f.calls.Load() {
		t.Errorf("ticks hold %d+%d READs, workload did %d", count, errs, f.calls.Load())
	}
	if merged.Count() != count || resp.Count() != count {
		t.Errorf("merged service %d response %d, want %d", merged.Count(), resp.Count(), count)
	}
	if merged.Percentile(99) != res.Totals[0].Service.Percentile(99) {
		t.Errorf("p99 from records %d, from engine %d", merged.Percentile(99), res.Totals[0].Service.Percentile(99))
	}
}

// A file cut off mid-line (agent killed while writing) keeps every
// complete line.
func TestTruncatedRecordFileKeepsCompleteLines(t *testing.T) {
	var buf bytes.Buffer
	sink := NewRecordSink(record.NewWriter(&buf), record.Meta{Agent: "a", Phase: "run"})
	if _, err := Run(context.Background(), &fakeWorkload{}, Config{Threads: 1, Operations: 100, Sinks: []Sink{sink}}); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	lines := strings.Count(s, "\n")
	cut := s[:len(s)-10]
	f, err := record.Read("cut", strings.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Truncated || f.End != nil || len(f.Ticks) != lines-2 {
		t.Errorf("truncated %v end %v ticks %d (lines %d)", f.Truncated, f.End, len(f.Ticks), lines)
	}
	bad := strings.Replace(s, `"type":"tick"`, `"type":"tock"`, 1)
	if _, err := record.Read("bad.jsonl", strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("error %v should name bad.jsonl:2", err)
	}
}

// The Meta record says what the Go runtime ran with, beside the caller's
// settings: GOMAXPROCS as the runtime answers it, GOGC as set here.
func TestRecordsSayTheRuntimeSettings(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(250))
	var buf bytes.Buffer
	sink := NewRecordSink(record.NewWriter(&buf), record.Meta{Agent: "a", Phase: "run", Settings: map[string]string{"k": "v"}})
	if _, err := Run(context.Background(), &fakeWorkload{}, Config{Threads: 1, Operations: 10, Sinks: []Sink{sink}}); err != nil {
		t.Fatal(err)
	}
	file, err := record.Read("records", &buf)
	if err != nil {
		t.Fatal(err)
	}
	s := file.Meta.Settings
	if s["k"] != "v" || s["go.gomaxprocs"] != strconv.Itoa(runtime.GOMAXPROCS(0)) || s["go.gogc"] != "250" {
		t.Errorf("settings %v", s)
	}
}

// lastWrite keeps a copy of the last write it was given, in a buffer
// grown once, so that keeping it allocates nothing.
type lastWrite struct{ b []byte }

func (l *lastWrite) Write(p []byte) (int, error) { l.b = append(l.b[:0], p...); return len(p), nil }

// pacedTicks is a sink on w after its Begin and a function that writes
// the next tick of an interval holding what a paced run's does: service
// and response times, a failure, two statuses, for two operations.
func pacedTicks(tb testing.TB, w io.Writer) func() {
	sink := NewRecordSink(record.NewWriter(w), record.Meta{Agent: "client-1", Phase: "run"})
	cat := &Catalog{Ops: []string{"READ", "UPDATE"}, Statuses: []StatusDef{{Name: "OK", OK: true}, {Name: "ERROR"}}, Cleanup: -1}
	start := time.Date(2026, 12, 6, 17, 0, 0, 0, time.UTC)
	if err := sink.Begin(&RunInfo{Workload: "w", Catalog: cat, Config: &Config{Interval: time.Second}, Start: start}); err != nil {
		tb.Fatal(err)
	}
	iv := &Interval{}
	for op, name := range cat.Ops {
		m, w := NewOpStats(Op(op), name, len(cat.Statuses), true), NewOpStats(Op(op), name, len(cat.Statuses), true)
		for i := range 500 {
			m.add(&sample{op: Op(op), svc: uint32(100 + i), resp: uint32(150 + 2*i), n: 1}, true, true)
		}
		m.add(&sample{op: Op(op), st: 1, svc: 900, resp: 950, n: 1}, false, true)
		iv.Measured, iv.Warmup = append(iv.Measured, m), append(iv.Warmup, w)
	}
	return func() {
		iv.Index++
		iv.Start, iv.End = start.Add(time.Duration(iv.Index)*time.Second), start.Add(time.Duration(iv.Index+1)*time.Second)
		if err := sink.Tick(iv); err != nil {
			tb.Fatal(err)
		}
	}
}

// Writing a tick makes no garbage once the sink's buffers have grown: an
// agent writes one for every measurement name every interval for hours,
// and what it allocates each time is what its memory climbs by between
// collections (26 allocations, about 1.8 KB a tick, through encoding/json).
func TestRecordSinkTickAllocatesNothing(t *testing.T) {
	out := &lastWrite{b: make([]byte, 0, 64<<10)}
	tick := pacedTicks(t, out)
	tick()
	if allocs := testing.AllocsPerRun(200, tick); allocs != 0 {
		t.Errorf("a tick allocates %.1f times, want none", allocs)
	}
	// The last tick written (the 202nd: the first, AllocsPerRun's warm-up
	// call and its 200 runs) holds what the test recorded: for each
	// operation 500 successes and a failure, their statuses and histograms.
	lines := strings.SplitAfter(string(out.b), "\n")
	if len(lines) != 3 || lines[2] != "" {
		t.Fatalf("the last tick wrote %q, want two lines", out.b)
	}
	for i, op := range []string{"READ", "UPDATE"} {
		var tk record.Tick
		if err := json.Unmarshal([]byte(lines[i]), &tk); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if tk.Op != op || tk.Index != 202 || tk.Count != 500 || tk.Errors != 1 || tk.Statuses["OK"] != 500 || tk.Statuses["ERROR"] != 1 {
			t.Errorf("line %d: %+v", i, tk)
		}
		for _, c := range []struct {
			enc  string
			want int64
		}{{tk.Service, 500}, {tk.Response, 500}, {tk.ServiceFailed, 1}} {
			if h, err := hist.Decode(c.enc, 0); err != nil || h.Count() != c.want {
				t.Errorf("line %d: histogram %q (%v): want %d measurements", i, c.enc, err, c.want)
			}
		}
	}
}

// BenchmarkRecordSinkTick is what writing one tick of a paced run costs
// (two operations' lines, each with two histograms encoded).
func BenchmarkRecordSinkTick(b *testing.B) {
	tick := pacedTicks(b, io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		tick()
	}
}
