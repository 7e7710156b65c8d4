package main

// The orchestrator's fan-out (-only fanout): its own wall time for up,
// preflight, install and down on local clusters of growing size, with the
// postgres flavor and with a flavor that installs nothing (one SSH command
// per db host), so that ybbench's own fan-out shows apart from the
// database's install. scripts/bench/fanout is the program that wires the
// pipeline with that flavor; this section builds it and runs it once per
// cluster, as a child process.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

var (
	fanoutHosts  = flag.String("fanout-hosts", "3,9,30", "host counts of the fanout section, ascending (each: one client, the rest db hosts)")
	fanoutReps   = flag.Int("fanout-reps", 3, "repetitions of the fanout section's runs, the flavors alternated")
	fanoutSubnet = flag.String("fanout-subnet", "10.213.170.0/24", "the fanout section's local clusters' subnet")
)

// The fanout section's flavors: the program's own, then the real one.
const (
	fanoutNone     = "none"
	fanoutPostgres = "postgres"
	// fanoutSerial is the flavor that installs nothing, one host at a time.
	fanoutSerial = "none, parallel=1"
)

// fanoutStages are the stages timed, in order; fanoutSum those summed.
var (
	fanoutStages = []string{"up", "preflight", "install", "down"}
	fanoutSum    = []string{"up", "install", "down"}
)

// fanoutRun is one cluster's run: each stage's wall time (s), the
// program's CPU over the stages, its own (ybbench's code) and its
// children's (Terraform, hosts.sh; not the hosts' sshd and scripts), and
// the machine's busy cores over the run.
type fanoutRun struct {
	stage                 map[string]float64
	cpu                   map[string]stageCPU
	self, children, cores float64
	// preflight is why the preflight failed (the program goes on to the
	// install, which needs none).
	preflight string
}

// stageCPU is a stage's CPU seconds: the program's own, its children's.
type stageCPU struct {
	Self     float64 `json:"self"`
	Children float64 `json:"children"`
}

func (r fanoutRun) sum() float64 {
	var s float64
	for _, st := range fanoutSum {
		s += r.stage[st]
	}
	return s
}

// fanoutSection runs every host count with both flavors, -fanout-reps
// times, and prints each flavor's growth.
func fanoutSection(out *strings.Builder) error {
	if os.Geteuid() != 0 || os.Getenv("YBBENCH_TERRAFORM") == "" {
		fmt.Fprintln(out, "## Orchestrator fan-out\n\nskipped: needs root and YBBENCH_TERRAFORM")
		return nil
	}
	var counts []int
	for _, f := range strings.Split(*fanoutHosts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || (len(counts) > 0 && n <= counts[len(counts)-1]) {
			return fmt.Errorf("-fanout-hosts=%s: want ascending counts of at least 2 hosts", *fanoutHosts)
		}
		counts = append(counts, n)
	}
	if *fanoutReps < 1 {
		return fmt.Errorf("-fanout-reps=%d: must be at least 1", *fanoutReps)
	}
	bin, err := filepath.Abs(filepath.Join(*workdir, "fanout"))
	if err != nil {
		return err
	}
	if b, err := exec.Command("go", "build", "-o", bin, "./scripts/bench/fanout").CombinedOutput(); err != nil {
		return fmt.Errorf("build scripts/bench/fanout: %v\n%s", err, b)
	}
	flavors := []string{fanoutNone, fanoutPostgres}
	runs := map[string]map[int][]fanoutRun{fanoutNone: {}, fanoutPostgres: {}, fanoutSerial: {}}
	largest := counts[len(counts)-1]
	for rep := 0; rep < *fanoutReps; rep++ {
		for _, n := range counts {
			variants := flavors
			if n == largest {
				// And the install one host at a time: what the fan-out
				// saves when the hosts' work is waiting, not CPU.
				variants = append(slices.Clone(flavors), fanoutSerial)
			}
			for _, v := range alternated(variants, rep) {
				fl, par := v, 0
				if v == fanoutSerial {
					fl, par = fanoutNone, 1
				}
				r, err := fanoutOnce(bin, fl, n, par)
				if err != nil {
					return fmt.Errorf("%s on %d hosts: %w", v, n, err)
				}
				runs[v][n] = append(runs[v][n], r)
			}
		}
	}
	fmt.Fprintf(out, "## Orchestrator fan-out (local clusters of %s hosts: one client, the rest db hosts; the orchestrator's wall time per stage from the run's ledger, medians of %d runs, the flavors alternated)\n\n",
		*fanoutHosts, *fanoutReps)
	for _, fl := range flavors {
		writeFanoutTable(out, fl, counts, runs[fl])
		if fl == fanoutNone {
			all, one := medianValue(valuesOf(runs[fanoutNone][largest], stageOf("install"))), medianValue(valuesOf(runs[fanoutSerial][largest], stageOf("install")))
			fmt.Fprintf(out, "install on %d hosts one at a time (parallel=1): %.1f s; all at once %.1f s; all at once ÷ one at a time = %.2f\n\n", largest, one, all, all/one)
		}
	}
	return nil
}

// stageOf reads a stage's wall time off a run.
func stageOf(st string) func(fanoutRun) float64 {
	return func(r fanoutRun) float64 { return r.stage[st] }
}

// fanoutOnce runs the program on one cluster of n hosts, with the
// parallel setting par (0: all hosts at once).
func fanoutOnce(bin, flavor string, n, par int) (fanoutRun, error) {
	runs, err := os.MkdirTemp("", "fanout-bench-")
	if err != nil {
		return fanoutRun{}, err
	}
	os.Chmod(runs, 0o755)
	logPath := filepath.Join(*workdir, fmt.Sprintf("fanout-%s-%d-p%d.log", flavor, n, par))
	log, err := os.Create(logPath)
	if err != nil {
		return fanoutRun{}, err
	}
	defer log.Close()
	cmd := exec.Command(bin, "-runs-dir", runs, "-db-hosts", strconv.Itoa(n-1), "-client-hosts", "1", "-subnet", *fanoutSubnet, "-flavor", flavor,
		"-parallel", strconv.Itoa(par))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, log
	b0, t0 := machineBusy()
	err = cmd.Run()
	b1, t1 := machineBusy()
	var res struct {
		Seconds   map[string]float64  `json:"seconds"`
		CPU       map[string]stageCPU `json:"cpu"`
		Preflight string              `json:"preflight_error"`
	}
	if err == nil {
		err = json.Unmarshal(stdout.Bytes(), &res)
	}
	if err != nil {
		// The run directory stays, for ybbench down if it came to that.
		return fanoutRun{}, fmt.Errorf("%v (log %s, runs in %s)\n%s", err, logPath, runs, stdout.String())
	}
	os.RemoveAll(runs)
	r := fanoutRun{stage: res.Seconds, cpu: res.CPU, preflight: res.Preflight}
	for _, c := range res.CPU {
		r.self, r.children = r.self+c.Self, r.children+c.Children
	}
	if t1 > t0 {
		// /proc/stat's first line sums every core's ticks: busy over
		// total is the share of the machine, times its cores.
		r.cores = float64(b1-b0) / float64(t1-t0) * float64(numCPU())
	}
	return r, nil
}

// numCPU is the number of cores /proc/stat counts.
func numCPU() int {
	b, _ := os.ReadFile("/proc/stat")
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "cpu") && len(l) > 3 && l[3] >= '0' && l[3] <= '9' {
			n++
		}
	}
	return max(n, 1)
}

// writeFanoutTable prints one flavor's medians per host count, each
// stage's fitted exponent and, for the flavor that installs nothing, the
// goal line.
func writeFanoutTable(out *strings.Builder, flavor string, counts []int, runs map[int][]fanoutRun) {
	med := func(rs []fanoutRun, f func(fanoutRun) float64) float64 {
		v := valuesOf(rs, f)
		slices.Sort(v)
		return v[len(v)/2]
	}
	if flavor == fanoutNone {
		fmt.Fprint(out, "Flavor that installs nothing (its install claims the run's directory on each db host: one SSH command per host, through provision.Parallel):\n\n")
	} else {
		fmt.Fprint(out, "Flavor postgres (a primary, then a streaming replica on every other db host):\n\n")
	}
	fmt.Fprint(out, "| hosts | up s | preflight s | install s | down s | up+install+down s | spread | s per host | ybbench CPU s | Terraform + hosts.sh CPU s | machine busy cores |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	x := make([]float64, len(counts))
	fits := map[string][]float64{}
	for i, n := range counts {
		rs := runs[n]
		x[i] = float64(n)
		fmt.Fprintf(out, "| %d |", n)
		for _, st := range fanoutStages {
			m := med(rs, stageOf(st))
			fits[st] = append(fits[st], m)
			fmt.Fprintf(out, " %.1f |", m)
		}
		sum := valuesOf(rs, fanoutRun.sum)
		m := medianValue(sum)
		fits["sum"] = append(fits["sum"], m)
		fmt.Fprintf(out, " %.1f | %.1f–%.1f | %.2f | %.2f | %.1f | %.2f |\n", m, slices.Min(sum), slices.Max(sum), m/float64(n),
			med(rs, func(r fanoutRun) float64 { return r.self }), med(rs, func(r fanoutRun) float64 { return r.children }),
			med(rs, func(r fanoutRun) float64 { return r.cores }))
	}
	writePreflightFailures(out, counts, runs)
	var parts []string
	for _, st := range append(slices.Clone(fanoutStages), "sum") {
		name := st
		if st == "sum" {
			name = "up+install+down"
		}
		if b, _, ok := powerFit(x, fits[st]); ok {
			last, first := fits[st][len(counts)-1], fits[st][0]
			parts = append(parts, fmt.Sprintf("%s b = %.2f (%d ÷ %d hosts: %.2f)", name, b, counts[len(counts)-1], counts[0], last/first))
		}
	}
	fmt.Fprintf(out, "\ngrowth, time ∝ hosts^b (least squares on log–log of the medians): %s\n", strings.Join(parts, "; "))
	n := counts[len(counts)-1]
	var cpu []string
	for _, st := range fanoutStages {
		cpu = append(cpu, fmt.Sprintf("%s %.2f / %.1f", st, med(runs[n], func(r fanoutRun) float64 { return r.cpu[st].Self }),
			med(runs[n], func(r fanoutRun) float64 { return r.cpu[st].Children })))
	}
	fmt.Fprintf(out, "\nCPU s at %d hosts by stage, ybbench's own / Terraform + hosts.sh (medians): %s\n", n, strings.Join(cpu, "; "))
	if flavor == fanoutNone {
		s := fits["sum"]
		fmt.Fprintf(out, "\norchestrator fan-out, no-install flavor: time at %d hosts ÷ time at %d hosts = %.2f (goal < 2; up+install+down)\n",
			counts[len(counts)-1], counts[0], s[len(s)-1]/s[0])
	}
	fmt.Fprintln(out)
}

// writePreflightFailures says in how many runs the preflight failed, and
// why the first did; the install was timed still.
func writePreflightFailures(out *strings.Builder, counts []int, runs map[int][]fanoutRun) {
	failed, total, first := 0, 0, ""
	for _, n := range counts {
		for _, r := range runs[n] {
			total++
			if r.preflight != "" {
				failed++
				if first == "" {
					first = fmt.Sprintf("%d hosts: %s", n, strings.SplitN(r.preflight, "\n", 2)[0])
				}
			}
		}
	}
	if failed > 0 {
		fmt.Fprintf(out, "\nthe preflight failed in %d of %d runs (the install timed still; first: %s)\n", failed, total, first)
	}
}
