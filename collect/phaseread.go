package collect

import (
	"errors"

	"github.com/ybbench/ybbench/record"
	"github.com/ybbench/ybbench/record/hist"
)

// phaseRead is one phase of a workload read from its agents' files a tick
// at a time: what agentFiles and Merge give for it, and the series the
// report draws of it, without holding a tick.
type phaseRead struct {
	// files are the files read whole, each with its meta and end records
	// but no ticks.
	files  []AgentFile
	merged *Phase
	// readErr names the files that could not be read (agentFiles' error:
	// the phase is not merged); mergeErr is Merge's error on the others.
	readErr, mergeErr error
	// series is the phase's series when asked for and every file read
	// to its end (a phase that could not be read is not in the result,
	// and not drawn).
	series *SeriesPhase
}

// readPhase reads a phase's record files side by side (phaseWalk), each
// tick's service times decoded once for the merge and, when series is
// asked for, for the phase's series. Its files are merged as Merge merges
// them; a file with a tick before its meta record, which opens the
// file's merge, is read file by file instead.
func readPhase(runDir, stem, phase string, series bool) phaseRead {
	streams, err := OpenRecordStreams(runDir, stem, phase)
	if err != nil {
		return phaseRead{readErr: err}
	}
	out, ok := readSideBySide(streams, stem, phase, series)
	CloseRecordStreams(streams)
	if !ok {
		out = readPhaseByFile(runDir, stem, phase)
	}
	if series && out.series == nil && out.readErr == nil && len(out.files) > 0 {
		// A file's indices go back (or the file by file reading): the
		// series is read apart, whole if need be.
		out.series = PhaseSeriesOf(runDir, stem, phase, phase == MeasuredPhase)
	}
	return out
}

// readSideBySide merges a phase's streams read side by side, and with
// series makes its series on the way; false when a file has a tick
// before its meta record.
//
// Merging adds counts, which any order of the ticks adds alike; what an
// order could change is kept in the file order Merge has: each file is
// begun (its meta record) and ended (its end record) in turn, and the
// error is the first file's with one, its first.
func readSideBySide(streams []*RecordStream, stem, phase string, series bool) (phaseRead, bool) {
	w := startWalk(streams, false)
	for i, s := range streams {
		if w.live[i] && s.File().Meta == nil {
			return phaseRead{}, false
		}
	}
	mg := newMerger()
	afs := make([]AgentFile, len(streams))
	merging := make([]bool, len(streams))
	fileErrs := make([]error, len(streams))
	for i, s := range streams {
		afs[i] = AgentFile{Host: s.Host, Path: s.Path, File: s.File()}
		if s.Err() != nil {
			continue
		}
		if fileErrs[i] = mg.begin(&afs[i]); fileErrs[i] == nil {
			merging[i] = true
		}
	}
	var sr *seriesRead
	if series {
		sr = newSeriesRead(streams, phase == MeasuredPhase, mg.dec)
	}
	drawing := func() bool { return sr != nil && !w.disordered }
	w.run(func(t *record.Tick) {
		if drawing() {
			sr.begin(t)
		}
	}, func(i int, t *record.Tick) {
		draw, merge := drawing(), merging[i] && !t.Warmup
		var h *hist.Sparse
		var err error
		if draw || merge {
			h, err = decodeService(mg.dec, afs[i].Path, t)
		}
		if draw {
			sr.add(i, t, h, err)
		}
		if merge {
			if fileErrs[i] = mg.tickDecoded(&afs[i], t, h, err); fileErrs[i] != nil {
				merging[i] = false
			}
		}
	}, func() {
		if drawing() {
			sr.end()
		}
	})
	return endSideBySide(streams, mg, afs, merging, fileErrs, sr, stem, phase, w.disordered), true
}

// endSideBySide ends the files in file order, once read: the files that
// read to their end, the merged phase when none failed, the series when
// the files were in order.
func endSideBySide(streams []*RecordStream, mg *merger, afs []AgentFile, merging []bool, fileErrs []error, sr *seriesRead, stem, phase string, disordered bool) phaseRead {
	var out phaseRead
	var readErrs []error
	for i, s := range streams {
		if err := s.Err(); err != nil {
			readErrs = append(readErrs, err)
			continue
		}
		if merging[i] {
			mg.end(&afs[i])
		}
		// A copy of what the file said: the scanner's own File would keep
		// the scanner and its buffer for as long as the result is made.
		f := *s.File()
		afs[i].File = &f
		out.files = append(out.files, afs[i])
	}
	for _, err := range fileErrs {
		if err != nil {
			out.mergeErr = err
			break
		}
	}
	if out.readErr = errors.Join(readErrs...); out.readErr == nil && out.mergeErr == nil && len(out.files) > 0 {
		out.merged = mg.phase()
	}
	if sr != nil && !disordered && out.readErr == nil {
		ps := sr.finish()
		out.series = seriesPhaseOf(stem, phase, &ps)
	}
	return out
}
