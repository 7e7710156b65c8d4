package livemetrics_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/pace"
)

// What the live metrics cost the agent is a tick's fold (once an interval)
// and a scrape (once per scraper's interval); neither is on an operation's
// path. These measure each on a paced YCSB A-like run: READ and UPDATE,
// 10 000 latencies each a tick, service and response histograms.

var ycsbCatalog = &bench.Catalog{Ops: []string{"INSERT", "READ", "UPDATE", "SCAN", "READ-MODIFY-WRITE", "DELETE", "CLEANUP"},
	Statuses: []bench.StatusDef{{Name: "OK", OK: true}, {Name: "ERROR"}}, Cleanup: 6}

// busyInterval is one tick of a paced run: READ and UPDATE measured,
// latencies from 50 µs with a long tail.
func busyInterval() *bench.Interval {
	r := rand.New(rand.NewPCG(1, 1))
	iv := &bench.Interval{Elapsed: 10 * time.Second}
	for i, name := range ycsbCatalog.Ops {
		iv.Measured = append(iv.Measured, bench.NewOpStats(bench.Op(i), name, 2, true))
		iv.Warmup = append(iv.Warmup, bench.NewOpStats(bench.Op(i), name, 2, true))
	}
	for _, op := range []int{1, 2} {
		for range 10_000 {
			v := 50 + int64(r.ExpFloat64()*400)
			iv.Measured[op].Service.Record(v)
			iv.Measured[op].Response.Record(v + int64(r.ExpFloat64()*100))
		}
	}
	return iv
}

func begun(b *testing.B) (*livemetrics.Server, bench.Sink) {
	b.Helper()
	s, err := livemetrics.Serve(context.Background(), "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	sink := s.Sink()
	if err := sink.Begin(&bench.RunInfo{Catalog: ycsbCatalog, Config: &bench.Config{Schedule: &pace.Target{OpsPerSec: 20000, Threads: 4}}}); err != nil {
		b.Fatal(err)
	}
	return s, sink
}

// BenchmarkTick is the sink's work once a tick.
func BenchmarkTick(b *testing.B) {
	_, sink := begun(b)
	iv := busyInterval()
	b.ReportAllocs()
	for b.Loop() {
		if err := sink.Tick(iv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScrape is one scrape of /metrics over loopback HTTP, the
// scraper's side included, as Prometheus would make it once an interval.
func BenchmarkScrape(b *testing.B) {
	s, sink := begun(b)
	if err := sink.Tick(busyInterval()); err != nil {
		b.Fatal(err)
	}
	url := "http://" + s.Addr() + livemetrics.Path
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		size, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}
