package ycsb

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/record/hist"
)

// StatusSink prints YCSB's status line (-s) every status.interval seconds
// and once at the end, to w (stderr): the operations done, the current
// rate, the estimated time to completion and, per measurement, the
// HdrHistogram summary of the interval since the previous line.
type StatusSink struct {
	w        io.Writer
	label    string
	every    time.Duration
	mode     IntervalMode
	typ      MeasurementType
	now      func() time.Time // wall clock for the timestamp (tests fix it)
	acc      []*bench.OpStats // since the previous line
	warmAcc  []*bench.OpStats
	seen     map[string]bool
	quota    int64
	next     time.Duration
	lastOps  int64
	lastAt   time.Duration
	warmDone int64
}

// NewStatusSink prints to w every `every` with the given label.
func NewStatusSink(w io.Writer, label string, every time.Duration, mode IntervalMode, typ MeasurementType) *StatusSink {
	return &StatusSink{w: w, label: label, every: every, mode: mode, typ: typ, now: time.Now, seen: map[string]bool{}}
}

// Begin prints the first line, before any operation, as YCSB's status
// thread does when it starts.
func (s *StatusSink) Begin(info *bench.RunInfo) error {
	for _, q := range info.Quotas {
		s.quota += q
	}
	if info.Quotas == nil && info.Config.SharedQuota {
		s.quota = info.Config.Operations
	}
	s.next = s.every
	mk := func() []*bench.OpStats {
		out := make([]*bench.OpStats, len(info.Catalog.Ops))
		for i, n := range info.Catalog.Ops {
			out[i] = bench.NewOpStats(bench.Op(i), n, len(info.Catalog.Statuses), false)
		}
		return out
	}
	s.acc, s.warmAcc = mk(), mk()
	return s.print(0, 0, s.quota, false)
}

// Tick accumulates the interval and prints a line when one is due.
func (s *StatusSink) Tick(iv *bench.Interval) error {
	warm := false
	for i, o := range iv.Warmup {
		if !o.Empty() {
			warm = true
		}
		s.warmAcc[i].Merge(o)
	}
	for i, o := range iv.Measured {
		s.acc[i].Merge(o)
	}
	if !iv.Final && iv.Elapsed < s.next {
		return nil
	}
	for iv.Elapsed >= s.next {
		s.next += s.every
	}
	acc := s.acc
	if warm && iv.Done == 0 {
		// During warm-up, show the warm-up's progress, marked as such.
		acc = s.warmAcc
		for _, o := range iv.Warmup {
			s.warmDone += o.Count() + o.Failed()
		}
	}
	line := s.render(iv.Elapsed, iv.Done, iv.Todo, acc, warm && iv.Done == 0)
	for _, a := range [][]*bench.OpStats{s.acc, s.warmAcc} {
		for _, o := range a {
			o.Reset()
		}
	}
	_, err := io.WriteString(s.w, line)
	return err
}

// End prints nothing: the final interval already printed the last line.
func (s *StatusSink) End(*bench.Result) error { return nil }

func (s *StatusSink) print(elapsed time.Duration, done, todo int64, warm bool) error {
	_, err := io.WriteString(s.w, s.render(elapsed, done, todo, nil, warm))
	return err
}

// render builds one status line (StatusThread.computeStats).
func (s *StatusSink) render(elapsed time.Duration, done, todo int64, acc []*bench.OpStats, warm bool) string {
	var b strings.Builder
	b.WriteString(s.label)
	now := s.now()
	fmt.Fprintf(&b, "%s:%03d", now.Format("2006-01-02 15:04:05"), now.Nanosecond()/1e6)
	ms := elapsed.Milliseconds()
	fmt.Fprintf(&b, " %d sec: %d operations; ", ms/1000, done)
	if done != 0 {
		cur := 1000.0 * float64(done-s.lastOps) / float64(ms-s.lastAt.Milliseconds())
		b.WriteString(JavaDecimal2(cur))
		b.WriteString(" current ops/sec; ")
	}
	if todo != 0 {
		throughput := 1000.0 * (float64(done) / float64(ms))
		b.WriteString("est completion in ")
		b.WriteString(remaining(javaD2L(math.Ceil(float64(todo) / throughput))))
	}
	s.lastOps, s.lastAt = done, elapsed
	if acc != nil {
		for _, m := range measurementSet(acc, s.mode, nil) {
			s.seen[m.key+"\x00"+m.name] = true
		}
		// Measurements seen earlier stay in every later line, empty or not,
		// as YCSB's measurement objects do once created.
		for _, m := range s.withSeen(acc) {
			b.WriteString(s.summary(m))
			b.WriteByte(' ')
		}
	}
	if warm {
		b.WriteString("(warm-up, excluded from the results) ")
	}
	b.WriteByte('\n')
	return b.String()
}

// withSeen returns the measurements of acc plus empty ones for names seen in
// earlier lines, in YCSB's map order.
func (s *StatusSink) withSeen(acc []*bench.OpStats) []*measurement {
	cur := measurementSet(acc, s.mode, nil)
	have := map[string]bool{}
	for _, m := range cur {
		have[m.key+"\x00"+m.name] = true
	}
	var op, in []*measurement
	for _, m := range cur {
		if strings.HasPrefix(m.name, "Intended-") || (s.mode == IntervalIntended) {
			in = append(in, m)
		} else {
			op = append(op, m)
		}
	}
	for k := range s.seen {
		if have[k] {
			continue
		}
		key, name, _ := strings.Cut(k, "\x00")
		m := &measurement{key: key, name: name, h: hist.New()}
		if strings.HasPrefix(name, "Intended-") || s.mode == IntervalIntended {
			in = append(in, m)
		} else {
			op = append(op, m)
		}
	}
	return append(chmOrder(op), chmOrder(in)...)
}

// summary is OneMeasurementHdrHistogram.getSummary over the interval (and,
// for hdrhistogram+raw, OneMeasurementRaw's after a newline).
func (s *StatusSink) summary(m *measurement) string {
	name := m.name
	switch s.typ {
	case MeasureHDRRaw:
		return hdrSummary("Hdr"+name, m) + "\n" + rawSummary("Raw"+name, m)
	case MeasureRaw:
		return rawSummary(name, m)
	}
	return hdrSummary(name, m)
}

func hdrSummary(name string, m *measurement) string {
	h := m.h
	n := h.Count()
	var max, min int64 = h.Max(), h.Min()
	mean := h.Mean()
	if n == 0 { // HdrHistogram 2.1.4 on an empty interval
		min, mean = math.MaxInt64, math.NaN()
	}
	d := func(v int64) string { return JavaDecimal2(float64(v)) }
	return fmt.Sprintf("[%s: Count=%d, Max=%d, Min=%d, Avg=%s, 90=%s, 99=%s, 99.9=%s, 99.99=%s]",
		name, n, max, min, JavaDecimal2(mean), d(h.Percentile(90)), d(h.Percentile(99)), d(h.Percentile(99.9)), d(h.Percentile(99.99)))
}

func rawSummary(name string, m *measurement) string {
	n := m.h.Count()
	avg := m.h.Mean()
	if n == 0 {
		avg = math.NaN()
	}
	return fmt.Sprintf("%s count: %d, average latency(us): %.2f", name, n, avg)
}

// remaining is YCSB's RemainingFormatter, quirks included: minutes only
// under a day, seconds only when nothing else was printed, and "second"
// singular whenever the number has one digit.
func remaining(seconds int64) string {
	var b strings.Builder
	days := seconds / 86400
	if days > 0 {
		fmt.Fprintf(&b, "%d %s ", days, plural(days, "day"))
		seconds -= days * 86400
	}
	hours := seconds / 3600
	if hours > 0 {
		fmt.Fprintf(&b, "%d %s ", hours, plural(hours, "hour"))
		seconds -= hours * 3600
	}
	if days < 1 {
		minutes := seconds / 60
		if minutes > 0 {
			fmt.Fprintf(&b, "%d %s ", minutes, plural(minutes, "minute"))
			seconds -= seconds * 60 // YCSB subtracts the seconds times 60 here
		}
	}
	if b.Len() == 0 {
		num := fmt.Sprint(seconds)
		if len(num) == 1 {
			b.WriteString(num + " second ")
		} else {
			b.WriteString(num + " seconds ")
		}
	}
	return b.String()
}

func plural(n int64, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}
