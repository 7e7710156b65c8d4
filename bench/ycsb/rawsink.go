package ycsb

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

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
	series []rawSeries // indexed by rawIndex
	line   []byte      // the datapoint being formatted
	// notice is where YCSB's OneMeasurementRaw announces itself (stdout)
	// when a measurement name first appears, nil when the datapoints go to
	// stdout as well; noticeText is its line.
	notice     io.Writer
	noticeText string
}

// rawSeries is one measurement key's output: a name, failed or not, from
// the actual or the intended start. Its strings are built once, when its
// first sample arrives, so that a sample costs no allocation.
type rawSeries struct {
	started bool
	key     string // the Values key: "op:NAME" or "intended:NAME"
	display string // the datapoints' first column
	values  []uint32
}

// rawIndex is the series of measurement op, failed or not, intended or not.
func rawIndex(op bench.Op, failed, intended bool) int {
	i := int(op) * 4
	if failed {
		i += 2
	}
	if intended {
		i++
	}
	return i
}

// NewRawSink writes the datapoints to w (file is its path, "" when w is
// stdout) and each measurement's "Raw data measurement: …" line to
// stdout, as YCSB does whichever the datapoints go to.
func NewRawSink(w io.Writer, file string, stdout io.Writer, mode IntervalMode, typ MeasurementType) *RawSink {
	text, notice := "Raw data measurement: will output to stdout.\n", io.Writer(nil)
	if file != "" {
		text, notice = "Raw data measurement: will output to result file: "+file+"\n", stdout
	}
	return &RawSink{w: bufio.NewWriter(w), mode: mode, typ: typ, notice: notice, noticeText: text}
}

// Begin remembers the measurement names.
func (r *RawSink) Begin(info *bench.RunInfo) error {
	r.names = info.Catalog.Ops
	r.series = make([]rawSeries, 4*len(r.names))
	return nil
}

// Tick writes the interval's samples.
func (r *RawSink) Tick(iv *bench.Interval) error {
	for _, s := range iv.Raw {
		if s.Warmup {
			continue
		}
		failed := !s.OK && s.Op != OpVerify
		ms := s.End.UnixMilli()
		if r.mode != IntervalIntended {
			r.emit(rawIndex(s.Op, failed, false), ms, s.Service)
		}
		if r.mode != IntervalOp {
			r.emit(rawIndex(s.Op, failed, true), ms, s.Response)
		}
	}
	return r.w.Flush()
}

func (r *RawSink) emit(i int, ms int64, us int64) {
	x := &r.series[i]
	if !x.started {
		r.start(x, i)
	}
	r.line = append(r.line[:0], x.display...)
	r.line = append(r.line, ',')
	r.line = strconv.AppendInt(r.line, ms, 10)
	r.line = append(r.line, ',')
	r.line = strconv.AppendInt(r.line, us, 10)
	r.line = append(r.line, '\n')
	r.w.Write(r.line)
	x.values = append(x.values, uint32(us))
}

// start names series i and writes its header, when its first sample comes.
func (r *RawSink) start(x *rawSeries, i int) {
	name := r.names[i/4]
	if i&2 != 0 {
		name += "-FAILED"
	}
	x.started, x.key, x.display = true, "op:"+name, name
	if i&1 != 0 {
		x.key = "intended:" + name
		if r.mode == IntervalBoth {
			x.display = "Intended-" + name
		}
	}
	if r.typ == MeasureHDRRaw {
		x.display = "Raw" + x.display
	}
	// Through the same buffer when the datapoints go to stdout too,
	// so that the two keep their order.
	if r.notice == nil {
		r.w.WriteString(r.noticeText)
	} else {
		io.WriteString(r.notice, r.noticeText)
	}
	fmt.Fprintf(r.w, "%s latency raw data: op, timestamp(ms), latency(us)\n", x.display)
}

// End flushes.
func (r *RawSink) End(*bench.Result) error { return r.w.Flush() }

// Values returns every latency per measurement key, for the report.
func (r *RawSink) Values() map[string][]uint32 {
	out := map[string][]uint32{}
	for _, x := range r.series {
		if x.started {
			out[x.key] = x.values
		}
	}
	return out
}
