package collect

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/ybbench/ybbench/internal/atomicfile"
)

// SeriesWriter writes series.json a phase at a time, as Aggregate reads
// the phases, so that the series of a run of hours are never all held in
// memory; the file appears whole at Commit (atomicfile), or not at all.
type SeriesWriter struct {
	out *atomicfile.File
	n   int
	err error // the first write that failed: Commit says it
}

// CreateSeries starts the run directory's series.json.
func CreateSeries(runDir string) (*SeriesWriter, error) {
	out, err := atomicfile.Create(filepath.Join(runDir, SeriesFile), 0o644)
	if err != nil {
		return nil, err
	}
	w := &SeriesWriter{out: out}
	q, err := json.Marshal(SpectrumQuantiles)
	if err != nil {
		out.Abort()
		return nil, err
	}
	w.write([]byte(fmt.Sprintf(`{"schema":%q,"quantiles":%s,"phases":[`, SeriesSchema, q)))
	return w, nil
}

func (w *SeriesWriter) write(b []byte) {
	if w.err == nil {
		_, w.err = w.out.Write(b)
	}
}

// add writes a phase's series, one line of the file.
func (w *SeriesWriter) add(p *SeriesPhase) {
	b, err := json.Marshal(p)
	if err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("%s %s: %w", p.Stem, p.Phase, err)
		}
		return
	}
	if w.n > 0 {
		w.write([]byte(","))
	}
	w.write([]byte("\n"))
	w.write(b)
	w.n++
}

// Commit ends the file and puts it in place; a write that failed before
// is its error, and the file is not written.
func (w *SeriesWriter) Commit() error {
	w.write([]byte("\n]}\n"))
	if w.err != nil {
		w.out.Abort()
		return fmt.Errorf("%s: %w", SeriesFile, w.err)
	}
	return w.out.Commit()
}

// Abort drops the file: the one before stays, if any.
func (w *SeriesWriter) Abort() { w.out.Abort() }
