package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

var samplingReps = flag.Int("sampling-reps", 3, "repetitions of the sampling section's runs, each with the hosts' sampling on and off")

// machineBusy is this machine's /proc/stat busy and total ticks.
func machineBusy() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i := 1; i < len(f) && i <= 8; i++ {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		total += v
		if i != 4 && i != 5 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// busyTimeline reads this machine's busy ticks every 250 ms until stopped.
type busyTimeline struct {
	mu   sync.Mutex
	at   []time.Time
	busy []int64
	stop chan struct{}
	done chan struct{}
}

func startTimeline() *busyTimeline {
	t := &busyTimeline{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			b, _ := machineBusy()
			t.mu.Lock()
			t.at, t.busy = append(t.at, time.Now()), append(t.busy, b)
			t.mu.Unlock()
			select {
			case <-t.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return t
}

// cores is the machine's busy cores between from and to (100 ticks/s).
func (t *busyTimeline) cores(from, to time.Time) float64 {
	close(t.stop)
	<-t.done
	i := slices.IndexFunc(t.at, func(x time.Time) bool { return !x.Before(from) })
	j := slices.IndexFunc(t.at, func(x time.Time) bool { return x.After(to) }) - 1
	if j < 0 {
		j = len(t.at) - 1
	}
	if i < 0 || j <= i {
		return 0
	}
	return float64(t.busy[j]-t.busy[i]) / 100 / t.at[j].Sub(t.at[i]).Seconds()
}

// samplingRun runs one light paced workload on a local cluster with the
// hosts' sampling on or off, and returns the machine's busy cores over
// the middle of its measured phase, the agent's cores as the attribution
// read them, and what each host's readings said reading it cost, in
// percent of one core (on only).
func samplingRun(samples string) (machine, agent float64, sampler []float64, err error) {
	runs, _ := os.MkdirTemp("", "sampling-bench-")
	os.Chmod(runs, 0o755)
	defer os.RemoveAll(runs)
	tl := startTimeline()
	args := []string{"run", "--local", "--runs-dir=" + runs, "--flavor=postgres", "--db-hosts=3", "--client-hosts=1", "--subnet=10.213.142.0/24",
		"--workloads=workloadc", "--records=2000", "--operations=100000000", "--duration=30s", "--threads=2", "--load-threads=2",
		"--agent-properties=target=200", "--host-samples=" + samples}
	if out, err := exec.Command(*ybbenchBin, args...).CombinedOutput(); err != nil {
		tl.cores(time.Now(), time.Now())
		return 0, 0, nil, fmt.Errorf("run --host-samples=%s: %v\n%s", samples, err, out)
	}
	m, _ := filepath.Glob(filepath.Join(runs, "*", "run.json"))
	if len(m) != 1 {
		return 0, 0, nil, fmt.Errorf("want one run in %s, found %d", runs, len(m))
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
		return 0, 0, nil, err
	}
	var from, to time.Time
	for _, s := range l.Steps {
		if s.Name == "bench/workloadc/run" {
			from, to = s.Started.Add(8*time.Second), s.Ended.Add(-2*time.Second)
		}
	}
	machine = tl.cores(from, to)
	var res struct {
		Workloads []struct {
			Limit *struct {
				Hosts []struct {
					Role     string   `json:"role"`
					OwnCores float64  `json:"own_cores"`
					Sampler  *float64 `json:"sampler_percent_of_core"`
				} `json:"hosts"`
			} `json:"limit"`
		} `json:"workloads"`
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(m[0]), "result.json")); err == nil && json.Unmarshal(b, &res) == nil && len(res.Workloads) > 0 && res.Workloads[0].Limit != nil {
		for _, h := range res.Workloads[0].Limit.Hosts {
			if h.Role == "client" {
				agent = h.OwnCores
			}
			if h.Sampler != nil {
				sampler = append(sampler, *h.Sampler)
			}
		}
	}
	return machine, agent, sampler, nil
}

// samplingSection measures what reading every host each second costs:
// the same light paced run (YCSB C at 200 ops/s, 3 db hosts and a client)
// with the hosts' sampling on and off, alternated; the machine's busy
// cores over the measured phase, on less off, over the 4 hosts, is the
// cost per host (goal: under 1% of one core), which the machine's other
// work swamps in a run this short; beside it, what each host's readings
// counted of their own shell's CPU time, which nothing else is in.
func samplingSection(out *strings.Builder) error {
	if os.Geteuid() != 0 || os.Getenv("YBBENCH_TERRAFORM") == "" {
		fmt.Fprintln(out, "## Host sampling\n\nskipped: needs root and YBBENCH_TERRAFORM")
		return nil
	}
	busy := map[string][]float64{}
	var agent, sampler []float64
	for i := 0; i < *samplingReps; i++ {
		order := []string{"on", "off"}
		if i%2 == 1 {
			order = []string{"off", "on"}
		}
		for _, s := range order {
			m, a, sm, err := samplingRun(s)
			if err != nil {
				return err
			}
			busy[s] = append(busy[s], m)
			if s == "on" {
				agent = append(agent, a)
				sampler = append(sampler, sm...)
			}
		}
	}
	med := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
	on, off := med(busy["on"]), med(busy["off"])
	fmt.Fprintf(out, "## Host sampling (3 db + 1 client local hosts, YCSB C at 200 ops/s, 30 s, %d runs each, alternated)\n\n", *samplingReps)
	fmt.Fprintf(out, "| sampling | machine busy cores (median) | runs |\n|---|---|---|\n| on | %.3f | %v |\n| off | %.3f | %v |\n\n", on, fmtCores(busy["on"]), off, fmtCores(busy["off"]))
	fmt.Fprintf(out, "cost per host: (on − off) ÷ 4 = %.2f%% of one core (goal: under 1%%); the agent used %s cores with sampling on\n\n", 100*(on-off)/4, fmtCores(agent))
	if len(sampler) == 0 {
		return fmt.Errorf("no host's readings said what they cost (limit.hosts[].sampler_percent_of_core)")
	}
	fmt.Fprintf(out, "cost per host, as each host's readings counted their own shell (%d hosts of %d runs): median %.2f%%, highest %.2f%% of one core (goal: under 1%%)\n\n",
		len(sampler), *samplingReps, med(sampler), slices.Max(sampler))
	return nil
}

func fmtCores(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprintf("%.3f", x))
	}
	return strings.Join(s, " ")
}
