package ycsb

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/record/hist"
)

// stats builds a measurement with latencies lo, lo+step, … (n values) and
// the given status counts.
func stats(op bench.Op, n int, lo, step int64, sched bool, statuses map[Status]int64, failed int) *bench.OpStats {
	s := &bench.OpStats{Op: op, Name: Catalog.Ops[op], Service: hist.New(), Statuses: make([]int64, len(statusDefs))}
	if sched {
		s.Response = hist.New()
	}
	for i := 0; i < n; i++ {
		v := lo + int64(i)*step
		s.Service.Record(v)
		if sched {
			s.Response.Record(v + 1500) // queued behind the schedule
		}
	}
	if failed > 0 {
		s.ServiceFailed = hist.New()
		if sched {
			s.ResponseFailed = hist.New()
		}
		for i := 0; i < failed; i++ {
			s.ServiceFailed.Record(9000)
			if sched {
				s.ResponseFailed.Record(9900)
			}
		}
	}
	for st, c := range statuses {
		s.Statuses[st] = c
	}
	return s
}

func result(ops int64, runtime time.Duration, totals ...*bench.OpStats) *bench.Result {
	all := make([]*bench.OpStats, len(Catalog.Ops))
	for i := range all {
		all[i] = &bench.OpStats{Op: bench.Op(i), Name: Catalog.Ops[i], Service: hist.New(), Statuses: make([]int64, len(statusDefs))}
	}
	for _, t := range totals {
		all[t.Op] = t
	}
	start := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	return &bench.Result{Ops: ops, RunTime: runtime, Totals: all, Start: start, MeasureStart: start, End: start.Add(runtime)}
}

// Workload A: READ, CLEANUP, UPDATE in Java's map order; NOT_FOUND reads
// in a READ-FAILED block with their Return= line under READ.
func TestReportGoldenWorkloadA(t *testing.T) {
	res := result(1000, 2500*time.Millisecond,
		stats(OpRead, 498, 400, 3, false, map[Status]int64{OK: 498, NotFound: 2}, 2),
		stats(OpUpdate, 500, 900, 11, false, map[Status]int64{OK: 500}, 0),
		stats(OpCleanup, 4, 10, 5, false, nil, 0),
	)
	var b bytes.Buffer
	if err := WriteReport(&b, res, ReportOptions{Percentiles: []float64{95, 99}, GCCount: 3, GCPauseMs: 2}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report_workloada.txt", b.Bytes())
}

// Workload F with a target and measurement.interval=both: READ, UPDATE and
// READ-MODIFY-WRITE from the actual start, and Intended- blocks from the
// intended start; no Return= lines for READ-MODIFY-WRITE.
func TestReportGoldenWorkloadFBoth(t *testing.T) {
	res := result(200, time.Second,
		stats(OpRead, 200, 500, 2, true, map[Status]int64{OK: 200}, 0),
		stats(OpUpdate, 100, 800, 5, true, map[Status]int64{OK: 100}, 0),
		stats(OpReadModifyWrite, 100, 1400, 5, true, nil, 0),
		stats(OpCleanup, 2, 10, 5, false, nil, 0),
	)
	res.Scheduled = true
	var b bytes.Buffer
	if err := WriteReport(&b, res, ReportOptions{Mode: IntervalBoth, Percentiles: []float64{50, 95, 99, 99.9}}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report_workloadf_both.txt", b.Bytes())
}

// hdrhistogram+raw: HdrNAME blocks with the statuses, RawNAME blocks with
// exact statistics over every sample.
func TestReportGoldenHdrRaw(t *testing.T) {
	res := result(10, 100*time.Millisecond, stats(OpInsert, 10, 100, 10, false, map[Status]int64{OK: 10}, 0))
	raw := map[string][]uint32{"op:INSERT": {190, 100, 110, 120, 130, 140, 150, 160, 170, 180}}
	var b bytes.Buffer
	if err := WriteReport(&b, res, ReportOptions{Type: MeasureHDRRaw, Percentiles: []float64{95, 99}, Raw: raw}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report_hdr_raw.txt", b.Bytes())
}

// Status lines: the first before any operation (NaN estimate: "0 second"),
// then every status interval with the interval's HDR summary.
func TestStatusLineGolden(t *testing.T) {
	var b bytes.Buffer
	s := NewStatusSink(&b, "", 10*time.Second, IntervalOp, MeasureHDR)
	clock := time.Date(2025, 1, 1, 10, 0, 0, 4_000_000, time.Local)
	s.now = func() time.Time { return clock }
	info := &bench.RunInfo{Catalog: Catalog, Config: &bench.Config{}, Quotas: []int64{500, 500}}
	if err := s.Begin(info); err != nil {
		t.Fatal(err)
	}
	iv := &bench.Interval{Measured: result(0, 0,
		stats(OpRead, 300, 150, 7, false, map[Status]int64{OK: 300}, 0),
		stats(OpUpdate, 100, 700, 13, false, map[Status]int64{OK: 100}, 0)).Totals,
		Warmup: result(0, 0).Totals, Elapsed: 10 * time.Second, Done: 400, Todo: 600}
	clock = clock.Add(10 * time.Second)
	if err := s.Tick(iv); err != nil {
		t.Fatal(err)
	}
	// An interval with no updates: UPDATE stays in the line, empty.
	iv2 := &bench.Interval{Measured: result(0, 0, stats(OpRead, 600, 150, 1, false, map[Status]int64{OK: 600}, 0)).Totals,
		Warmup: result(0, 0).Totals, Elapsed: 20 * time.Second, Done: 1000, Todo: 0, Final: true}
	clock = clock.Add(10 * time.Second)
	if err := s.Tick(iv2); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "status_lines.txt", b.Bytes())
}

// A measurement with OK, NOT_FOUND and ERROR together prints its Return=
// lines in the order of YCSB's hash map (OK, NOT_FOUND, ERROR here), not
// the catalog's (OK, ERROR, NOT_FOUND); TestIntegrationReportAgainstYCSBCore
// checks the order against YCSB core itself.
func TestReportGoldenStatuses(t *testing.T) {
	h := hist.New()
	for _, v := range []int64{812, 1093, 977, 25073, 1440, 2210, 655} {
		h.Record(v)
	}
	st := make([]int64, len(statusDefs))
	st[0], st[1], st[2] = 5, 1, 1 // OK, ERROR, NOT_FOUND in the catalog
	var b strings.Builder
	line := func(metric, m, v string) { fmt.Fprintf(&b, "[%s], %s, %s\n", metric, m, v) }
	hdrBlock(line, "READ", &measurement{name: "READ", h: h, statuses: st}, []float64{95, 99})
	golden.Check(t, "report_statuses.txt", []byte(b.String()))
}
