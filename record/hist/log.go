package hist

import (
	"fmt"
	"io"
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
	base time.Time
}

// NewIntervalLog writes the log's header to w: the format version, the
// comments (one line each), the start and base time (start cut to the
// whole second, since the header holds whole seconds and interval times
// are relative to it) and the column legend.
func NewIntervalLog(w io.Writer, start time.Time, comments ...string) (*IntervalLog, error) {
	base := start.Truncate(time.Second)
	l := &IntervalLog{w: hdrhistogram.NewHistogramLogWriter(w), base: base}
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
	if start.Before(l.base) {
		return fmt.Errorf("interval log: interval at %s starts before the log's base time %s", start.Format(time.RFC3339Nano), l.base.Format(time.RFC3339))
	}
	if strings.ContainsAny(tag, ", \r\n") {
		return fmt.Errorf("interval log: tag %q has a comma, space or line break", tag)
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
