package kv

import (
	"fmt"
	"io"
	"time"

	"github.com/ybbench/ybbench/bench"
)

// MetricsLine formats yb-sample-apps' periodic line (MetricsTracker through
// log4j's BasicConfigurator layout, spec kv §10.1):
//
//	<ms since start> [Thread-1] INFO com.yugabyte.sample.common.metrics.MetricsTracker  - Read: <ops/s> ops/sec (<ms/op> ms/op), <total> total ops  |  Write: …  |  Uptime: <ms> ms | maxWrittenKey: <n> | maxGeneratedKey: <n> |
//
// ops/sec is the window's successful operations per second; ms/op is the
// window's latency sum (ns, each batch counted once per key) divided by
// 10^6 with integer division, then by the operations — the reference's
// arithmetic.
func MetricsLine(sinceStart time.Duration, read, write Window, uptime time.Duration, maxWritten, maxGenerated int64) string {
	return fmt.Sprintf("%d [Thread-1] INFO com.yugabyte.sample.common.metrics.MetricsTracker  - %s  |  %s  |  Uptime: %d ms | maxWrittenKey: %d | maxGeneratedKey: %d | ",
		sinceStart.Milliseconds(), read.format("Read"), write.format("Write"), uptime.Milliseconds(), maxWritten, maxGenerated)
}

// Window is one metric over one window of the metrics line.
type Window struct {
	Ops, LatencyNanos, Total int64
	Elapsed                  time.Duration
}

func (w Window) format(name string) string {
	var opsPerSec, msPerOp float64
	if w.Elapsed > 0 {
		opsPerSec = float64(w.Ops) * 1e9 / float64(w.Elapsed.Nanoseconds())
	}
	if w.Ops > 0 {
		msPerOp = float64(w.LatencyNanos/1_000_000) / float64(w.Ops)
	}
	return fmt.Sprintf("%s: %.2f ops/sec (%.2f ms/op), %d total ops", name, opsPerSec, msPerOp, w.Total)
}

// MetricsSink prints the metrics line every interval (5 s, as the
// reference) from the workers' own counters, and once more at the end for
// the last partial window (the reference's daemon thread never prints it).
type MetricsSink struct {
	w            io.Writer
	wl           *Workload
	keys         *KeyGen
	processStart time.Time
	every        time.Duration

	start, last time.Time
	prev        Counts
}

// NewMetricsSink prints wl's metrics to w; processStart is the agent's
// start (log4j's relative time).
func NewMetricsSink(w io.Writer, wl *Workload, keys *KeyGen, processStart time.Time, every time.Duration) *MetricsSink {
	return &MetricsSink{w: w, wl: wl, keys: keys, processStart: processStart, every: every}
}

// Begin notes the phase's start.
func (m *MetricsSink) Begin(info *bench.RunInfo) error {
	m.start, m.last = info.Start, info.Start
	return nil
}

// Tick prints a line once a whole interval has passed since the last one.
func (m *MetricsSink) Tick(iv *bench.Interval) error {
	if iv.Final || iv.End.Sub(m.last) < m.every {
		return nil
	}
	return m.print(iv.End)
}

// End prints the last partial window.
func (m *MetricsSink) End(res *bench.Result) error {
	if res.End.After(m.last) {
		return m.print(res.End)
	}
	return nil
}

func (m *MetricsSink) print(now time.Time) error {
	c := m.wl.Snapshot()
	el := now.Sub(m.last)
	read := Window{Ops: c.ReadOps - m.prev.ReadOps, LatencyNanos: c.ReadNanos - m.prev.ReadNanos, Total: c.ReadOps, Elapsed: el}
	write := Window{Ops: c.WriteOps - m.prev.WriteOps, LatencyNanos: c.WriteNanos - m.prev.WriteNanos, Total: c.WriteOps, Elapsed: el}
	m.prev, m.last = c, now
	_, err := fmt.Fprintln(m.w, MetricsLine(now.Sub(m.processStart), read, write, now.Sub(m.start), m.keys.MaxWritten(), m.keys.MaxGenerated()))
	return err
}
