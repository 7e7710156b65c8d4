package hist

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// IntervalLog writes histograms as an HdrHistogram interval log (format
// 1.3, as the Java, C and Go HdrHistogram libraries write and read it):
// one line per interval histogram, each with its tag, its start relative
// to the log's base time and its length in seconds. Values stay in
// microseconds; the line's Interval_Max column is the maximum divided by
// 1,000,000 (the libraries' default unit ratio), so seconds.
type IntervalLog struct {
	w    *hdrhistogram.HistogramLogWriter
	out  io.Writer
	base time.Time
	// dec, enc and line serve AddEncoded, which writes a line per tick of
	// a run of hours: one of each for the whole log.
	dec  *Decoder
	enc  encoder
	line []byte
}

// NewIntervalLog writes the log's header to w: the format version, the
// comments (one line each), the start and base time (start cut to the
// whole second, since the header holds whole seconds and interval times
// are relative to it) and the column legend.
func NewIntervalLog(w io.Writer, start time.Time, comments ...string) (*IntervalLog, error) {
	base := start.Truncate(time.Second)
	l := &IntervalLog{w: hdrhistogram.NewHistogramLogWriter(w), out: w, base: base}
	l.w.SetBaseTime(base.UnixMilli())
	err := l.w.OutputLogFormatVersion()
	for _, c := range comments {
		if err == nil {
			err = l.w.OutputComment(strings.ReplaceAll(c, "\n", " "))
		}
	}
	if err == nil {
		err = l.w.OutputStartTime(base.UnixMilli())
	}
	if err == nil {
		err = l.w.OutputBaseTime(base.UnixMilli())
	}
	if err == nil {
		err = l.w.OutputLegend()
	}
	if err != nil {
		return nil, fmt.Errorf("write interval log header: %w", err)
	}
	return l, nil
}

// Add writes one interval's histogram with its tag (no commas, spaces or
// line breaks: the format has no quoting). An interval starting before the
// log's base time is refused, since the format has no negative times.
func (l *IntervalLog) Add(tag string, start, end time.Time, x *Hist) error {
	if err := l.check(tag, start); err != nil {
		return err
	}
	h := x.h.Clone()
	h.SetTag(tag)
	h.SetStartTimeMs(start.UnixMilli())
	h.SetEndTimeMs(end.UnixMilli())
	if err := l.w.OutputIntervalHistogram(h); err != nil {
		return fmt.Errorf("interval log: %s: %w", tag, err)
	}
	return nil
}

// AddEncoded writes one interval's histogram given as an agent wrote it
// (its encoding and overflow count), the line byte for byte what Add
// writes of the histogram Decode reads from it. It decodes the histogram
// once, into no dense histogram, and encodes it again through one zlib
// writer for the whole log. An encoding the Decoder leaves to the library
// goes through Decode and Add, as it always did.
func (l *IntervalLog) AddEncoded(tag string, start, end time.Time, s string, overflow int64) error {
	if l.dec == nil {
		l.dec = NewDecoder()
	}
	sp, err := l.dec.Decode(s, overflow)
	if err != nil || !l.dec.canonical {
		h, err := Decode(s, overflow)
		if err != nil {
			return err
		}
		return l.Add(tag, start, end, h)
	}
	if err := l.check(tag, start); err != nil {
		return err
	}
	// The line as the library's log writer prints it ("%s%f,%f,%f,%s\n"):
	// times relative to the base in seconds, the maximum over the default
	// unit ratio. %f of a finite number is AppendFloat's 'f' to 6 places.
	l.line = l.line[:0]
	if tag != "" {
		l.line = append(append(append(l.line, "Tag="...), tag...), ',')
	}
	base := float64(l.base.UnixMilli())
	from, to := (float64(start.UnixMilli())-base)/1000.0, (float64(end.UnixMilli())-base)/1000.0
	for _, f := range []float64{from, to - from, float64(sp.Max()) / hdrhistogram.MsToNsRatio} {
		l.line = append(strconv.AppendFloat(l.line, f, 'f', 6, 64), ',')
	}
	l.line = append(append(l.line, l.enc.encode(l.dec.idx, l.dec.cnt)...), '\n')
	if _, err := l.out.Write(l.line); err != nil {
		return fmt.Errorf("interval log: %s: %w", tag, err)
	}
	return nil
}

// check refuses what the format cannot hold: an interval before the
// log's base time, a tag with a comma, space or line break.
func (l *IntervalLog) check(tag string, start time.Time) error {
	if start.Before(l.base) {
		return fmt.Errorf("interval log: interval at %s starts before the log's base time %s", start.Format(time.RFC3339Nano), l.base.Format(time.RFC3339))
	}
	if strings.ContainsAny(tag, ", \r\n") {
		return fmt.Errorf("interval log: tag %q has a comma, space or line break", tag)
	}
	return nil
}
