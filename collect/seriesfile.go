package collect

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// SeriesFile is the run directory's file of what the report draws from
// the agents' records: each phase's intervals and spectrum, computed by
// collect in the pass that merges the records into result.json, so that
// the report decodes no histogram of its own.
const SeriesFile = "series.json"

// SeriesSchema names series.json's format; a reader refuses another.
const SeriesSchema = "ybbench-series/1"

// SpectrumQuantiles are the quantiles of each operation's latency
// spectrum, spread evenly on the nines axis up to 99.999%; where a
// histogram holds fewer measurements than a quantile resolves, its value is
// the histogram's maximum. series.json names them: a file of other
// quantiles is not drawn from.
var SpectrumQuantiles = []float64{0, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99995, 0.99999}

// Series is series.json: the series of every phase of every workload (and
// repetition) whose records could be read, in the order collect read
// them.
type Series struct {
	Schema    string        `json:"schema"`
	Quantiles []float64     `json:"quantiles"`
	Phases    []SeriesPhase `json:"phases"`
}

// SeriesPhase is one phase of a workload, or of one of its repetitions,
// as the report's charts draw it, in columns (one entry per interval: one
// tick index, over the agents and operations, in index order), so that a
// run of hours is a file of numbers, not of objects.
//
// An interval's times are its ticks' own (the earliest start, the latest
// end), each kept exactly, to the nanosecond, as whole seconds after
// BaseUnix and the nanoseconds within the second: the charts' x values
// are differences of these times, and must not move by a rounding.
type SeriesPhase struct {
	Stem  string `json:"stem"` // the workload's, or its repetition's (repetition.Stem)
	Phase string `json:"phase"`
	// Origin is the earliest start of the phase's agents (their meta
	// records); absent when no file had one.
	Origin   *time.Time `json:"origin,omitempty"`
	BaseUnix int64      `json:"base_unix"`
	StartS   []int64    `json:"start_s"`
	StartNS  []int32    `json:"start_ns"`
	EndS     []int64    `json:"end_s"`
	EndNS    []int32    `json:"end_ns"`
	// Rate is the measurements (successes and errors) per second, each
	// agent's ticks' rates summed, then the agents'.
	Rate []float64 `json:"rate"`
	// P50US and P99US are the percentiles of the interval's histograms
	// added up (every agent and operation), in µs.
	P50US []int64 `json:"p50_us"`
	P99US []int64 `json:"p99_us"`
	// Warmup are the intervals that hold a warm-up tick.
	Warmup []int `json:"warmup,omitempty"`
	// Spectrum is each operation's service times over the measured phase
	// after warm-up, merged over the agents, at Series.Quantiles; only
	// in the measured phase, by operation name.
	Spectrum []SpectrumOp `json:"spectrum,omitempty"`
	// Problems are the record files or ticks that could not be read; the
	// rest is in the series.
	Problems []string `json:"problems,omitempty"`
}

// SpectrumOp is one operation's spectrum: how many measurements, and the
// value at each quantile (µs).
type SpectrumOp struct {
	Op    string  `json:"op"`
	Count int64   `json:"count"`
	US    []int64 `json:"us"`
}

// Interval is one interval of a phase, as SeriesPhase keeps it.
type Interval struct {
	Start, End   time.Time
	Rate         float64
	Warmup       bool
	P50US, P99US int64
}

// Intervals are the phase's intervals, in index order.
func (p *SeriesPhase) Intervals() []Interval {
	out := make([]Interval, len(p.Rate))
	for i := range out {
		out[i] = Interval{Start: time.Unix(p.BaseUnix+p.StartS[i], int64(p.StartNS[i])),
			End: time.Unix(p.BaseUnix+p.EndS[i], int64(p.EndNS[i])), Rate: p.Rate[i], P50US: p.P50US[i], P99US: p.P99US[i]}
	}
	for _, i := range p.Warmup {
		out[i].Warmup = true
	}
	return out
}

// Errors are the phase's problems, as errors.
func (p *SeriesPhase) Errors() []error {
	out := make([]error, len(p.Problems))
	for i, s := range p.Problems {
		out[i] = errors.New(s)
	}
	return out
}

// seriesPhaseOf is a phase's series in the file's form.
func seriesPhaseOf(stem, phase string, ps *phaseSeries) *SeriesPhase {
	p := &SeriesPhase{Stem: stem, Phase: phase}
	if !ps.origin.IsZero() {
		o := ps.origin
		p.Origin = &o
	}
	if len(ps.intervals) > 0 {
		p.BaseUnix = ps.intervals[0].start.Unix()
	}
	n := len(ps.intervals)
	p.StartS, p.StartNS, p.EndS, p.EndNS = make([]int64, n), make([]int32, n), make([]int64, n), make([]int32, n)
	p.Rate, p.P50US, p.P99US = make([]float64, n), make([]int64, n), make([]int64, n)
	for i, iv := range ps.intervals {
		p.StartS[i], p.StartNS[i] = iv.start.Unix()-p.BaseUnix, int32(iv.start.Nanosecond())
		p.EndS[i], p.EndNS[i] = iv.end.Unix()-p.BaseUnix, int32(iv.end.Nanosecond())
		p.Rate[i], p.P50US[i], p.P99US[i] = iv.rate, iv.p50, iv.p99
		if iv.warmup {
			p.Warmup = append(p.Warmup, i)
		}
	}
	for _, op := range slices.Sorted(maps.Keys(ps.spectrum)) {
		h := ps.spectrum[op]
		s := SpectrumOp{Op: op, Count: h.Count(), US: make([]int64, len(SpectrumQuantiles))}
		for j, q := range SpectrumQuantiles {
			s.US[j] = h.Percentile(100 * q)
		}
		p.Spectrum = append(p.Spectrum, s)
	}
	for _, e := range ps.errs {
		p.Problems = append(p.Problems, e.Error())
	}
	return p
}

// check refuses a phase whose columns do not line up.
func (p *SeriesPhase) check() error {
	n := len(p.Rate)
	if len(p.StartS) != n || len(p.StartNS) != n || len(p.EndS) != n || len(p.EndNS) != n || len(p.P50US) != n || len(p.P99US) != n {
		return fmt.Errorf("%s %s: columns of different lengths", p.Stem, p.Phase)
	}
	for _, i := range p.Warmup {
		if i < 0 || i >= n {
			return fmt.Errorf("%s %s: warm-up interval %d of %d", p.Stem, p.Phase, i, n)
		}
	}
	for _, s := range p.Spectrum {
		if len(s.US) != len(SpectrumQuantiles) {
			return fmt.Errorf("%s %s: spectrum of %s: %d values for %d quantiles", p.Stem, p.Phase, s.Op, len(s.US), len(SpectrumQuantiles))
		}
	}
	return nil
}

// ReadSeries reads a run directory's series.json: nil without error when
// there is none (a run collected before collect wrote it). A file of
// another schema or other quantiles, or whose columns do not line up, is
// an error: its reader draws from the records instead.
func ReadSeries(runDir string) (*Series, error) {
	path := filepath.Join(runDir, SeriesFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Series
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Schema != SeriesSchema {
		return nil, fmt.Errorf("%s: schema %q, this reader knows %q", path, s.Schema, SeriesSchema)
	}
	if !slices.Equal(s.Quantiles, SpectrumQuantiles) {
		return nil, fmt.Errorf("%s: spectrum quantiles %v, this reader draws %v", path, s.Quantiles, SpectrumQuantiles)
	}
	for i := range s.Phases {
		if err := s.Phases[i].check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &s, nil
}

// Phase is the series of a phase (stem as in SeriesPhase); nil when s is
// nil or does not hold it.
func (s *Series) Phase(stem, phase string) *SeriesPhase {
	if s == nil {
		return nil
	}
	for i := range s.Phases {
		if p := &s.Phases[i]; p.Stem == stem && p.Phase == phase {
			return p
		}
	}
	return nil
}
