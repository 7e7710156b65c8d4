package bench

import (
	"time"

	"github.com/ybbench/ybbench/record/hist"
)

// OpStats is what one measurement name accumulated over some span: an
// interval, the warm-up, or the whole measured window.
type OpStats struct {
	Op   Op
	Name string

	// Service holds latencies from the actual start of successful
	// measurements; Response from their intended start. Without a schedule
	// the two are the same and Response is nil.
	Service, Response *hist.Hist
	// ServiceFailed and ResponseFailed are the same for failed measurements
	// (nil until one fails).
	ServiceFailed, ResponseFailed *hist.Hist

	// Units counts the operations the successful measurements stand for
	// (Σ n: keys for a batch, 1 per measurement otherwise); UnitsFailed the same
	// for failures.
	Units, UnitsFailed int64
	// Statuses counts measurements per status, indexed by Status.
	Statuses []int64
	// Late counts measurements of operations that started late.
	Late int64
}

// Count is the number of successful measurements.
func (s *OpStats) Count() int64 { return s.Service.Count() }

// Failed is the number of failed measurements.
func (s *OpStats) Failed() int64 {
	if s.ServiceFailed == nil {
		return 0
	}
	return s.ServiceFailed.Count()
}

// Empty reports whether nothing was measured.
func (s *OpStats) Empty() bool { return s.Count() == 0 && s.Failed() == 0 }

// Overflow counts latencies above the histogram range.
func (s *OpStats) Overflow() int64 {
	n := s.Service.Overflow()
	if s.ServiceFailed != nil {
		n += s.ServiceFailed.Overflow()
	}
	return n
}

// NewOpStats makes an empty OpStats for measurement op of a catalog with
// nstatus statuses; scheduled adds the response-time histogram.
func NewOpStats(op Op, name string, nstatus int, scheduled bool) *OpStats {
	s := &OpStats{Op: op, Name: name, Service: hist.New(), Statuses: make([]int64, nstatus)}
	if scheduled {
		s.Response = hist.New()
	}
	return s
}

func (s *OpStats) add(x *sample, ok bool, scheduled bool) {
	if ok {
		s.Service.Record(int64(x.svc))
		if scheduled {
			s.Response.Record(int64(x.resp))
		}
		s.Units += int64(x.n)
	} else {
		if s.ServiceFailed == nil {
			s.ServiceFailed = hist.New()
			if scheduled {
				s.ResponseFailed = hist.New()
			}
		}
		s.ServiceFailed.Record(int64(x.svc))
		if scheduled {
			s.ResponseFailed.Record(int64(x.resp))
		}
		s.UnitsFailed += int64(x.n)
	}
	s.Statuses[x.st]++
	if x.flags&flagLate != 0 {
		s.Late++
	}
}

// Merge adds o into s.
func (s *OpStats) Merge(o *OpStats) {
	s.Service.Merge(o.Service)
	if o.Response != nil {
		if s.Response == nil {
			s.Response = hist.New()
		}
		s.Response.Merge(o.Response)
	}
	if o.ServiceFailed != nil {
		if s.ServiceFailed == nil {
			s.ServiceFailed = hist.New()
		}
		s.ServiceFailed.Merge(o.ServiceFailed)
	}
	if o.ResponseFailed != nil {
		if s.ResponseFailed == nil {
			s.ResponseFailed = hist.New()
		}
		s.ResponseFailed.Merge(o.ResponseFailed)
	}
	s.Units += o.Units
	s.UnitsFailed += o.UnitsFailed
	for i, n := range o.Statuses {
		s.Statuses[i] += n
	}
	s.Late += o.Late
}

// Reset empties s for reuse, keeping its histograms.
func (s *OpStats) Reset() {
	s.Service.Reset()
	for _, h := range []*hist.Hist{s.Response, s.ServiceFailed, s.ResponseFailed} {
		if h != nil {
			h.Reset()
		}
	}
	s.Units, s.UnitsFailed, s.Late = 0, 0, 0
	clear(s.Statuses)
}

// Interval is one tick's worth of measurements, handed to every Sink. Its
// histograms are reused by the next tick: a sink that keeps data must copy
// or merge it during the call.
type Interval struct {
	// Index counts ticks from 0.
	Index int
	// Start and End bound the interval on the wall clock.
	Start, End time.Time
	// Elapsed is End minus the run's start.
	Elapsed time.Duration
	// Measured holds the measurement names measured in this interval (after
	// warm-up), Warmup those measured during warm-up; both indexed by Op.
	Measured, Warmup []*OpStats
	// Done counts the outer operations completed so far outside warm-up,
	// across all workers; Todo what remains of their quotas (0 when unbounded).
	Done, Todo int64
	// Final is set on the last interval, drained after every worker ended.
	Final bool
	// Raw carries each sample of the interval when raw output is on.
	Raw []RawSample
}

// RawSample is one measurement, for YCSB's raw latency output.
type RawSample struct {
	Op      Op
	OK      bool
	Warmup  bool
	End     time.Time
	Service int64 // µs
	// Response is the latency from the intended start (µs); equal to Service
	// without a schedule.
	Response int64
}
