package collect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/bench/hist"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

// HDRDir is the run directory's folder of HdrHistogram interval logs.
const HDRDir = "hdr"

// HDRLogName is the file name of one agent's interval log of a phase:
// <agent>-<workload>-<phase>.hlog, the agent named by its folder under
// agents/.
func HDRLogName(agent, workload, phase string) string {
	return agent + "-" + workload + "-" + phase + ".hlog"
}

// WriteHDRLogs writes, from the run directory alone (setup.json and the
// agents' record files), one HdrHistogram interval log per agent and
// phase under hdr/: one line per measured interval and operation, tagged
// with the operation, holding the service times (µs) of its successful
// measurements. Warm-up ticks are left out. It returns the logs' paths;
// a record file it cannot read is reported and the others are written.
func WriteHDRLogs(runDir string) ([]string, error) {
	var setup Setup
	ok, err := readOptional(filepath.Join(runDir, SetupFile), &setup)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no %s: the run did not say what it measured", runDir, SetupFile)
	}
	var paths []string
	var errs []error
	for _, w := range setup.Workloads {
		for _, ph := range w.Phases {
			if !ph.Records {
				continue
			}
			files, err := agentFiles(runDir, w.Name, ph.Name)
			if err != nil {
				errs = append(errs, err)
			}
			for _, af := range files {
				b, err := hdrLog(&af)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", af.Path, err))
					continue
				}
				path := filepath.Join(runDir, HDRDir, HDRLogName(af.Host, w.Name, ph.Name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					errs = append(errs, err)
					continue
				}
				if err := atomicfile.Write(path, b, 0o644); err != nil {
					errs = append(errs, err)
					continue
				}
				paths = append(paths, path)
			}
		}
	}
	return paths, errors.Join(errs...)
}

// hdrLog is one agent's file as an interval log: its header names the
// agent, workload and phase, and starts at the agent's own start.
func hdrLog(af *AgentFile) ([]byte, error) {
	m := af.File.Meta
	if m == nil {
		return nil, fmt.Errorf("no meta record")
	}
	var b bytes.Buffer
	l, err := hist.NewIntervalLog(&b, m.Start,
		fmt.Sprintf("[ybbench: agent %s, workload %s, phase %s; service time of successful operations in microseconds, tagged with the operation; warm-up left out]", af.Host, m.Workload, m.Phase))
	if err != nil {
		return nil, err
	}
	for _, t := range af.File.Ticks {
		if t.Warmup || t.Service == "" {
			continue
		}
		h, err := hist.Decode(t.Service, t.Overflow)
		if err != nil {
			return nil, fmt.Errorf("tick %d of %s: %w", t.Index, t.Op, err)
		}
		if err := l.Add(t.Op, t.Start, t.End, h); err != nil {
			return nil, fmt.Errorf("tick %d of %s: %w", t.Index, t.Op, err)
		}
	}
	return b.Bytes(), nil
}
