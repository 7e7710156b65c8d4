package livemetrics_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/livemetrics/livemetricstest"
	"github.com/ybbench/ybbench/bench/pace"
)

// The address every mode's option takes: HOST:PORT in canonical form;
// anything else refused with what is wanted.
func TestParseAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:9464": "127.0.0.1:9464", ":9464": ":9464", "[::1]:0": "[::1]:0", "localhost:9464": "localhost:9464",
		"10.0.0.5:09464": "10.0.0.5:9464", " client-1.example:80 ": "client-1.example:80",
	} {
		if got, err := livemetrics.ParseAddr(in); err != nil || got != want {
			t.Errorf("ParseAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, says := range map[string]string{
		"9464": "want HOST:PORT", "": "want HOST:PORT", "host": "want HOST:PORT", "1.2.3.4:99999": "from 0 to 65535",
		"1.2.3.4:http": "from 0 to 65535", "1.2.3.4:-1": "from 0 to 65535", "a b:1": "want an IP address or a host name",
		"-x:1": "want an IP address or a host name",
	} {
		if got, err := livemetrics.ParseAddr(in); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseAddr(%q) = %q, %v; want an error saying %q", in, got, err, says)
		}
	}
}

// A port another process holds is refused at once, saying so.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := livemetrics.Serve(context.Background(), ln.Addr().String())
	if err == nil {
		s.Close()
		t.Fatal("served on a port in use")
	}
	if !strings.Contains(err.Error(), "the port is in use") || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("error %q: want the address and that the port is in use", err)
	}
}

// Off is a nil server: nothing to add, nothing to close.
func TestNilServerIsOff(t *testing.T) {
	var s *livemetrics.Server
	if s.Sink() != nil || s.Addr() != "" || s.Close() != nil {
		t.Error("a nil server does something")
	}
}

// interval makes one tick's stats of a two-measurement catalog: READ
// latencies (µs) succeeded, UPDATE's failed.
func interval(elapsed time.Duration, warmup bool, reads []int64, failedUpdates int) *bench.Interval {
	mk := func() []*bench.OpStats {
		return []*bench.OpStats{bench.NewOpStats(0, "READ", 2, true), bench.NewOpStats(1, "UPDATE", 2, true)}
	}
	iv := &bench.Interval{Measured: mk(), Warmup: mk(), Elapsed: elapsed}
	stats := iv.Measured
	if warmup {
		stats = iv.Warmup
	}
	for _, v := range reads {
		stats[0].Service.Record(v)
		stats[0].Response.Record(v + 1000)
	}
	if failedUpdates > 0 {
		stats[1].ServiceFailed = stats[1].Service.Clone()
		for range failedUpdates {
			stats[1].ServiceFailed.Record(50)
		}
	}
	return iv
}

// What the sink is handed tick by tick is what a scrape reads, through
// Prometheus's own parser: the phase as the run goes, the target, the
// counters, and histograms whose buckets hold each value under its bound.
func TestScrapeFollowsTheTicks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := livemetrics.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addr := s.Addr()
	scrape := func() livemetricstest.Families {
		t.Helper()
		f, err := livemetricstest.Scrape(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := scrape(); f.Phase() != livemetrics.PhaseStarting || f["ybload_operations_total"] != nil || f["process_cpu_seconds_total"] == nil {
		t.Errorf("before the run: phase %q, operations %v, process CPU %v", f.Phase(), f["ybload_operations_total"], f["process_cpu_seconds_total"])
	}
	sink := s.Sink()
	cat := &bench.Catalog{Ops: []string{"READ", "UPDATE"}, Statuses: []bench.StatusDef{{Name: "OK", OK: true}, {Name: "ERROR"}}, Cleanup: -1}
	cfg := &bench.Config{Warmup: time.Second, Schedule: &pace.Target{OpsPerSec: 500, Threads: 2}}
	if err := sink.Begin(&bench.RunInfo{Catalog: cat, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	f := scrape()
	if tgt, _ := f.Value("ybload_target_ops_per_second"); f.Phase() != livemetrics.PhaseWarmup || tgt != 500 {
		t.Errorf("begun: phase %q target %v, want warmup and 500", f.Phase(), tgt)
	}
	for _, iv := range []*bench.Interval{
		interval(500*time.Millisecond, true, []int64{10, 20, 30}, 0),
		interval(time.Second, false, []int64{1500, 1500, 1535}, 2),
		interval(1500*time.Millisecond, false, []int64{0, 1536, 7_200_000_000}, 0),
	} {
		if err := sink.Tick(iv); err != nil {
			t.Fatal(err)
		}
	}
	f = scrape()
	for _, c := range []struct {
		name, op string
		want     float64
	}{{"ybload_operations_total", "READ", 6}, {"ybload_errors_total", "UPDATE", 2}, {"ybload_operations_total", "UPDATE", 0},
		{"ybload_warmup_operations_total", "READ", 3}} {
		if got, ok := f.Value(c.name, "op", c.op); !ok || got != c.want {
			t.Errorf("%s{op=%s} = %v (%v), want %v", c.name, c.op, got, ok, c.want)
		}
	}
	if f.Phase() != livemetrics.PhaseRun {
		t.Errorf("after the warm-up: phase %q", f.Phase())
	}
	h := f.Histogram("ybload_service_time_seconds", "op", "READ")
	if h == nil || h.GetSampleCount() != 6 || f.Histogram("ybload_service_time_seconds", "op", "UPDATE") != nil {
		t.Fatalf("READ histogram %v; UPDATE (failures only) %v", h, f.Histogram("ybload_service_time_seconds", "op", "UPDATE"))
	}
	// 0 µs is below 1 µs; 1500 and 1535 below 1536; 1536 below 2048; the
	// overflow (2 h, kept at 1 h) below 2^32 µs.
	for le, want := range map[float64]uint64{0.000001: 1, 0.001024: 1, 0.001536: 4, 0.002048: 5, 4294.967296: 6} {
		if got, ok := livemetricstest.CumulativeAt(h, le); !ok || got != want {
			t.Errorf("READ le=%v: %d (%v), want %d", le, got, ok, want)
		}
	}
	if n := len(h.GetBucket()); n != 65 { // 64 bounds and +Inf
		t.Errorf("%d buckets, want 65", n)
	}
	if r := f.Histogram("ybload_response_time_seconds", "op", "READ"); r == nil || r.GetSampleCount() != 6 {
		t.Errorf("response histogram %v", r)
	}
	if err := sink.End(&bench.Result{}); err != nil {
		t.Fatal(err)
	}
	if f := scrape(); f.Phase() != livemetrics.PhaseDone {
		t.Errorf("ended: phase %q", f.Phase())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := livemetricstest.Scrape(ctx, addr); err == nil {
		t.Error("still served after Close")
	}
}

// A scraper that asks for OpenMetrics gets it.
func TestOpenMetricsOnRequest(t *testing.T) {
	s, err := livemetrics.Serve(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.Addr()+livemetrics.Path, nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") || !strings.HasSuffix(string(b), "# EOF\n") {
		t.Errorf("content type %q, body ends %q", ct, string(b[max(0, len(b)-20):]))
	}
	if !strings.Contains(string(b), `ybload_phase{phase="starting"} 1`) {
		t.Errorf("no starting phase in\n%s", b)
	}
}
