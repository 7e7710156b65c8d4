package collect

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/ybbench/ybbench/record"
)

// RecordStream is one agent's record file of a phase, open to be read a
// tick at a time (record.Scanner): a reader of a run of hours holds one
// tick of each agent, not every tick of the run. Close it when done.
type RecordStream struct {
	Host string
	Path string
	*record.Scanner
	f *os.File
}

// Close closes the file.
func (s *RecordStream) Close() error { return s.f.Close() }

// OpenRecordStreams opens the record files of a workload's phase
// (workload: its file name stem, repetition.Stem when repeated) in every
// client's copy under agents/<host>/, in host order. A file that is not
// there, or empty, is left out, as AgentFiles leaves it out.
func OpenRecordStreams(runDir, workload, phase string) ([]*RecordStream, error) {
	dirs, err := os.ReadDir(filepath.Join(runDir, agentsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*RecordStream
	for _, d := range dirs {
		path := filepath.Join(runDir, agentsDir, d.Name(), workload+"-"+phase+".jsonl")
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if st, err := f.Stat(); err != nil || st.IsDir() || st.Size() == 0 {
			f.Close()
			continue
		}
		out = append(out, &RecordStream{Host: d.Name(), Path: path, Scanner: record.NewScanner(path, f), f: f})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, nil
}

// CloseRecordStreams closes every stream.
func CloseRecordStreams(streams []*RecordStream) {
	for _, s := range streams {
		s.Close()
	}
}

// readAll reads the rest of a stream into a file in memory, as
// record.Read reads it.
func (s *RecordStream) readAll() (*record.File, error) {
	var ticks []record.Tick
	for s.Next() {
		ticks = append(ticks, *s.Tick())
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	f := *s.File()
	f.Ticks = ticks
	return &f, nil
}
