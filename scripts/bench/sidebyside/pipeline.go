package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

var (
	ybbenchBin   = flag.String("ybbench", "bin/ybbench", "ybbench binary (pipeline section; needs root and YBBENCH_TERRAFORM)")
	pipelineReps = flag.Int("pipeline-reps", 3, "repetitions of the pipeline section's runs")
)

// stageTimes runs ybbench stage by stage on a local cluster and returns
// each stage's wall time, read from the run's ledger.
func stageTimes(runs string, args []string, stages []string) (map[string]time.Duration, string, error) {
	up := exec.Command(*ybbenchBin, append([]string{"up", "--local", "--runs-dir=" + runs}, args...)...)
	upOut, upErr := up.CombinedOutput()
	m, _ := filepath.Glob(filepath.Join(runs, "*", "run.json"))
	if len(m) != 1 {
		if upErr != nil {
			return nil, "", fmt.Errorf("up: %v\n%s", upErr, upOut)
		}
		return nil, "", fmt.Errorf("want one run in %s, found %d", runs, len(m))
	}
	dir := filepath.Dir(m[0])
	firstErr := upErr
	if upErr != nil {
		firstErr = fmt.Errorf("up: %v\n%s", upErr, upOut)
	}
	for _, st := range stages {
		if firstErr != nil {
			break
		}
		if out, err := exec.Command(*ybbenchBin, st, "--run", dir).CombinedOutput(); err != nil {
			firstErr = fmt.Errorf("%s: %v\n%s", st, err, out)
		}
	}
	// Always down, even after a failed up; if it fails, the caller keeps
	// the run directory, which `ybbench down` needs to finish the job.
	if out, err := exec.Command(*ybbenchBin, "down", "--run", dir).CombinedOutput(); err != nil {
		return nil, dir, errors.Join(firstErr, fmt.Errorf("down: %v\n%s\nthe run is kept in %s: finish with ybbench down --run %s", err, out, dir, dir))
	}
	var l struct {
		Steps []struct {
			Name           string
			Started, Ended time.Time
		}
	}
	b, err := os.ReadFile(m[0])
	if err == nil {
		err = json.Unmarshal(b, &l)
	}
	if err != nil {
		return nil, dir, errors.Join(firstErr, fmt.Errorf("ledger: %w", err))
	}
	times := map[string]time.Duration{}
	for _, s := range l.Steps {
		name := s.Name
		if strings.HasPrefix(name, "bench/") {
			name = "bench"
		}
		times[name] += s.Ended.Sub(s.Started)
	}
	return times, dir, firstErr
}

// pipelineSection measures the pipeline's own overhead (up, preflight,
// install, collect, report, down on 3+1 local hosts, the workload aside) and
// the fan-out of install over 9 hosts, in parallel and one at a time.
func pipelineSection(out *strings.Builder) error {
	if os.Geteuid() != 0 || os.Getenv("YBBENCH_TERRAFORM") == "" {
		fmt.Fprintln(out, "## Pipeline\n\nskipped: needs root and YBBENCH_TERRAFORM")
		return nil
	}
	quick := []string{"--workloads=workloada", "--records=2000", "--operations=4000", "--threads=8", "--load-threads=4"}
	overhead := map[string][]time.Duration{}
	for i := 0; i < *pipelineReps; i++ {
		runs, _ := os.MkdirTemp("", "pipeline-bench-")
		os.Chmod(runs, 0o755)
		t, _, err := stageTimes(runs, append([]string{"--db-hosts=3", "--client-hosts=1", "--subnet=10.213.140.0/24"}, quick...),
			[]string{"install", "bench", "collect", "report"})
		if err != nil {
			return err // the run directory stays for inspection and down
		}
		os.RemoveAll(runs)
		for k, v := range t {
			overhead[k] = append(overhead[k], v)
		}
	}
	fmt.Fprintf(out, "## Pipeline overhead (local cluster, 3 db + 1 client hosts, postgres flavor, %d runs)\n\n| stage | median | spread |\n|---|---|---|\n", *pipelineReps)
	var total time.Duration
	for _, st := range []string{"up", "preflight", "install", "bench", "collect", "report", "down"} {
		d := overhead[st]
		if len(d) == 0 {
			continue
		}
		slices.Sort(d)
		med := d[len(d)/2]
		if st != "bench" {
			total += med
		}
		fmt.Fprintf(out, "| %s | %.1f s | %.1f–%.1f s |\n", st, med.Seconds(), d[0].Seconds(), d[len(d)-1].Seconds())
	}
	fmt.Fprintf(out, "\nup + preflight + install + collect + report + down (the workload aside): %.1f s (target: under 60 s)\n\n", total.Seconds())

	fan := map[string][]time.Duration{}
	for i := 0; i < *pipelineReps; i++ {
		for _, par := range []string{"0", "1"} {
			runs, _ := os.MkdirTemp("", "pipeline-bench-")
			os.Chmod(runs, 0o755)
			t, _, err := stageTimes(runs, []string{"--db-hosts=9", "--client-hosts=1", "--subnet=10.213.141.0/24", "--parallel=" + par}, []string{"install"})
			if err != nil {
				return err // the run directory stays for inspection and down
			}
			os.RemoveAll(runs)
			fan[par] = append(fan[par], t["install"])
		}
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	p, s := med(fan["0"]), med(fan["1"])
	fmt.Fprintf(out, "## Fan-out: install on 9 db hosts (primary, then 8 replicas)\n\n| parallelism | median | spread |\n|---|---|---|\n| all at once | %.1f s | %.1f–%.1f s |\n| one at a time | %.1f s | %.1f–%.1f s |\n\nparallel ÷ serial = %.2f (target ≤ 0.5)\n\n",
		p.Seconds(), fan["0"][0].Seconds(), fan["0"][len(fan["0"])-1].Seconds(), s.Seconds(), fan["1"][0].Seconds(), fan["1"][len(fan["1"])-1].Seconds(), p.Seconds()/s.Seconds())
	return nil
}
