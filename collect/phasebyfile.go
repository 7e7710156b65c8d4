package collect

import (
	"errors"

	"github.com/ybbench/ybbench/record"
)

// readPhaseByFile reads a phase's record files one after another, merging
// each tick as it is read: for files readPhase cannot read side by side
// (a tick before its file's meta record, which opens the file's merge).
// Merging stops at the first error Merge would stop at, and the phase
// counts only when every file reads to its end, as agentFiles then Merge
// count it.
func readPhaseByFile(runDir, stem, phase string) phaseRead {
	streams, err := OpenRecordStreams(runDir, stem, phase)
	if err != nil {
		return phaseRead{readErr: err}
	}
	defer CloseRecordStreams(streams)
	var out phaseRead
	var readErrs []error
	mg := newMerger()
	for _, s := range streams {
		af := AgentFile{Host: s.Host, Path: s.Path, File: s.File()}
		merging := out.mergeErr == nil && len(readErrs) == 0
		fail := func(err error) {
			out.mergeErr, merging = err, false
		}
		// A tick before the meta record (not what an agent writes) waits
		// for it: the meta record opens the file's merge.
		var early []record.Tick
		begun := false
		begin := func() {
			begun = true
			if err := mg.begin(&af); err != nil {
				fail(err)
				return
			}
			for i := range early {
				if err := mg.tick(&af, &early[i]); err != nil {
					fail(err)
					return
				}
			}
		}
		for s.Next() {
			switch {
			case !merging:
			case !begun && af.File.Meta == nil:
				early = append(early, *s.Tick())
			default:
				if !begun {
					if begin(); !merging {
						continue
					}
				}
				if err := mg.tick(&af, s.Tick()); err != nil {
					fail(err)
				}
			}
		}
		if err := s.Err(); err != nil {
			readErrs = append(readErrs, err)
			continue
		}
		if merging && !begun {
			begin()
		}
		if merging {
			mg.end(&af)
		}
		// A copy of what the file said: the scanner's own File would keep
		// the scanner and its buffer for as long as the result is made.
		f := *s.File()
		af.File = &f
		out.files = append(out.files, af)
	}
	if out.readErr = errors.Join(readErrs...); out.readErr == nil && out.mergeErr == nil && len(out.files) > 0 {
		out.merged = mg.phase()
	}
	return out
}
