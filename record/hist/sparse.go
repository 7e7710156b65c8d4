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
	// A histogram a Decoder read is its populated buckets, ascending (flat
	// indices of the shared geometry and their counts, the decoder's own
	// until its next Decode); p is filled from them only when asked for
	// (lazy), since merging one needs no more than the list.
	idx  []int32
	cnt  []int64
	lazy bool
}

// NewSparse returns an empty sparse histogram of the shared geometry, to
// merge others into.
func NewSparse() *Sparse { return &Sparse{p: hdrhistogram.NewPacked(Lowest, Highest, SigFigs)} }

// packed is the histogram in the library's sparse form, filled from the
// bucket list the first time it is asked for.
func (s *Sparse) packed() *hdrhistogram.PackedHistogram {
	if s.lazy {
		s.lazy = false
		s.p.Reset()
		for i, at := range s.idx {
			// Cannot fail: the decoder checked the indices and the total.
			_ = s.p.RecordValues(valueAt(at), s.cnt[i])
		}
	}
	return s.p
}

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
func (s *Sparse) Reset() { s.packed().Reset(); s.overflow = 0 }

// Merge adds every count of o into s, as MergeSparse adds them into a
// dense histogram: index to index, values above s's range dropped.
func (s *Sparse) Merge(o *Sparse) {
	s.packed().Merge(o.packed())
	s.overflow += o.overflow
}

// Max is the highest value of the highest populated bucket (0 when
// empty), as the library's histograms give it.
func (s *Sparse) Max() int64 {
	if !s.lazy {
		return s.p.Max()
	}
	if len(s.idx) == 0 {
		return 0
	}
	return highestAt(s.idx[len(s.idx)-1])
}

// Count is the number of recorded values.
func (s *Sparse) Count() int64 { return s.packed().TotalCount() }

// Percentile is the value at percentile p (0..100), as Hist.Percentile
// gives it for the same counts.
func (s *Sparse) Percentile(p float64) int64 { return s.packed().ValueAtPercentile(p) }

// MergeSparse adds every count of s into x, as Merge of the same histogram
// decoded would: its populated buckets, index to index.
func (x *Hist) MergeSparse(s *Sparse) {
	if s.lazy {
		// The library's merge of the same buckets: each recorded at its
		// index, one that would overflow the total dropped.
		for i, at := range s.idx {
			_ = x.h.RecordValues(valueAt(at), s.cnt[i])
		}
	} else {
		// Values above the shared range cannot be in a histogram an agent
		// wrote (it records them at Highest); Merge drops them too.
		s.p.MergeInto(x.h)
	}
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
