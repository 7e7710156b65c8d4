package collect

import (
	"sort"

	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// PhaseSeriesOf reads a phase's record files (stem: the workload's, or
// its repetition's, repetition.Stem) into the series the report draws,
// as the collector computes it while it merges them: for a run
// directory collected before the collector wrote series.json, so that
// its report is still drawn, the same way. measured asks for the
// spectrum of its service times after warm-up.
func PhaseSeriesOf(runDir, stem, phase string, measured bool) *SeriesPhase {
	ps := phaseSeriesOf(runDir, stem, phase, measured)
	return seriesPhaseOf(stem, phase, &ps)
}

// phaseSeriesOf reads a phase's files a tick at a time, side by side, or
// whole when they cannot be read so.
func phaseSeriesOf(runDir, stem, phase string, measured bool) phaseSeries {
	streams, err := OpenRecordStreams(runDir, stem, phase)
	if err == nil {
		sr := newSeriesRead(streams, measured, hist.NewDecoder())
		w := startWalk(streams, true)
		w.run(sr.begin, sr.tick, sr.end)
		CloseRecordStreams(streams)
		if !w.disordered {
			return sr.finish()
		}
	}
	return seriesWhole(runDir, stem, phase, measured)
}

// seriesRead adds a phase's ticks, read side by side, into its series:
// one interval open at a time, each file's errors kept apart so that they
// are said file after file.
type seriesRead struct {
	sb       seriesBuilder
	streams  []*RecordStream
	dec      *hist.Decoder
	iv       *openInterval
	fileErrs [][]error
}

func newSeriesRead(streams []*RecordStream, measured bool, dec *hist.Decoder) *seriesRead {
	return &seriesRead{sb: seriesBuilder{measured: measured}, streams: streams, dec: dec,
		iv: &openInterval{latency: &hist.Counts{}}, fileErrs: make([][]error, len(streams))}
}

func (sr *seriesRead) begin(t *record.Tick) { sr.iv.reset(t) }

func (sr *seriesRead) tick(i int, t *record.Tick) {
	h, err := decodeService(sr.dec, sr.streams[i].Path, t)
	sr.add(i, t, h, err)
}

// add adds a tick whose service times are decoded already.
func (sr *seriesRead) add(i int, t *record.Tick, h *hist.Sparse, decodeErr error) {
	sr.sb.add(sr.iv, i, t, h, decodeErr, &sr.fileErrs[i])
}

func (sr *seriesRead) end() { sr.sb.ps.intervals = append(sr.sb.ps.intervals, sr.iv.close()) }

// finish is the series once every file is read: the agents' earliest
// start, and the files' errors in file order.
func (sr *seriesRead) finish() phaseSeries {
	ps := &sr.sb.ps
	for i, s := range sr.streams {
		ps.origin = earliest(ps.origin, s.File().Meta)
		ps.errs = append(ps.errs, sr.fileErrs[i]...)
	}
	return *ps
}

// seriesWhole reads a phase's files whole, one after another, every
// interval open until the end: for files that cannot be read side by
// side (a file's indices go back, or it does not read to its end).
func seriesWhole(runDir, stem, phase string, measured bool) phaseSeries {
	afs, readErr := AgentFiles(runDir, stem, phase)
	sb := seriesBuilder{measured: measured}
	ps := &sb.ps
	if readErr != nil {
		ps.errs = append(ps.errs, readErr)
	}
	dec := hist.NewDecoder()
	byIndex := map[int]*openInterval{}
	for agent, af := range afs {
		ps.origin = earliest(ps.origin, af.File.Meta)
		for j := range af.File.Ticks {
			t := &af.File.Ticks[j]
			iv := byIndex[t.Index]
			if iv == nil {
				iv = &openInterval{latency: hist.NewSparse()}
				iv.reset(t)
				byIndex[t.Index] = iv
			}
			h, err := decodeService(dec, af.Path, t)
			sb.add(iv, agent, t, h, err, &ps.errs)
		}
	}
	idx := make([]int, 0, len(byIndex))
	for i := range byIndex {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		ps.intervals = append(ps.intervals, byIndex[i].close())
	}
	return *ps
}
