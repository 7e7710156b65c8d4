//go:build integration

package sysbench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench/livemetrics/livemetricstest"
)

// A paced oltp_point_select run on the test PostgreSQL with
// --ybload-metrics-addr, scraped while it runs through Prometheus's own
// parser: the warm-up, then the measured window, with the target rate;
// held at its final report (the engine ended, the server up), the last
// scrape counts the events sysbench's own counters and the HDR summary
// count.
func TestIntegrationMetricsScrapedDuringARun(t *testing.T) {
	d := newTestDB(t)
	d.must(t, "oltp_point_select", "prepare", "--tables=1", "--table-size=1000")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	summary := filepath.Join(t.TempDir(), "summary.json")
	stdout, stderr := livemetricstest.NewGate("SQL statistics:", true), livemetricstest.NewGate(livemetricstest.Serving, false)
	defer stdout.Release()
	env := &Env{Stdout: stdout, Stderr: stderr, Version: "test", Getenv: func(k string) string {
		if k == "YBLOAD_YSQL_PASSWORD" {
			return d.pg.Password
		}
		return ""
	}}
	args := append([]string{"oltp_point_select", "run", "--tables=1", "--table-size=1000", "--threads=2", "--rate=300",
		"--warmup-time=1", "--time=2", "--ybload-metrics-addr=127.0.0.1:0", "--ybload-summary=" + summary}, d.args()...)
	exit := make(chan int, 1)
	go func() { exit <- Main(ctx, args, env) }()

	var addr string
	select {
	case <-stderr.Reached():
		addr, _ = livemetricstest.AddrIn(stderr.String())
	case code := <-exit:
		t.Fatalf("exit %d before serving:\n%s", code, stderr.String())
	}
	until := func(what string, ok func(livemetricstest.Families) bool) livemetricstest.Families {
		t.Helper()
		f, err := livemetricstest.Until(ctx, addr, ok)
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, stderr.String())
		}
		return f
	}
	// The phase turns to warmup as the run begins; the warm-up's
	// operations show at its first tick, which may be the one that ends it.
	f := until("the warm-up", func(f livemetricstest.Families) bool { return f.Phase() == "warmup" })
	until("the warm-up's operations", func(f livemetricstest.Families) bool {
		n, _ := f.Value("ybload_warmup_operations_total", "op", "EVENT")
		return n > 0
	})
	if tgt, _ := f.Value("ybload_target_ops_per_second"); tgt != 300 {
		t.Errorf("target %v, want 300", tgt)
	}
	f = until("the measured window", func(f livemetricstest.Families) bool {
		n, _ := f.Value("ybload_operations_total", "op", "EVENT")
		return f.Phase() == "run" && n > 0
	})
	mid, _ := f.Value("ybload_operations_total", "op", "EVENT")

	select {
	case <-stdout.Reached():
	case code := <-exit:
		t.Fatalf("exit %d before the report:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	final, err := livemetricstest.Scrape(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	stdout.Release()
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var s Summary
	b, err := os.ReadFile(summary)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil || s.Sysbench == nil || s.HDR == nil || s.Warmup == nil {
		t.Fatalf("summary %+v: %v", s, err)
	}
	ops, _ := final.Value("ybload_operations_total", "op", "EVENT")
	errs, _ := final.Value("ybload_errors_total", "op", "EVENT")
	warm, _ := final.Value("ybload_warmup_operations_total", "op", "EVENT")
	t.Logf("events: %v (mid-run %v), errors %v, warm-up %v; sysbench %d, HDR %d (+%d failed), warm-up %d",
		ops, mid, errs, warm, s.Sysbench.Events, s.HDR.Count, s.HDR.Failed, s.Warmup.Events)
	if final.Phase() != "done" || ops != float64(s.Sysbench.Events) || ops != float64(s.HDR.Count) || errs != float64(s.HDR.Failed) ||
		warm != float64(s.Warmup.Events) || ops <= mid {
		t.Errorf("final scrape (phase %s): events %v, errors %v, warm-up %v; the summary: sysbench %d, HDR %d and %d failed, warm-up %d; mid-run %v",
			final.Phase(), ops, errs, warm, s.Sysbench.Events, s.HDR.Count, s.HDR.Failed, s.Warmup.Events, mid)
	}
	h := final.Histogram("ybload_response_time_seconds", "op", "EVENT")
	if h == nil || h.GetSampleCount() != uint64(s.HDR.Count) || s.HDR.Latency != "response" {
		t.Fatalf("response histogram %v, the summary's %s count %d", h, s.HDR.Latency, s.HDR.Count)
	}
	for _, bk := range h.GetBucket() {
		if le := bk.GetUpperBound(); le >= float64(s.HDR.MaxUS+1)/1e6 && bk.GetCumulativeCount() != uint64(s.HDR.Count) {
			t.Errorf("le=%v: %d, want all %d (max %d µs)", le, bk.GetCumulativeCount(), s.HDR.Count, s.HDR.MaxUS)
		}
	}
	if _, err := livemetricstest.Scrape(ctx, addr); err == nil {
		t.Error("still served after the agent returned")
	}
}
