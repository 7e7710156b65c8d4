package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sweepStep is what of a sweep's step the sweep section reads.
type sweepStep struct {
	Extended bool `json:"extended"`
}

// sweepOfRep is what of a repetition's sweep the sweep section reads.
type sweepOfRep struct {
	Saturation float64     `json:"saturation_ops_per_sec"`
	Steps      []sweepStep `json:"steps"`
	Knee       *struct {
		Achieved  float64 `json:"achieved_ops_per_sec"`
		Confirmed bool    `json:"confirmed"`
	} `json:"knee"`
}

// sweepResult is what of result.json the sweep section reads.
type sweepResult struct {
	Workloads []struct {
		Repetitions []struct {
			Index int         `json:"index"`
			Sweep *sweepOfRep `json:"sweep"`
		} `json:"repetitions"`
		Agreement *struct {
			Apart    float64   `json:"apart"`
			RunApart float64   `json:"run_apart"`
			Noise    []float64 `json:"p99_repeat_noise"`
			Ranges   []struct {
				Low  float64 `json:"low_ops_per_sec"`
				High float64 `json:"high_ops_per_sec"`
			} `json:"knee_ranges"`
			WithinGoal  bool   `json:"within_goal"`
			WithinNoise bool   `json:"within_noise"`
			Problem     string `json:"problem"`
		} `json:"sweep_agreement"`
	} `json:"workloads"`
}

// sweepSection runs two sweeps of YCSB C on one local cluster (--repeat
// 2: each repetition's run followed by a sweep of its own; 1 db host, 1
// client, 3 s steps, the default 2% resolution), and prints each knee, how
// far apart they are against the goal of 3% and the cluster's own noise,
// and how long the two took.
func sweepSection(out *strings.Builder) error {
	if os.Geteuid() != 0 || os.Getenv("YBBENCH_TERRAFORM") == "" {
		fmt.Fprintln(out, "## Sweep\n\nskipped: needs root and YBBENCH_TERRAFORM")
		return nil
	}
	fmt.Fprintf(out, "## Sweep (YCSB C, 16 threads, 3 s steps at 20%% and 80%% of the run's throughput, bisected to 2%%; late_after 50ms; two sweeps of one cluster, --repeat 2)\n\n| sweep | saturation ops/s | knee ops/s | confirmed | steps (extended) |\n|---|---|---|---|---|\n")
	runs, _ := os.MkdirTemp("", "sweep-bench-")
	os.Chmod(runs, 0o755)
	defer os.RemoveAll(runs)
	start := time.Now()
	args := []string{"run", "--local", "--runs-dir=" + runs, "--flavor=postgres", "--db-hosts=1", "--client-hosts=1", "--subnet=10.213.143.0/24",
		"--workloads=workloadc", "--repeat=2", "--records=2000", "--operations=100000000", "--duration=3s", "--threads=16", "--load-threads=4",
		"--late-after=50ms", "--sweep", "--sweep-fractions=20,80"}
	b, err := exec.Command(*ybbenchBin, args...).CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		return fmt.Errorf("run --sweep --repeat=2: %v\n%s", err, b)
	}
	m, _ := filepath.Glob(filepath.Join(runs, "*", "result.json"))
	if len(m) != 1 {
		return fmt.Errorf("want one result in %s, found %d", runs, len(m))
	}
	raw, err := os.ReadFile(m[0])
	if err != nil {
		return err
	}
	var res sweepResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Workloads) == 0 || len(res.Workloads[0].Repetitions) != 2 {
		return fmt.Errorf("result without two repetitions: %v", err)
	}
	w := res.Workloads[0]
	for _, rep := range w.Repetitions {
		sw := rep.Sweep
		if sw == nil {
			return fmt.Errorf("repetition %d was not swept", rep.Index)
		}
		ext := 0
		for _, s := range sw.Steps {
			if s.Extended {
				ext++
			}
		}
		knee, confirmed := 0.0, false
		if sw.Knee != nil {
			knee, confirmed = sw.Knee.Achieved, sw.Knee.Confirmed
		}
		fmt.Fprintf(out, "| r%d | %.0f | %.0f | %v | %d (%d) |\n", rep.Index, sw.Saturation, knee, confirmed, len(sw.Steps), ext)
	}
	switch a := w.Agreement; {
	case a == nil:
		fmt.Fprintf(out, "\nno agreement in the result\n\n")
	case a.Problem != "":
		fmt.Fprintf(out, "\nno agreement: %s\n\n", a.Problem)
	default:
		ranges := ""
		for i, r := range a.Ranges {
			ranges += fmt.Sprintf("; r%d: ", i+1)
			if i < len(a.Noise) {
				ranges += fmt.Sprintf("p99 repeat noise %.0f%%, ", 100*a.Noise[i])
			}
			ranges += fmt.Sprintf("knee between %.0f and %.0f ops/s", r.Low, r.High)
		}
		fmt.Fprintf(out, "\nthe two knees are %.1f%% apart (goal: within 3%%: %v); the saturations %.1f%% apart%s (the ranges meet, widened by the saturations' distance: %v); both sweeps with their runs in %.0f s\n\n",
			100*a.Apart, a.WithinGoal, 100*a.RunApart, ranges, a.WithinNoise, wall.Seconds())
	}
	return nil
}
