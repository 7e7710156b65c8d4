package collect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
		for _, k := range repetition.Numbers(setup.Repetitions) {
			stem := repetition.Stem(w.Name, k)
			for _, ph := range w.Phases {
				if !ph.Records {
					continue
				}
				files, err := agentFiles(runDir, stem, ph.Name)
				if err != nil {
					errs = append(errs, err)
				}
				for _, af := range files {
					logs := []hdrSeries{{HDRLogName(af.Host, stem, ph.Name), false}}
					if af.File.Meta != nil && af.File.Meta.Schedule != "" {
						logs = append(logs, hdrSeries{HDRResponseLogName(af.Host, stem, ph.Name), true})
					}
					for _, lg := range logs {
						b, err := hdrLog(&af, lg.response)
						if err != nil {
							errs = append(errs, fmt.Errorf("%s: %w", af.Path, err))
							continue
						}
						path := filepath.Join(runDir, HDRDir, lg.name)
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
		}
	}
	return paths, errors.Join(errs...)
}

// hdrSeries is one log of an agent's phase: its file name and whether it
// holds response times rather than service times.
type hdrSeries struct {
	name     string
	response bool
}

// hdrLog is one agent's file as an interval log of service or response
// times: its header names the agent, workload and phase, and starts at the
// agent's own start.
func hdrLog(af *AgentFile, response bool) ([]byte, error) {
	m := af.File.Meta
	if m == nil {
		return nil, fmt.Errorf("no meta record")
	}
	what := "service time (from the actual start)"
	if response {
		what = "response time (from the intended start, schedule " + m.Schedule + ")"
	}
	var b bytes.Buffer
	l, err := hist.NewIntervalLog(&b, m.Start,
		fmt.Sprintf("[ybbench: agent %s, workload %s, phase %s; %s of successful operations in microseconds, tagged with the operation; warm-up left out]", af.Host, m.Workload, m.Phase, what))
	if err != nil {
		return nil, err
	}
	for _, t := range af.File.Ticks {
		enc, overflow := t.Service, t.Overflow
		if response {
			enc, overflow = t.Response, t.ResponseOverflow
		}
		if t.Warmup || enc == "" {
			continue
		}
		h, err := hist.Decode(enc, overflow)
		if err != nil {
			return nil, fmt.Errorf("tick %d of %s: %w", t.Index, t.Op, err)
		}
		if err := l.Add(t.Op, t.Start, t.End, h); err != nil {
			return nil, fmt.Errorf("tick %d of %s: %w", t.Index, t.Op, err)
		}
	}
	return b.Bytes(), nil
}
