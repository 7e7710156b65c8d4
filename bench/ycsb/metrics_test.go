package ycsb

import (
	"context"
	"encoding/json"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/livemetrics/livemetricstest"
	"github.com/ybbench/ybbench/record"
)

// -p ybload.metrics.addr=HOST:PORT is read in canonical form, off when not
// given; a malformed one or a port in use is refused (exit 2) naming the
// property, before the binding connects.
func TestMetricsAddrProperty(t *testing.T) {
	read := func(extra ...string) (*runOptions, error) {
		args := append([]string{"run", "null", "-P", "workloads/workloada"}, extra...)
		inv, err := ParseArgs(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		return readRunOptions(inv.Props)
	}
	if ro, err := read(); err != nil || ro.metricsAddr != "" {
		t.Errorf("not given: %q, %v; want off", ro.metricsAddr, err)
	}
	if ro, err := read("-p", "ybload.metrics.addr=127.0.0.1:09464"); err != nil || ro.metricsAddr != "127.0.0.1:9464" {
		t.Errorf("given: %q, %v", ro.metricsAddr, err)
	}
	for _, bad := range []string{"9464", "127.0.0.1:http", "127.0.0.1:70000", ""} {
		code, _, stderr := runMain(t, "run", "null", "-P", "workloads/workloada", "-p", "operationcount=10", "-p", "ybload.metrics.addr="+bad)
		if code != 2 || !strings.Contains(stderr, `ybload.metrics.addr="`+bad+`"`) {
			t.Errorf("ybload.metrics.addr=%q: exit %d, want 2 naming it:\n%s", bad, code, stderr)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr := runMain(t, "run", "null", "-P", "workloads/workloada", "-p", "operationcount=10", "-p", "ybload.metrics.addr="+ln.Addr().String())
	if code != 2 || !strings.Contains(stderr, "ybload.metrics.addr="+ln.Addr().String()) || !strings.Contains(stderr, "the port is in use") {
		t.Errorf("a port in use: exit %d, want 2 naming the property and the port in use:\n%s", code, stderr)
	}
}

// A real run of the null binding, paced and with a warm-up, scraped while
// it runs through Prometheus's own parser: the warm-up, then the measured
// window are seen as they happen; held at its report (the engine ended,
// the server up), the last scrape's counters and histograms are the run's
// as its summary and its tick records count them.
func TestMetricsScrapedDuringARun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	summary, records := filepath.Join(dir, "summary.json"), filepath.Join(dir, "records.jsonl")
	stdout, stderr := livemetricstest.NewGate("[OVERALL]", true), livemetricstest.NewGate(livemetricstest.Serving, false)
	defer stdout.Release()
	env := &Env{Stdout: stdout, Stderr: stderr, Bindings: map[string]BindingFactory{"null": NewNullBinding}, Version: "test"}
	args := []string{"run", "null", "-P", "workloads/workloada", "-p", "recordcount=1000", "-p", "operationcount=100000000",
		"-p", "threadcount=2", "-target", "2000", "-p", "warmuptime=1", "-p", "maxexecutiontime=2", "-p", "ybload.interval=250ms",
		"-p", "ybload.metrics.addr=127.0.0.1:0", "-p", "ybload.summary=" + summary, "-p", "ybload.records=" + records}
	exit := make(chan int, 1)
	go func() { exit <- Main(ctx, args, env) }()

	var addr string
	select {
	case <-stderr.Reached():
		addr, _ = livemetricstest.AddrIn(stderr.String())
	case code := <-exit:
		t.Fatalf("exit %d before serving:\n%s", code, stderr.String())
	}
	scrapeUntil := func(what string, ok func(livemetricstest.Families) bool) livemetricstest.Families {
		t.Helper()
		f, err := livemetricstest.Until(ctx, addr, ok)
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, stderr.String())
		}
		return f
	}
	// The phase turns to warmup as the run begins; the warm-up's
	// operations show at its first tick, which may be the one that ends it.
	f := scrapeUntil("the warm-up", func(f livemetricstest.Families) bool { return f.Phase() == "warmup" })
	scrapeUntil("the warm-up's operations", func(f livemetricstest.Families) bool {
		n, _ := f.Value("ybload_warmup_operations_total", "op", "READ")
		return n > 0
	})
	if tgt, _ := f.Value("ybload_target_ops_per_second"); tgt != 2000 {
		t.Errorf("target %v, want 2000", tgt)
	}
	f = scrapeUntil("the measured window", func(f livemetricstest.Families) bool {
		n, _ := f.Value("ybload_operations_total", "op", "READ")
		return f.Phase() == "run" && n > 0
	})
	mid, _ := f.Value("ybload_operations_total", "op", "READ")

	select {
	case <-stdout.Reached():
	case code := <-exit:
		t.Fatalf("exit %d before the report:\n%s", code, stderr.String())
	}
	final, err := livemetricstest.Scrape(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	stdout.Release()
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	if final.Phase() != "done" {
		t.Errorf("held at the report: phase %q, want done", final.Phase())
	}
	if _, err := livemetricstest.Scrape(ctx, addr); err == nil {
		t.Error("still served after the agent returned")
	}
	checkFinalScrape(t, final, summary, records, mid)
}

// checkFinalScrape holds the last scrape against the run's summary and
// its tick records, each counted apart from the metrics.
func checkFinalScrape(t *testing.T, f livemetricstest.Families, summaryPath, recordsPath string, mid float64) {
	t.Helper()
	var s Summary
	b, err := os.ReadFile(summaryPath)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatal(err)
	}
	rf, err := os.Open(recordsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	recs, err := record.Read(recordsPath, rf)
	if err != nil {
		t.Fatal(err)
	}
	counted, warm := map[string]int64{}, map[string]int64{}
	for _, tk := range recs.Ticks {
		if tk.Warmup {
			warm[tk.Op] += tk.Count + tk.Errors
		} else {
			counted[tk.Op] += tk.Count
		}
	}
	for op, n := range warm {
		if got, _ := f.Value("ybload_warmup_operations_total", "op", op); got != float64(n) {
			t.Errorf("ybload_warmup_operations_total{op=%s} = %v, the records count %d", op, got, n)
		}
	}
	seen := map[string]bool{}
	for _, m := range s.Measurements {
		name := map[string]string{"service": "ybload_service_time_seconds", "response": "ybload_response_time_seconds"}[m.Latency]
		seen[m.Latency] = true
		ops, _ := f.Value("ybload_operations_total", "op", m.Name)
		errs, _ := f.Value("ybload_errors_total", "op", m.Name)
		if ops != float64(m.Count) || errs != float64(m.Errors) || ops != float64(counted[m.Name]) {
			t.Errorf("%s: %v operations and %v errors; the summary has %d and %d, the records %d", m.Name, ops, errs, m.Count, m.Errors, counted[m.Name])
		}
		if m.Name == "READ" && (ops <= mid || mid <= 0) {
			t.Errorf("READ: %v at the end, %v mid-run: want the counter to grow", ops, mid)
		}
		t.Logf("%s %s: %v operations (mid-run %v), %v errors; summary %d, records %d", m.Name, m.Latency, ops, mid, errs, m.Count, counted[m.Name])
		h := f.Histogram(name, "op", m.Name)
		if h == nil || h.GetSampleCount() != uint64(m.Count) {
			t.Errorf("%s{op=%s}: %v, want %d observations", name, m.Name, h, m.Count)
			continue
		}
		// Every value is below the bucket above the summary's max and none
		// below the one at or under its min; the sum is the HDR mean's.
		for _, bk := range h.GetBucket() {
			le := bk.GetUpperBound()
			if le >= float64(m.MaxUS+1)/1e6 && bk.GetCumulativeCount() != uint64(m.Count) {
				t.Errorf("%s{op=%s} le=%v: %d, want all %d (max %d µs)", name, m.Name, le, bk.GetCumulativeCount(), m.Count, m.MaxUS)
			}
			if le <= float64(m.MinUS)/1e6 && bk.GetCumulativeCount() != 0 {
				t.Errorf("%s{op=%s} le=%v: %d, want 0 (min %d µs)", name, m.Name, le, bk.GetCumulativeCount(), m.MinUS)
			}
		}
		if mean := h.GetSampleSum() / float64(m.Count) * 1e6; math.Abs(mean-m.MeanUS) > 1e-6*m.MeanUS {
			t.Errorf("%s{op=%s}: mean %v µs from the sum, the summary's %v", name, m.Name, mean, m.MeanUS)
		}
	}
	if !seen["service"] || !seen["response"] {
		t.Errorf("the summary has latencies %v: want service and response (a paced run)", seen)
	}
}
