// Package hist holds the latency histograms every ybbench agent uses.
//
// All agents use one geometry — values in microseconds from 1 µs to 1 h with
// three significant digits — so that histograms written by different agents,
// on different machines, merge exactly by adding counts. A value above the
// range is recorded at the maximum and counted as an overflow, never dropped.
package hist

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry shared by every agent. Changing any of these breaks merging
// with records written before the change.
const (
	Lowest  = 1             // µs
	Highest = 3_600_000_000 // µs: one hour
	SigFigs = 3
)

// Hist is an HDR histogram of latencies in microseconds with an overflow
// counter. The zero value is not usable; call New.
type Hist struct {
	h        *hdrhistogram.Histogram
	overflow int64
}

// New returns an empty histogram with the shared geometry.
func New() *Hist { return &Hist{h: hdrhistogram.New(Lowest, Highest, SigFigs)} }

// Record adds one value (µs). Negative values are recorded as 0 and values
// above Highest as Highest (counted in Overflow).
func (x *Hist) Record(us int64) { x.RecordN(us, 1) }

// RecordN adds n occurrences of a value (µs).
func (x *Hist) RecordN(us, n int64) {
	if us < 0 {
		us = 0
	} else if us > Highest {
		us = Highest
		x.overflow += n
	}
	// Cannot fail: the value is in range and totals cannot realistically overflow int64.
	_ = x.h.RecordValues(us, n)
}

// Merge adds every count of o into x.
func (x *Hist) Merge(o *Hist) {
	if o == nil {
		return
	}
	x.h.Merge(o.h)
	x.overflow += o.overflow
}

// Reset empties the histogram.
func (x *Hist) Reset() { x.h.Reset(); x.overflow = 0 }

// Count is the number of recorded values.
func (x *Hist) Count() int64 { return x.h.TotalCount() }

// Overflow is the number of values that were above the range.
func (x *Hist) Overflow() int64 { return x.overflow }

// Mean is the mean of the recorded values (HDR median-equivalent values, as
// Java HdrHistogram computes it); 0 when empty.
func (x *Hist) Mean() float64 { return x.h.Mean() }

// JavaMean is the mean as Java HdrHistogram 2.1.4's getMean computes it,
// the figure YCSB prints as AverageLatency(us): per recorded bucket, in
// ascending order, the integer product of its median-equivalent value and
// its count added into a double, divided once by the total count.
// hdrhistogram-go's Mean divides each term, which changes the last digits
// of most means. 0 when empty.
func (x *Hist) JavaMean() float64 {
	n := x.h.TotalCount()
	if n == 0 {
		return 0
	}
	var total float64
	for _, b := range x.h.Distribution() {
		if b.Count == 0 {
			continue
		}
		median := b.From + (b.To-b.From+1)>>1
		total += float64(median * b.Count)
	}
	return total / float64(n)
}

// Min is the lowest equivalent value of the smallest recorded value (0 if a
// zero was recorded, as Java HdrHistogram reports it); 0 when empty.
func (x *Hist) Min() int64 {
	if x.h.TotalCount() == 0 {
		return 0
	}
	return x.h.ValueAtPercentile(0)
}

// Max is the highest equivalent value of the largest recorded value; 0 when empty.
func (x *Hist) Max() int64 {
	if x.h.TotalCount() == 0 {
		return 0
	}
	return x.h.Max()
}

// Percentile returns the value at percentile p (0..100), with HdrHistogram's
// round-to-nearest rank (the rule of Java HdrHistogram 2.1.4, which YCSB uses).
func (x *Hist) Percentile(p float64) int64 { return x.h.ValueAtPercentile(p) }

// Stats are the figures every summary shows of a histogram, in
// microseconds, with the JSON names the agents' summaries use.
type Stats struct {
	MeanUS float64 `json:"mean_us"`
	MinUS  int64   `json:"min_us"`
	P50US  int64   `json:"p50_us"`
	P95US  int64   `json:"p95_us"`
	P99US  int64   `json:"p99_us"`
	P999US int64   `json:"p99_9_us"`
	MaxUS  int64   `json:"max_us"`
}

// Stats computes the summary figures in one pass over the buckets.
func (x *Hist) Stats() Stats {
	if x.h.TotalCount() == 0 {
		return Stats{}
	}
	v := x.h.ValueAtPercentilesSlice([]float64{0, 50, 95, 99, 99.9})
	return Stats{MeanUS: x.h.Mean(), MinUS: v[0], P50US: v[1], P95US: v[2], P99US: v[3], P999US: v[4], MaxUS: x.h.Max()}
}

// Percentiles returns the values at several percentiles in one pass.
func (x *Hist) Percentiles(ps []float64) []int64 { return x.h.ValueAtPercentilesSlice(ps) }

// Equivalent reports whether two values fall in the same HDR bucket, i.e.
// agree within the histogram's precision.
func (x *Hist) Equivalent(a, b int64) bool { return x.h.ValuesAreEquivalent(a, b) }

// Clone returns an independent copy.
func (x *Hist) Clone() *Hist { return &Hist{h: x.h.Clone(), overflow: x.overflow} }

// Encode returns the standard HdrHistogram V2 compressed encoding, base64,
// readable by the Java, C and Go HdrHistogram libraries. The overflow count
// is not part of it; records carry it beside the histogram. The bytes are
// the library's own encoder's, written through a zlib writer kept between
// calls (the library makes one, some 800 KB, for every histogram, and an
// agent encodes one per operation every second); the error is always nil.
func (x *Hist) Encode() (string, error) {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	return string(e.encodeDense(x.h)), nil
}

// Encoder encodes histograms as Encode does, appending to a caller's
// buffer, and keeps its buffers and zlib writer for its owner alone: a
// record writer encodes every tick's histograms straight into its line
// this way, making no string of each and never waiting on a pool (which
// may drop what it was given, and under the race detector does so on
// purpose). An agent writes one or more every tick for hours, and garbage
// made at every tick is what its memory follows between collections. Its
// zero value is ready; it is not for concurrent use.
type Encoder struct{ e encoder }

// Append appends h's encoding, Encode's string, to b.
func (c *Encoder) Append(b []byte, h *Hist) []byte { return append(b, c.e.encodeDense(h.h)...) }

// Decode reads a histogram written by Encode. A histogram with another
// geometry is refused, since it could not merge exactly.
func Decode(s string, overflow int64) (*Hist, error) {
	h, err := decode(s)
	if err != nil {
		return nil, err
	}
	if h.HighestTrackableValue() == Highest {
		// The shared geometry exactly: the decoded histogram is one New
		// would make, and is kept as it is rather than copied (a reader
		// of every tick of a run decodes thousands).
		return &Hist{h: h, overflow: overflow}, nil
	}
	out := New()
	out.h.Merge(h)
	out.overflow = overflow
	return out, nil
}

// decode reads an encoded histogram and checks that it merges exactly
// into one of the shared geometry.
func decode(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if err := checkGeometry(h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()); err != nil {
		return nil, err
	}
	return h, nil
}

// checkGeometry refuses a histogram that would not merge exactly into one
// of the shared geometry.
func checkGeometry(lowest, highest, sigFigs int64) error {
	if lowest != Lowest || highest < Highest || sigFigs != SigFigs {
		return fmt.Errorf("decode histogram: geometry %d..%d µs, %d digits; want %d..%d µs, %d digits",
			lowest, highest, sigFigs, Lowest, Highest, SigFigs)
	}
	return nil
}
