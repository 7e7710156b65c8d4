// Package hostcpu is the typed record of the db hosts' CPU over a measured
// phase: two readings of each host's counters, written by the orchestrator
// as runs/<id>/cpu/<workload>-<phase>.json and read back by the collector.
// It imports nothing of ybbench, so both sides share it without pulling in
// hosts, runners or the agent.
package hostcpu

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/record/repetition"
)

// Schema names the version of a CPU file.
const Schema = "ybbench-cpu/1"

// Dir is the run directory's folder of CPU files.
const Dir = "cpu"

// The counters a reading comes from.
const (
	// ModeNode is the node's /proc/stat, as the seeds' "CPU (User + Sys)"
	// column is: on hosts with a kernel of their own.
	ModeNode = "node"
	// ModeProcess is the database processes' own CPU time: on hosts that
	// share one kernel (local hosts), whose /proc/stat is the machine's.
	ModeProcess = "process"
)

// Sample is one reading of a db host's CPU counters.
type Sample struct {
	Mode string `json:"mode"`
	// Busy is clock ticks: user+nice+system (node) or the processes'
	// utime+stime+cutime+cstime (process).
	Busy int64 `json:"busy_ticks"`
	// Total is clock ticks of all kinds (node mode; 0 in process mode).
	Total int64 `json:"total_ticks"`
	Hz    int64 `json:"hz"`
	Cores int64 `json:"cores"`
	// At is when it was read, in seconds of the host's clock.
	At float64 `json:"at"`
	// What the attribution of a run's limit reads (absent in readings
	// taken before it was sampled): the machine's CPU ticks by kind, its
	// run queue, the tool's own processes, its disks and this host's
	// network interfaces.
	Node         *NodeTicks `json:"node,omitempty"`
	ProcsRunning int64      `json:"procs_running,omitempty"`
	Own          *Own       `json:"own,omitempty"`
	Disks        []Disk     `json:"disks,omitempty"`
	Nets         []Net      `json:"nets,omitempty"`
	// Sampler is what the reading shell has cost (absent in readings
	// taken before it was counted).
	Sampler *Sampler `json:"sampler,omitempty"`
}

// Check reports a reading that cannot be used.
func (s Sample) Check() error {
	if s.Mode != ModeNode && s.Mode != ModeProcess {
		return fmt.Errorf("cpu reading: mode %q, want %s or %s", s.Mode, ModeNode, ModeProcess)
	}
	if s.Hz <= 0 || s.Cores <= 0 || s.Busy < 0 || s.Total < 0 {
		return fmt.Errorf("cpu reading: hz %d, cores %d, busy %d, total %d: incomplete", s.Hz, s.Cores, s.Busy, s.Total)
	}
	return nil
}

// Span is a host's readings before and after a phase, and those taken
// every few seconds in between.
type Span struct {
	Before Sample `json:"before"`
	After  Sample `json:"after"`
	// Samples are the readings taken while the phase ran, in order,
	// between Before and After; absent in files written before the phase
	// was sampled, or when it ended before the first one.
	Samples []Sample `json:"samples,omitempty"`
}

// Readings are the span's readings in order: Before, Samples, After.
func (s Span) Readings() []Sample {
	out := make([]Sample, 0, len(s.Samples)+2)
	out = append(out, s.Before)
	out = append(out, s.Samples...)
	return append(out, s.After)
}

// Steady are the readings a course of CPU use can be drawn from: those
// whose busy count did not fall below one before it. In process mode the
// count is the database processes' own time and their reaped children's:
// a connection's process that has exited and is not yet reaped takes its
// time out of the sum until the postmaster reaps it, and an interval
// ending there would read as negative, the next as several times the
// machine. Leaving such a reading out gives the interval around it its
// true average. /proc/stat's counts never fall, so node readings all stay.
func Steady(r []Sample) []Sample {
	out := make([]Sample, 0, len(r))
	for _, x := range r {
		if n := len(out); n > 0 && x.Busy < out[n-1].Busy {
			continue
		}
		out = append(out, x)
	}
	return out
}

// File is the CPU of every db host that could be read over one phase.
type File struct {
	Schema   string `json:"schema"`
	Workload string `json:"workload"`
	Phase    string `json:"phase"`
	// Rep is the workload's repetition (from 1) when the run repeats its
	// workloads; 0 otherwise.
	Rep   int             `json:"rep,omitempty"`
	Hosts map[string]Span `json:"hosts"`
	// Clients are the client hosts' spans, read alike (their own
	// processes are the agent's); absent in files written before clients
	// were sampled.
	Clients map[string]Span `json:"clients,omitempty"`
	// Off says why no host was sampled ("host_samples off"), when none was
	// on purpose.
	Off string `json:"off,omitempty"`
}

// Use is what a span says: the share of the host's cores busy, where that
// comes from and, in process mode, the CPU seconds used and the processes'
// cumulative CPU seconds when the phase ended.
type Use struct {
	Percent      float64
	Source       string
	Seconds      float64
	SecondsAtEnd float64
}

// Use computes a span's CPU use; false when its two readings do not go
// together (different modes). The figures are rounded as the report shows
// them: percent to 0.1, seconds to 0.01.
func (s Span) Use() (Use, bool) { return Between(s.Before, s.After) }

// Between computes the CPU use between two readings of one host, as Use
// does for a whole span.
func Between(a, b Sample) (Use, bool) {
	if a.Mode != b.Mode || a.Hz <= 0 || a.Cores <= 0 {
		return Use{}, false
	}
	var u Use
	switch a.Mode {
	case ModeNode:
		if d := b.Total - a.Total; d > 0 {
			u.Percent = 100 * float64(b.Busy-a.Busy) / float64(d)
		}
		u.Source = "node /proc/stat, user+nice+system over all cores"
	default:
		if wall := b.At - a.At; wall > 0 {
			u.Percent = 100 * float64(b.Busy-a.Busy) / float64(a.Hz) / (wall * float64(a.Cores))
		}
		u.Source = fmt.Sprintf("the database processes' own CPU time, as a share of this machine's %d cores (local hosts share one kernel and its /proc/stat)", a.Cores)
		u.SecondsAtEnd = round(float64(b.Busy)/float64(b.Hz), 100)
		u.Seconds = round(float64(b.Busy-a.Busy)/float64(a.Hz), 100)
	}
	u.Percent = round(u.Percent, 10)
	return u, true
}

func round(x, per float64) float64 { return math.Round(x*per) / per }

// Path is where a phase's CPU file is in a run directory; workload is the
// workload's file stem (repetition.Stem) when the run repeats it.
func Path(runDir, workload, phase string) string {
	return filepath.Join(runDir, Dir, workload+"-"+phase+".json")
}

// Write writes f to its place in runDir (whole or not at all).
func Write(runDir string, f *File) error {
	f.Schema = Schema
	path := Path(runDir, repetition.Stem(f.Workload, f.Rep), f.Phase)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cpu file: %w", err)
	}
	if err := atomicfile.WriteJSON(path, f, 0o644); err != nil {
		return fmt.Errorf("cpu file: %w", err)
	}
	return nil
}

// Read reads a phase's CPU file from runDir (workload as Path takes it); nil and no error when there is
// none (the phase was not measured, or no host could be read).
func Read(runDir, workload, phase string) (*File, error) {
	path := Path(runDir, workload, phase)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, want %s", path, f.Schema, Schema)
	}
	return &f, nil
}
