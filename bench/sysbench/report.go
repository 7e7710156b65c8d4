package sysbench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The text reports follow sysbench's layout line for line (spec §9), so
// scripts that parse sysbench's output read ybload's unchanged. Only the
// first line names the tool.

// Header is what the run's header says.
type Header struct {
	Tool           string // the first line
	Mode           Mode
	Threads        int
	Warmup, Rate   int64
	ReportInterval int64
	// Endless is set when --events and --time are both 0: sysbench warns
	// before anything else.
	Endless bool
	Seed    uint64 // --rand-seed as given (0: from the time)
	Hosts   []string
	// Debug and Validate are --debug and --validate: each a line of its
	// own, then a blank one, as sysbench prints them.
	Debug, Validate bool
}

// ToolLine is the first line of every output.
func ToolLine(version string, m Mode) string {
	if m == Mode1020 {
		return fmt.Sprintf("ybload %s (sysbench-compatible: stock sysbench 1.0.20)", version)
	}
	return fmt.Sprintf("ybload %s (sysbench-compatible: YugabyteDB fork of sysbench, 1.1.0)", version)
}

// WriteHeader writes the lines sysbench prints before the run.
func WriteHeader(w io.Writer, h *Header) {
	var b strings.Builder
	if h.Endless {
		b.WriteString("WARNING: Both event and time limits are disabled, running an endless test\n")
	}
	fmt.Fprintf(&b, "%s\n\nRunning the test with following options:\nNumber of threads: %d\n", h.Tool, h.Threads)
	if h.Warmup > 0 {
		fmt.Fprintf(&b, "Warmup time: %ds\n", h.Warmup)
	}
	if h.Rate > 0 {
		fmt.Fprintf(&b, "Target transaction rate: %d/sec\n", h.Rate)
	}
	if h.ReportInterval > 0 {
		fmt.Fprintf(&b, "Report intermediate results every %d second(s)\n", h.ReportInterval)
	}
	if h.Debug {
		b.WriteString("Debug mode enabled.\n\n")
	}
	if h.Validate {
		b.WriteString("Validation checks: on.\n\n")
	}
	if h.Seed == 0 {
		b.WriteString("Initializing random number generator from current time\n")
	} else {
		fmt.Fprintf(&b, "Initializing random number generator from seed (%d).\n", h.Seed)
	}
	b.WriteString("\n\nInitializing worker threads...\n\n")
	io.WriteString(w, b.String())
}

// WriteStarted writes the lines printed once the threads are ready.
func WriteStarted(w io.Writer, h *Header) {
	var b strings.Builder
	if h.Mode == ModeFork {
		// The fork's driver logs "Server Endpoint: %s " with a trailing
		// space, kept for scripts that match the whole line.
		for _, host := range h.Hosts {
			fmt.Fprintf(&b, "Server Endpoint: %s \n", host)
		}
	}
	b.WriteString("Threads started!\n\n")
	if h.Warmup > 0 && h.Mode == ModeFork {
		// A blank line follows, as the fork prints it.
		fmt.Fprintf(&b, "Warming up for %d seconds...\n\n", h.Warmup)
	}
	io.WriteString(w, b.String())
}

// Interval is one intermediate report line's figures.
type Interval struct {
	Seconds                     float64 // since the start of the measurement
	Threads                     int     // threads still running
	TPS, QPS, Read, Write, Othr float64 // per second
	Percentile                  int
	LatencyMs                   float64
	ErrPS, ReconnPS             float64
	// Queue and Concurrency are set with --rate.
	Rated              bool
	Queue, Concurrency int64
}

// WriteInterval writes sysbench's intermediate line(s).
func WriteInterval(w io.Writer, iv *Interval) {
	s := fmt.Sprintf("[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%d%%): %4.2f err/s: %4.2f reconn/s: %4.2f\n",
		iv.Seconds, iv.Threads, iv.TPS, iv.QPS, iv.Read, iv.Write, iv.Othr, iv.Percentile, iv.LatencyMs, iv.ErrPS, iv.ReconnPS)
	if iv.Rated {
		s += fmt.Sprintf("[ %.0fs ] queue length: %d, concurrency: %d\n", iv.Seconds, iv.Queue, iv.Concurrency)
	}
	io.WriteString(w, s)
}

// Final is the final report's figures.
type Final struct {
	Mode   Mode
	Totals Totals
	// Seconds is the measured time: from the end of warm-up (or the start)
	// to the moment every thread had finished.
	Seconds float64
	// Percentile is --percentile (0: disabled) and PercentileMs its value
	// from sysbench's histogram.
	Percentile   int
	PercentileMs float64
	// Threads fairness.
	EventsAvg, EventsStddev, TimeAvg, TimeStddev float64
	// Histogram is printed first when set (--histogram).
	Histogram *sbCounts
}

// WriteFinal writes sysbench's final report (spec §9.3): SQL statistics,
// Throughput (the fork) or General statistics (1.0.20), Latency, Threads
// fairness. A lost-connection line follows reconnects only when a lost
// connection was reconnected (ybload's own counter).
func WriteFinal(w io.Writer, f *Final) {
	var b strings.Builder
	if f.Histogram != nil {
		writeHistogram(&b, f.Histogram)
	}
	t := f.Totals
	per := func(n int64) float64 {
		if f.Seconds <= 0 {
			return 0
		}
		return float64(n) / f.Seconds
	}
	line := func(label string, format string, a ...any) {
		fmt.Fprintf(&b, "%-41s"+format+"\n", append([]any{label}, a...)...)
	}
	b.WriteString("SQL statistics:\n    queries performed:\n")
	line("        read:", "%d", t.Reads)
	line("        write:", "%d", t.Writes)
	line("        other:", "%d", t.Other)
	line("        total:", "%d", t.Queries())
	line("    transactions:", "%-6d (%.2f per sec.)", t.Events, per(t.Events))
	line("    queries:", "%-6d (%.2f per sec.)", t.Queries(), per(t.Queries()))
	line("    ignored errors:", "%-6d (%.2f per sec.)", t.Errors, per(t.Errors))
	line("    reconnects:", "%-6d (%.2f per sec.)", t.Reconnects, per(t.Reconnects))
	if t.Lost > 0 {
		line("    lost connections reconnected:", "%-6d (%.2f per sec.)", t.Lost, per(t.Lost))
	}
	b.WriteString("\n")
	if f.Mode == Mode1020 {
		b.WriteString("General statistics:\n")
		line("    total time:", "%.4fs", f.Seconds)
		line("    total number of events:", "%d", t.Events)
	} else {
		b.WriteString("Throughput:\n")
		line("    events/s (eps):", "%.4f", per(t.Events))
		line("    time elapsed:", "%.4fs", f.Seconds)
		line("    total number of events:", "%d", t.Events)
	}
	var avg float64
	if t.Events > 0 {
		avg = float64(t.LatSumNs/t.Events) / 1e6 // sysbench divides in integer nanoseconds
	}
	b.WriteString("\nLatency (ms):\n")
	fmt.Fprintf(&b, "         min:%40.2f\n", float64(t.LatMinNs)/1e6)
	fmt.Fprintf(&b, "         avg:%40.2f\n", avg)
	fmt.Fprintf(&b, "         max:%40.2f\n", float64(t.LatMaxNs)/1e6)
	if f.Percentile > 0 {
		fmt.Fprintf(&b, "        %3dth percentile:%28.2f\n", f.Percentile, f.PercentileMs)
	} else {
		b.WriteString("         percentile stats:               disabled\n")
	}
	fmt.Fprintf(&b, "         sum:%40.2f\n", float64(t.LatSumNs)/1e6)
	b.WriteString("\nThreads fairness:\n")
	fmt.Fprintf(&b, "    events (avg/stddev):           %.4f/%3.2f\n", f.EventsAvg, f.EventsStddev)
	fmt.Fprintf(&b, "    execution time (avg/stddev):   %.4f/%3.2f\n\n", f.TimeAvg, f.TimeStddev)
	io.WriteString(w, b.String())
}

// writeHistogram writes sysbench's --histogram block: one line per
// non-empty bucket with a bar of up to 40 stars.
func writeHistogram(b *strings.Builder, c *sbCounts) {
	b.WriteString("Latency histogram (values are in milliseconds)\n")
	b.WriteString("       value  ------------- distribution ------------- count\n")
	var top uint64
	for _, n := range c {
		top = max(top, n)
	}
	for i, n := range c {
		if n == 0 {
			continue
		}
		stars := int(math.Round(float64(n) * 40 / float64(top)))
		fmt.Fprintf(b, "%12.3f |%-40s %d\n", sbValue(i), strings.Repeat("*", stars), n)
	}
	b.WriteString(" \n")
}
