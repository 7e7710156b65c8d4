package hist

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Sparse is a histogram in the library's sparse form: its populated
// buckets only, where a dense histogram of the shared geometry is 184 KB.
// A reader of every tick of a run merges thousands, and keeps one per
// interval it has not finished.
type Sparse struct {
	p        *hdrhistogram.PackedHistogram
	overflow int64
}

// NewSparse returns an empty sparse histogram of the shared geometry, to
// merge others into.
func NewSparse() *Sparse { return &Sparse{p: hdrhistogram.NewPacked(Lowest, Highest, SigFigs)} }

// DecodeSparse reads a histogram written by Encode, with its overflow count,
// for merging. A histogram with another geometry is refused, as by Decode.
func DecodeSparse(s string, overflow int64) (*Sparse, error) {
	p, err := hdrhistogram.DecodePacked([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if err := checkGeometry(p.LowestTrackableValue(), p.HighestTrackableValue(), p.SignificantFigures()); err != nil {
		return nil, err
	}
	return &Sparse{p: p, overflow: overflow}, nil
}

// Reset empties the histogram, keeping its storage for the next use.
func (s *Sparse) Reset() { s.p.Reset(); s.overflow = 0 }

// Merge adds every count of o into s, as MergeSparse adds them into a
// dense histogram: index to index, values above s's range dropped.
func (s *Sparse) Merge(o *Sparse) {
	s.p.Merge(o.p)
	s.overflow += o.overflow
}

// Count is the number of recorded values.
func (s *Sparse) Count() int64 { return s.p.TotalCount() }

// Percentile is the value at percentile p (0..100), as Hist.Percentile
// gives it for the same counts.
func (s *Sparse) Percentile(p float64) int64 { return s.p.ValueAtPercentile(p) }

// MergeSparse adds every count of s into x, as Merge of the same histogram
// decoded would: its populated buckets, index to index.
func (x *Hist) MergeSparse(s *Sparse) {
	// Values above the shared range cannot be in a histogram an agent
	// wrote (it records them at Highest); Merge drops them too.
	s.p.MergeInto(x.h)
	x.overflow += s.overflow
}

// MergeEncoded adds a histogram written by Encode (and its overflow count)
// into x: DecodeSparse, then MergeSparse.
func (x *Hist) MergeEncoded(s string, overflow int64) error {
	sp, err := DecodeSparse(s, overflow)
	if err != nil {
		return err
	}
	x.MergeSparse(sp)
	return nil
}
