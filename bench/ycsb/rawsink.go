package ycsb

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ybbench/ybbench/bench"
)

// RawSink writes every latency as YCSB's raw measurement does
// ("NAME,<epoch ms>,<µs>", after a "NAME latency raw data: …" header for
// each name), as the samples are drained rather than at the end, and keeps
// them for the raw summary's exact percentiles.
type RawSink struct {
	w      *bufio.Writer
	mode   IntervalMode
	typ    MeasurementType
	names  []string
	header map[string]bool
	values map[string][]uint32
	// notice is where YCSB's OneMeasurementRaw announces itself (stdout)
	// when a measurement name first appears, nil when the datapoints go to
	// stdout as well; noticeText is its line.
	notice     io.Writer
	noticeText string
}

// NewRawSink writes the datapoints to w (file is its path, "" when w is
// stdout) and each measurement's "Raw data measurement: …" line to
// stdout, as YCSB does whichever the datapoints go to.
func NewRawSink(w io.Writer, file string, stdout io.Writer, mode IntervalMode, typ MeasurementType) *RawSink {
	text, notice := "Raw data measurement: will output to stdout.\n", io.Writer(nil)
	if file != "" {
		text, notice = "Raw data measurement: will output to result file: "+file+"\n", stdout
	}
	return &RawSink{w: bufio.NewWriter(w), mode: mode, typ: typ, header: map[string]bool{}, values: map[string][]uint32{},
		notice: notice, noticeText: text}
}

// Begin remembers the measurement names.
func (r *RawSink) Begin(info *bench.RunInfo) error {
	r.names = info.Catalog.Ops
	return nil
}

// Tick writes the interval's samples.
func (r *RawSink) Tick(iv *bench.Interval) error {
	for _, s := range iv.Raw {
		if s.Warmup {
			continue
		}
		name := r.names[s.Op]
		if !s.OK && s.Op != OpVerify {
			name += "-FAILED"
		}
		if r.mode != IntervalIntended {
			r.emit("op:"+name, name, s.End.UnixMilli(), s.Service)
		}
		if r.mode != IntervalOp {
			display := name
			if r.mode == IntervalBoth {
				display = "Intended-" + name
			}
			r.emit("intended:"+name, display, s.End.UnixMilli(), s.Response)
		}
	}
	return r.w.Flush()
}

func (r *RawSink) emit(key, display string, ms int64, us int64) {
	if r.typ == MeasureHDRRaw {
		display = "Raw" + display
	}
	if !r.header[key] {
		r.header[key] = true
		// Through the same buffer when the datapoints go to stdout too,
		// so that the two keep their order.
		if r.notice == nil {
			r.w.WriteString(r.noticeText)
		} else {
			io.WriteString(r.notice, r.noticeText)
		}
		fmt.Fprintf(r.w, "%s latency raw data: op, timestamp(ms), latency(us)\n", display)
	}
	fmt.Fprintf(r.w, "%s,%d,%d\n", display, ms, us)
	r.values[key] = append(r.values[key], uint32(us))
}

// End flushes.
func (r *RawSink) End(*bench.Result) error { return r.w.Flush() }

// Values returns every latency per measurement key, for the report.
func (r *RawSink) Values() map[string][]uint32 { return r.values }
