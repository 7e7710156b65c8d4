package ycsb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/livemetrics"
)

// runOptions are the client-level settings of an invocation: how many
// threads run how fast for how long (YCSB's Client), what is measured and
// where it is written (Measurements, exporters), and ybload's own
// (ybload.*), kept apart from Config, which is CoreWorkload's alone.
type runOptions struct {
	threads     int
	target      int64
	maxTime     time.Duration
	warmup      time.Duration
	interval    time.Duration
	lateAfter   time.Duration
	grace       time.Duration
	status      bool
	statusEvery time.Duration
	label       string
	mode        IntervalMode
	typ         MeasurementType
	percentiles []float64
	rawFile     string
	exporter    string
	exportFile  string
	records     string
	summary     string
	agent       string
	seed        uint64
	seedSet     bool
	prepareOnly bool
	startAt     time.Time
	// metricsAddr is where the live metrics are served ("": off).
	metricsAddr string
}

// MaxThreads bounds threadcount, far above what a server accepts as
// connections, so a typo is an error rather than an out-of-memory crash.
const MaxThreads = 100000

// readRunOptions reads the client-level properties (YCSB's Client and
// Measurements) and ybload's own (ybload.*), reporting every problem.
func readRunOptions(p *Props) (*runOptions, error) {
	ro := &runOptions{}
	r := &propReader{p: p}
	if w := p.Get("workload", ""); w == "" {
		r.add(errors.New("Missing property: workload (give a workload file with -P, e.g. -P workloads/workloada)"))
	}
	ro.readLoad(r)
	ro.readTiming(r)
	ro.readMeasurements(r)
	ro.readOutputs(r)
	ro.readCoordination(r)
	return ro, errors.Join(r.errs...)
}

// readLoad reads how much load is offered: threads, rate and run length.
func (ro *runOptions) readLoad(r *propReader) {
	p := r.p
	threads, err := p.Int("threadcount", 1)
	ro.threads = int(threads)
	switch {
	case err != nil: // not an integer: said once
		r.add(err)
	case ro.threads < 1:
		r.bad("threadcount", "must be at least 1")
	case ro.threads > MaxThreads:
		r.bad("threadcount", fmt.Sprintf("must be at most %d (each thread is a connection)", MaxThreads))
	}
	ro.target = r.int("target", 0)
	if ro.target < 0 {
		r.bad("target", "must not be negative")
	}
	mt := r.int("maxexecutiontime", 0)
	if mt < 0 {
		r.bad("maxexecutiontime", "must not be negative")
	}
	ro.maxTime = time.Duration(mt) * time.Second
	wu := r.int("warmuptime", 0)
	if wu < 0 {
		r.bad("warmuptime", "must not be negative")
	}
	ro.warmup = time.Duration(wu) * time.Second
}

// readTiming reads how often the engine reports and how long it waits for
// operations in flight at the end.
func (ro *runOptions) readTiming(r *propReader) {
	p := r.p
	ro.interval = r.duration("ybload.interval", bench.DefaultInterval)
	if ro.interval <= 0 && p.Has("ybload.interval") {
		r.bad("ybload.interval", "must be positive")
	}
	ro.grace = r.duration("ybload.stop.grace", bench.DefaultGrace)
	ro.lateAfter = r.duration("ybload.late.after", bench.DefaultLateAfter)
	if ro.lateAfter <= 0 && p.Has("ybload.late.after") {
		r.bad("ybload.late.after", "must be positive")
	}
	ro.status = p.Bool("status", false)
	se := r.int("status.interval", 10)
	if se < 1 {
		r.bad("status.interval", "must be at least 1 second")
	}
	ro.statusEvery = time.Duration(se) * time.Second
	ro.label = p.Get("label", "")
}

// readMeasurements reads YCSB's Measurements settings, refusing those
// ybload does not implement rather than silently ignoring them.
func (ro *runOptions) readMeasurements(r *propReader) {
	p := r.p
	var err error
	if ro.mode, err = ParseIntervalMode(p.Get("measurement.interval", "op")); err != nil {
		r.bad("measurement.interval", err.Error())
	}
	if ro.typ, err = ParseMeasurementType(p.Get("measurementtype", "hdrhistogram")); err != nil {
		r.bad("measurementtype", err.Error())
	}
	if ro.percentiles, err = ParsePercentiles(p.Get("hdrhistogram.percentiles", "95,99")); err != nil {
		r.bad("hdrhistogram.percentiles", err.Error())
	}
	for _, k := range []string{"reportlatencyforeacherror", "measurement.trackjvm", "hdrhistogram.fileoutput"} {
		if p.Bool(k, false) {
			r.bad(k, "not supported by ybload")
		}
	}
	if p.Get("latencytrackederrors", "") != "" {
		r.bad("latencytrackederrors", "not supported by ybload")
	}
}

// readOutputs reads where the report, the raw latencies, the records, the
// summary and the live metrics go.
func (ro *runOptions) readOutputs(r *propReader) {
	p := r.p
	ro.rawFile = p.Get("measurement.raw.output_file", "")
	ro.exporter = p.Get("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter")
	ro.exportFile = p.Get("exportfile", "")
	ro.records = p.Get("ybload.records", "")
	ro.summary = p.Get("ybload.summary", "")
	ro.agent = p.Get("ybload.agent", agentutil.Hostname())
	if p.Has("ybload.metrics.addr") {
		a, err := livemetrics.ParseAddr(p.Get("ybload.metrics.addr", ""))
		if err != nil {
			r.bad("ybload.metrics.addr", err.Error())
		}
		ro.metricsAddr = a
	}
}

// readCoordination reads what the orchestrator sets to run several agents
// as one benchmark: prepare only, a common start instant, a known seed.
func (ro *runOptions) readCoordination(r *propReader) {
	p := r.p
	ro.prepareOnly = r.strictBool("ybload.prepare.only", false)
	if p.Has("ybload.start.at") {
		at, err := agentutil.ParseStartAt(p.Get("ybload.start.at", ""))
		if err != nil {
			r.bad("ybload.start.at", err.Error())
		}
		ro.startAt = at
	}
	if p.Has("ybload.seed") {
		s, err := strconv.ParseUint(strings.TrimSpace(p.Get("ybload.seed", "")), 10, 64)
		if err != nil {
			r.bad("ybload.seed", "want an unsigned integer")
		}
		ro.seed, ro.seedSet = s, true
	} else {
		ro.seed = uint64(time.Now().UnixNano())
	}
}
