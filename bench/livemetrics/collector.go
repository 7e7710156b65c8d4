package livemetrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ybbench/ybbench/record/hist"
)

// The phases of ybload_phase, in the order a run goes through them.
const (
	PhaseStarting = "starting" // connecting, setting up, waiting for the start time
	PhaseWarmup   = "warmup"
	PhaseRun      = "run" // the measured window
	PhaseDone     = "done"
)

var phases = []string{PhaseStarting, PhaseWarmup, PhaseRun, PhaseDone}

var (
	opsDesc = prometheus.NewDesc("ybload_operations_total",
		"Successful measurements in the measured window (the summary's count), by measurement name.", []string{"op"}, nil)
	errorsDesc = prometheus.NewDesc("ybload_errors_total",
		"Failed measurements in the measured window (the summary's errors), by measurement name.", []string{"op"}, nil)
	warmupDesc = prometheus.NewDesc("ybload_warmup_operations_total",
		"Measurements taken during the warm-up, successful or not, by measurement name.", []string{"op"}, nil)
	serviceDesc = prometheus.NewDesc("ybload_service_time_seconds",
		"Latency of successful measurements from their actual start, in the measured window.", []string{"op"}, nil)
	responseDesc = prometheus.NewDesc("ybload_response_time_seconds",
		"Latency of successful measurements from their intended start (paced runs), in the measured window.", []string{"op"}, nil)
	targetDesc = prometheus.NewDesc("ybload_target_ops_per_second",
		"The operations a second this agent is paced at (0: a closed loop, as fast as it goes).", nil, nil)
	phaseDesc = prometheus.NewDesc("ybload_phase",
		"1 for the phase the agent is in, 0 for the others.", []string{"phase"}, nil)
)

// bounds are the histograms' upper bounds: in µs for the HDR counts, in
// seconds for Prometheus.
var (
	boundsUS      = hist.BucketBounds()
	boundsSeconds = func() []float64 {
		s := make([]float64, len(boundsUS))
		for i, b := range boundsUS {
			s[i] = float64(b) / 1e6
		}
		return s
	}()
)

// buckets are one histogram since the run began, kept as HDR counts: a
// tick merges its histogram in (no allocation, whoever scrapes), and a
// scrape sorts the counts under the bounds, so that the work of bucketing
// is done as often as someone reads it, not every tick.
type buckets struct {
	h *hist.Hist
}

func (b *buckets) add(h *hist.Hist) { b.h.Merge(h) }

// metric is the histogram as Prometheus takes it: cumulative counts.
func (b *buckets) metric(desc *prometheus.Desc, op string) prometheus.Metric {
	counts := make([]int64, len(boundsUS)+1)
	sumUS := b.h.AddToBuckets(boundsUS, counts)
	cum := make(map[float64]uint64, len(boundsSeconds))
	var n uint64
	for i, le := range boundsSeconds {
		n += uint64(counts[i])
		cum[le] = n
	}
	n += uint64(counts[len(boundsSeconds)])
	return prometheus.MustNewConstHistogram(desc, n, sumUS/1e6, cum, op)
}

// collector holds what the ticks so far added up, and hands it to a
// scrape. Tick and scrape take its lock, once each: a scrape sees one
// tick's state whole, counters and histograms alike.
type collector struct {
	mu     sync.Mutex
	phase  string
	target float64
	// ops are the catalog's measurement names (nil before the run
	// begins); the slices below are indexed like it.
	ops                    []string
	done, failed, warm     []int64
	service, response      []*buckets // nil until the measurement is first taken
	measuredSeen, warmSeen []bool
}

func newCollector() *collector { return &collector{phase: PhaseStarting} }

// Describe sends every family's description; a scrape sends those the
// run has so far (no response times on a closed loop, no histogram of a
// measurement never taken).
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{opsDesc, errorsDesc, warmupDesc, serviceDesc, responseDesc, targetDesc, phaseDesc} {
		ch <- d
	}
}

// Collect sends the state the last tick left.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range phases {
		v := 0.0
		if p == c.phase {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(phaseDesc, prometheus.GaugeValue, v, p)
	}
	ch <- prometheus.MustNewConstMetric(targetDesc, prometheus.GaugeValue, c.target)
	for i, op := range c.ops {
		// A measurement gets its series once taken, as the records give
		// it lines: a catalog lists names a workload may never take.
		if c.measuredSeen[i] {
			ch <- prometheus.MustNewConstMetric(opsDesc, prometheus.CounterValue, float64(c.done[i]), op)
			ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, float64(c.failed[i]), op)
		}
		if c.warmSeen[i] {
			ch <- prometheus.MustNewConstMetric(warmupDesc, prometheus.CounterValue, float64(c.warm[i]), op)
		}
		if b := c.service[i]; b != nil {
			ch <- b.metric(serviceDesc, op)
		}
		if b := c.response[i]; b != nil {
			ch <- b.metric(responseDesc, op)
		}
	}
}

// addTo adds h into b, made on the measurement's first histogram.
func addTo(b *buckets, h *hist.Hist) *buckets {
	if b == nil {
		b = &buckets{h: hist.New()}
	}
	b.add(h)
	return b
}
