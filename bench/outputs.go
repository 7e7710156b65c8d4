package bench

import (
	"os"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/record"
)

// RunOutputs are the files a run writes beside its report when its command
// line asks for them: the tick records and a Go CPU profile. Close ends
// them, last opened first, once the summary is written; a command that
// fails half-way through opening them closes what it opened.
type RunOutputs struct {
	closers []func()
}

// Records creates (or truncates) the records file at path and returns the
// sink that writes the run's tick records into it.
func (o *RunOutputs) Records(path string, meta record.Meta) (*RecordSink, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	o.closers = append(o.closers, func() { f.Close() })
	return NewRecordSink(record.NewWriter(f), meta), nil
}

// CPUProfile starts a Go CPU profile written to path, stopped by Close.
func (o *RunOutputs) CPUProfile(path string) error {
	stop, err := agentutil.StartCPUProfile(path)
	if err != nil {
		return err
	}
	o.closers = append(o.closers, stop)
	return nil
}

// Close ends the outputs, last opened first.
func (o *RunOutputs) Close() {
	for i := len(o.closers) - 1; i >= 0; i-- {
		o.closers[i]()
	}
	o.closers = nil
}
