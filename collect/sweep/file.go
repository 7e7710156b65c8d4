package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/record/repetition"
)

// Schema names the version of a sweep file.
const Schema = "ybbench-sweep/1"

// Dir is the run directory's folder of sweep files, one per workload (per
// repetition of a workload, when the run repeats its workloads).
const Dir = "sweep"

// File is a workload's sweep as the orchestrator planned it: the plan and
// each step as it was decided, written before the step runs, so that the
// collector knows what each step's files are and a resumed sweep what it
// decided.
type File struct {
	Schema   string `json:"schema"`
	Workload string `json:"workload"`
	// Repetition is the repetition (from 1) whose run phase the sweep
	// follows, when the run repeats its workloads; absent otherwise.
	Repetition int       `json:"repetition,omitempty"`
	Saturation float64   `json:"saturation_ops_per_sec"`
	Fractions  []float64 `json:"fractions"`
	// SLOP99 is the SLO given (µs; 0: twice the lowest step's p99).
	SLOP99 float64 `json:"slo_p99_us,omitempty"`
	// Resolution is the bisection's, a share of the saturation
	// throughput (absent: DefaultResolution).
	Resolution float64   `json:"resolution,omitempty"`
	Steps      []Planned `json:"steps"`
}

// Planned is one step as decided: its index, kind, target and whether it
// extends the step before it.
type Planned struct {
	Index    int     `json:"index"`
	Kind     string  `json:"kind"`
	Target   float64 `json:"target_ops_per_sec"`
	Extended bool    `json:"extended,omitempty"`
}

// Plan is the file's plan.
func (f *File) Plan() Plan {
	return Plan{Saturation: f.Saturation, Fractions: f.Fractions, SLOP99: f.SLOP99, Resolution: f.Resolution}
}

// Stem is the name the sweep's file and its steps' files carry: the
// workload's, with its repetition's tag when it has one.
func (f *File) Stem() string { return repetition.Stem(f.Workload, f.Repetition) }

// Path is where the sweep file of stem (a workload, or a repetition of
// it: repetition.Stem) is.
func Path(runDir, stem string) string { return filepath.Join(runDir, Dir, stem+".json") }

// Write writes f (whole or not at all).
func Write(runDir string, f *File) error {
	f.Schema = Schema
	if err := os.MkdirAll(filepath.Join(runDir, Dir), 0o755); err != nil {
		return fmt.Errorf("sweep file: %w", err)
	}
	return atomicfile.WriteJSON(Path(runDir, f.Stem()), f, 0o644)
}

// Read reads the sweep file of stem (a workload, or a repetition of it);
// nil when it has none.
func Read(runDir, stem string) (*File, error) {
	b, err := os.ReadFile(Path(runDir, stem))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", Path(runDir, stem), err)
	}
	if f.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, want %s", Path(runDir, stem), f.Schema, Schema)
	}
	return &f, nil
}
