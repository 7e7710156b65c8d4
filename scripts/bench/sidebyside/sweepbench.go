package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sweepResult is what of result.json the sweep section reads.
type sweepResult struct {
	Workloads []struct {
		Sweep *struct {
			Saturation float64 `json:"saturation_ops_per_sec"`
			Steps      []struct {
				Extended bool `json:"extended"`
			} `json:"steps"`
			Knee *struct {
				Achieved  float64 `json:"achieved_ops_per_sec"`
				Confirmed bool    `json:"confirmed"`
			} `json:"knee"`
		} `json:"sweep"`
	} `json:"workloads"`
}

// sweepSection runs the same sweep of YCSB C twice, each on a local
// cluster of its own (1 db host, 1 client, 3 s steps), and prints each
// knee, how far apart they are (the goal: within 3%), and how
// long each sweep took.
func sweepSection(out *strings.Builder) error {
	if os.Geteuid() != 0 || os.Getenv("YBBENCH_TERRAFORM") == "" {
		fmt.Fprintln(out, "## Sweep\n\nskipped: needs root and YBBENCH_TERRAFORM")
		return nil
	}
	fmt.Fprintf(out, "## Sweep (YCSB C, 16 threads, 3 s steps at 20%% and 80%% of the run's throughput, bisected; late_after 10ms; two runs)\n\n| run | saturation ops/s | knee ops/s | confirmed | steps (extended) | wall time |\n|---|---|---|---|---|---|\n")
	var knees []float64
	for i := 1; i <= 2; i++ {
		runs, _ := os.MkdirTemp("", "sweep-bench-")
		os.Chmod(runs, 0o755)
		start := time.Now()
		args := []string{"run", "--local", "--runs-dir=" + runs, "--flavor=postgres", "--db-hosts=1", "--client-hosts=1", "--subnet=10.213.143.0/24",
			"--workloads=workloadc", "--records=2000", "--operations=100000000", "--duration=3s", "--threads=16", "--load-threads=4",
			"--start-delay=1s", "--late-after=10ms", "--sweep", "--sweep-fractions=20,80"}
		b, err := exec.Command(*ybbenchBin, args...).CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			return fmt.Errorf("run --sweep: %v\n%s", err, b)
		}
		m, _ := filepath.Glob(filepath.Join(runs, "*", "result.json"))
		if len(m) != 1 {
			return fmt.Errorf("want one result in %s, found %d", runs, len(m))
		}
		raw, err := os.ReadFile(m[0])
		if err != nil {
			return err
		}
		os.RemoveAll(runs)
		var res sweepResult
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Workloads) == 0 || res.Workloads[0].Sweep == nil {
			return fmt.Errorf("result without a sweep: %v", err)
		}
		sw := res.Workloads[0].Sweep
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
		knees = append(knees, knee)
		fmt.Fprintf(out, "| %d | %.0f | %.0f | %v | %d (%d) | %.0f s |\n", i, sw.Saturation, knee, confirmed, len(sw.Steps), ext, wall.Seconds())
	}
	if knees[0] > 0 && knees[1] > 0 {
		fmt.Fprintf(out, "\nthe two knees are %.1f%% apart (goal: within 3%%)\n\n", 100*math.Abs(knees[1]-knees[0])/knees[0])
	}
	return nil
}
