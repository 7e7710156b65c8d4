package main

// The live metrics section (-only metrics): what serving the agent's live
// metrics costs it, on the null binding (no database: the agent's own work
// alone). The same run three ways, alternated: metrics off, on (the sink
// fed every tick, nobody scraping), and on with a scraper reading
// /metrics every second as Prometheus would; closed loop (CPU per
// operation at full speed) and paced (the agent's busy cores at a fixed
// rate, where the metrics' fixed cost a second shows whole).

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var (
	metricsTime    = flag.Int("metrics-time", 10, "seconds of each run of the metrics section")
	metricsReps    = flag.Int("metrics-reps", 5, "repetitions of the metrics section's runs, the three variants alternated")
	metricsThreads = flag.Int("metrics-threads", 4, "threads of the metrics section's null-binding runs")
	metricsTarget  = flag.Int("metrics-target", 20000, "operations a second of the metrics section's paced runs")
)

// The three variants of a metrics run.
const (
	metricsOff     = "off"
	metricsOn      = "on, not scraped"
	metricsScraped = "on, scraped every 1 s"
)

// metricsRun is one run's figures: the process's, and the scrapes made.
type metricsRun struct {
	sample
	scrapes int64
}

// metricsSection prints the cost of the live metrics, closed loop and
// paced.
func metricsSection(out *strings.Builder) error {
	variants := []string{metricsOff, metricsOn, metricsScraped}
	fmt.Fprintf(out, "## Live metrics: their cost to the agent (null binding, workload A, %d threads, %d s runs, %d repetitions, the variants alternated)\n\n",
		*metricsThreads, *metricsTime, *metricsReps)
	for _, paced := range []bool{false, true} {
		runs := map[string][]metricsRun{}
		for rep := 0; rep < *metricsReps; rep++ {
			for _, v := range alternated(variants, rep) {
				r, err := runWithMetrics(v, paced)
				if err != nil {
					return fmt.Errorf("%s: %w", v, err)
				}
				runs[v] = append(runs[v], r)
			}
		}
		writeMetricsTable(out, paced, variants, runs)
	}
	return nil
}

// runWithMetrics runs the null binding once in variant v, paced or not,
// and takes its CPU and operations (from its summary).
func runWithMetrics(v string, paced bool) (metricsRun, error) {
	summary := filepath.Join(*workdir, "metrics-summary.json")
	os.Remove(summary)
	args := []string{*ybload, "run", "null", "-P", workloadFile("workloada"), "-p", "recordcount=100000", "-p", "operationcount=2000000000",
		"-p", "threadcount=" + strconv.Itoa(*metricsThreads), "-p", "maxexecutiontime=" + strconv.Itoa(*metricsTime), "-p", "ybload.summary=" + summary}
	if paced {
		args = append(args, "-target", strconv.Itoa(*metricsTarget))
	}
	var r metricsRun
	stop := func() {}
	if v != metricsOff {
		addr, err := freeLocalAddr()
		if err != nil {
			return r, err
		}
		args = append(args, "-p", "ybload.metrics.addr="+addr)
		if v == metricsScraped {
			stop = scrapeEverySecond(addr, &r.scrapes)
		}
	}
	s, err := measure(args, 0)
	stop()
	if err != nil {
		return r, err
	}
	var sum struct {
		Ops int64 `json:"operations"`
	}
	b, err := os.ReadFile(summary)
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil || sum.Ops == 0 {
		return r, fmt.Errorf("summary %s: %v (%d operations)", summary, err, sum.Ops)
	}
	s.ops = sum.Ops
	r.sample = s
	return r, nil
}

// freeLocalAddr is a loopback address with a port nothing listens on now.
func freeLocalAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// scrapeEverySecond reads http://addr/metrics every second, as Prometheus
// would, counting the scrapes that succeeded (the agent listens a moment
// after it starts, and not after it ends), until the returned stop.
func scrapeEverySecond(addr string, n *int64) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				continue
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				atomic.AddInt64(n, 1)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// writeMetricsTable prints one configuration's variants, and each one on
// against off.
func writeMetricsTable(out *strings.Builder, paced bool, variants []string, runs map[string][]metricsRun) {
	samples := func(v string) []sample {
		var s []sample
		for _, r := range runs[v] {
			s = append(s, r.sample)
		}
		return s
	}
	cores := func(s sample) float64 { return s.cpu.Seconds() / s.wall.Seconds() }
	if paced {
		fmt.Fprintf(out, "Paced at %d operations a second:\n\n", *metricsTarget)
	} else {
		fmt.Fprint(out, "Closed loop (as fast as it goes):\n\n")
	}
	fmt.Fprintf(out, "| metrics | ops/s (median) | CPU µs/op (median) | spread | agent cores (median) | spread | scrapes |\n|---|---|---|---|---|---|---|\n")
	for _, v := range variants {
		s := samples(v)
		var scrapes []string
		for _, r := range runs[v] {
			scrapes = append(scrapes, strconv.FormatInt(r.scrapes, 10))
		}
		fmt.Fprintf(out, "| %s | %.0f | %.4f | %s | %.3f | %s | %s |\n", v, median(s, rate), median(s, cpuPerOp), spread(s, cpuPerOp),
			median(s, cores), spread(s, cores), strings.Join(scrapes, " "))
	}
	// At full speed the agent's cores are what the machine left it, so
	// the cost is CPU per operation; paced, the work a second is fixed, so
	// it is the CPU a second the metrics add.
	off := samples(metricsOff)
	for _, v := range variants[1:] {
		on := samples(v)
		if paced {
			fmt.Fprintf(out, "\n%s against off: %+.1f ms of CPU a second (medians), CPU per operation %.3f×", v,
				1000*(median(on, cores)-median(off, cores)), median(on, cpuPerOp)/median(off, cpuPerOp))
		} else {
			fmt.Fprintf(out, "\n%s against off: CPU per operation %.3f× (medians)", v, median(on, cpuPerOp)/median(off, cpuPerOp))
		}
	}
	fmt.Fprint(out, "\n\n")
}
