package collect

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/record"

	"github.com/ybbench/ybbench/record/hist"
	"github.com/ybbench/ybbench/record/repetition"

	"github.com/ybbench/ybbench/internal/atomicfile"
)

// HDRDir is the run directory's folder of HdrHistogram interval logs.
const HDRDir = "hdr"

// HDRLogName is the file name of one agent's interval log of a phase:
// <agent>-<workload>-<phase>.hlog, the agent named by its folder under
// agents/; workload is the workload's stem (repetition.Stem) when the run
// repeats it, so that repetitions' logs never collide.
func HDRLogName(agent, workload, phase string) string {
	return agent + "-" + workload + "-" + phase + ".hlog"
}

// HDRResponseLogName is the file name of the log of response times (from
// the intended start) of a phase that ran to a schedule.
func HDRResponseLogName(agent, workload, phase string) string {
	return agent + "-" + workload + "-" + phase + ".response.hlog"
}

// WriteHDRLogs writes, from the run directory alone (setup.json and the
// agents' record files), one HdrHistogram interval log per agent and
// phase under hdr/: one line per measured interval and operation, tagged
// with the operation, holding the service times (µs) of its successful
// measurements. A phase that ran to a schedule gets a second log of the
// response times, which count the waiting a late start adds. Warm-up
// ticks are left out. It returns the logs' paths; a record file it cannot
// read is reported and the others are written.
//
// Each file is read a tick at a time and its logs written as it is read
// (through temporary files, renamed into place once the file has read to
// its end), so that a run of hours is never held in memory.
func WriteHDRLogs(runDir string) ([]string, error) {
	var setup Setup
	ok, err := readOptional(filepath.Join(runDir, SetupFile), &setup)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no %s: the run did not say what it measured", runDir, SetupFile)
	}
	dir := filepath.Join(runDir, HDRDir)
	_, statErr := os.Stat(dir)
	var paths []string
	var errs []error
	for _, w := range setup.Workloads {
		for _, k := range repetition.Numbers(setup.Repetitions) {
			stem := repetition.Stem(w.Name, k)
			for _, ph := range w.Phases {
				if !ph.Records {
					continue
				}
				p, e := writePhaseLogs(runDir, stem, ph.Name)
				paths, errs = append(paths, p...), append(errs, e...)
			}
		}
	}
	if statErr != nil && len(paths) == 0 {
		// Made for logs none of which could be written: a log is only
		// ever written whole, and so is its folder.
		os.Remove(dir)
	}
	return paths, errors.Join(errs...)
}

// writePhaseLogs writes the logs of every agent's file of a phase, and
// returns what was written and what went wrong: first the files that
// could not be read, then each log that could not be written.
func writePhaseLogs(runDir, stem, phase string) ([]string, []error) {
	streams, err := OpenRecordStreams(runDir, stem, phase)
	if err != nil {
		return nil, []error{err}
	}
	defer CloseRecordStreams(streams)
	var paths []string
	var readErrs, logErrs []error
	for _, s := range streams {
		p, e, err := writeAgentLogs(runDir, s, stem, phase)
		if err != nil {
			readErrs = append(readErrs, err)
			continue
		}
		paths, logErrs = append(paths, p...), append(logErrs, e...)
	}
	if err := errors.Join(readErrs...); err != nil {
		logErrs = append([]error{err}, logErrs...)
	}
	return paths, logErrs
}

// writeAgentLogs writes an agent's logs of a phase as its file is read.
// A file that does not read to its end writes none (readErr); a log that
// cannot be written is named in logErrs and the other is written.
func writeAgentLogs(runDir string, s *RecordStream, stem, phase string) (paths []string, logErrs []error, readErr error) {
	var logs []*agentLog
	// The meta record, first in an agent's file, opens the logs; a tick
	// before it waits for it.
	var early []record.Tick
	open := func() {
		logs = openAgentLogs(runDir, s.Host, stem, phase, s.File().Meta)
		for i := range early {
			for _, l := range logs {
				l.add(&early[i])
			}
		}
	}
	for s.Next() {
		switch {
		case logs == nil && s.File().Meta == nil:
			early = append(early, *s.Tick())
			continue
		case logs == nil:
			open()
		}
		for _, l := range logs {
			l.add(s.Tick())
		}
	}
	if err := s.Err(); err != nil {
		for _, l := range logs {
			l.abort()
		}
		return nil, nil, err
	}
	if logs == nil {
		open()
	}
	for _, l := range logs {
		if err := l.finish(s.Path); err != nil {
			logErrs = append(logErrs, err)
			continue
		}
		paths = append(paths, l.path)
	}
	return paths, logErrs, nil
}

// agentLog is one log of an agent's phase being written: service or
// response times.
type agentLog struct {
	path     string
	response bool
	out      *atomicfile.File // nil when it could not be made (setupErr)
	log      *hist.IntervalLog
	// err is the first tick (or header) that could not be written: the
	// log is not written, and says why. setupErr is why its file could
	// not be made, said when nothing else went wrong.
	err, setupErr error
}

// openAgentLogs starts an agent's logs of a phase: service times, and
// response times when the phase ran to a schedule. Their headers name the
// agent, workload and phase, and start at the agent's own start.
func openAgentLogs(runDir, host, stem, phase string, m *record.Meta) []*agentLog {
	logs := []*agentLog{{path: filepath.Join(runDir, HDRDir, HDRLogName(host, stem, phase))}}
	if m.Schedule != "" {
		logs = append(logs, &agentLog{path: filepath.Join(runDir, HDRDir, HDRResponseLogName(host, stem, phase)), response: true})
	}
	mkErr := os.MkdirAll(filepath.Join(runDir, HDRDir), 0o755)
	for _, l := range logs {
		var sink io.Writer = io.Discard
		if l.setupErr = mkErr; mkErr == nil {
			if l.out, l.setupErr = atomicfile.Create(l.path, 0o644); l.setupErr == nil {
				sink = l.out
			}
		}
		what := "service time (from the actual start)"
		if l.response {
			what = "response time (from the intended start, schedule " + m.Schedule + ")"
		}
		l.log, l.err = hist.NewIntervalLog(sink, m.Start,
			fmt.Sprintf("[ybbench: agent %s, workload %s, phase %s; %s of successful operations in microseconds, tagged with the operation; warm-up left out]", host, m.Workload, m.Phase, what))
	}
	return logs
}

// add writes a tick's line: its service or response times, unless it is
// warm-up or measured none.
func (l *agentLog) add(t *record.Tick) {
	if l.err != nil {
		return
	}
	enc, overflow := t.Service, t.Overflow
	if l.response {
		enc, overflow = t.Response, t.ResponseOverflow
	}
	if t.Warmup || enc == "" {
		return
	}
	if err := l.log.AddEncoded(t.Op, t.Start, t.End, enc, overflow); err != nil {
		l.err = fmt.Errorf("tick %d of %s: %w", t.Index, t.Op, err)
	}
}

// finish puts the log in place, or says why it is not (its record file
// named in a tick's error).
func (l *agentLog) finish(recordPath string) error {
	switch {
	case l.err != nil:
		l.abort()
		return fmt.Errorf("%s: %w", recordPath, l.err)
	case l.setupErr != nil:
		return l.setupErr
	}
	return l.out.Commit()
}

func (l *agentLog) abort() {
	if l.out != nil {
		l.out.Abort()
	}
}
