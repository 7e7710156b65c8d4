package main

// The pacing section (-only pacing): how close to its intended start a
// paced operation starts, measured where the operation itself takes no
// time (no database: ybload's null binding, YCSB core 0.17.0's BasicDB),
// so that the response time measured from the intended start is the
// pacer's own error. A target run at several rates, each tool its own
// process, the tools' order alternating: the response time's p50, p99 and
// p99.9, ybload's share of operations that started more than 1 ms late
// (the sweep's rule), and each process's busy cores. YCSB waits with
// LockSupport.parkNanos; it prints its intended-start latencies with
// measurement.interval=both.

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/bench/ycsb"
)

var (
	pacingTargets = flag.String("pacing-targets", "1000,5000,20000", "operations a second of the pacing section's target runs")
	pacingThreads = flag.Int("pacing-threads", 64, "threads of the pacing section's runs")
	pacingTime    = flag.Int("pacing-time", 10, "seconds of each run of the pacing section")
	pacingReps    = flag.Int("pacing-reps", 3, "repetitions of the pacing section's runs, the tools alternated")
	pacingOther   = flag.String("pacing-other", "", "another ybload binary to run beside -ybload in the pacing section (one built from an earlier commit, say)")
)

// pacingRun is one run's figures: the process's, and the response time
// (from the intended start) of its reads.
type pacingRun struct {
	sample
	p50, p99, p999 float64 // µs
	late           float64 // share over 1 ms late; -1: the tool does not count it
}

var ycsbIntended = regexp.MustCompile(`\[Intended-READ\], ([0-9.]+?)(?:th)?PercentileLatency\(us\), ([0-9.]+)`)

func pacingSection(out *strings.Builder) error {
	targets, err := intList("pacing-targets", *pacingTargets)
	if err != nil {
		return err
	}
	if *pacingThreads < 1 || *pacingTime < 1 || *pacingReps < 1 {
		return fmt.Errorf("-pacing-threads=%d -pacing-time=%d -pacing-reps=%d: each must be at least 1", *pacingThreads, *pacingTime, *pacingReps)
	}
	tools := []string{"ybload"}
	if *pacingOther != "" {
		tools = append(tools, "ybload ("+*pacingOther+")")
	}
	var java, classpath string
	if b, err := os.ReadFile(*endpoints); err == nil {
		var env refsEnv
		if json.Unmarshal(b, &env) == nil && env.Refs != nil {
			java, classpath = env.Refs.Java, env.Refs.YCSBClassPath
		}
	}
	if java != "" {
		tools = append(tools, "YCSB core 0.17.0")
	}
	fmt.Fprintf(out, "## Pacing: how late a paced operation starts (no database: ybload's null binding, YCSB's BasicDB; workload C, %d threads, %d s runs, %d repetitions, the tools alternated)\n\n",
		*pacingThreads, *pacingTime, *pacingReps)
	if java == "" {
		fmt.Fprintf(out, "YCSB core is not in %s (make testenv fetches it): ybload alone.\n\n", *endpoints)
	}
	fmt.Fprintf(out, "The operations take no time, so the response time from the intended start is the pacer's error. Medians of the repetitions; late = share of operations that started more than 1 ms after their intended start (ybload counts them; YCSB does not); cores = the process's CPU over its wall time (YCSB's includes its JVM's start-up).\n\n")
	fmt.Fprintf(out, "| target ops/s | tool | achieved ops/s | response p50 µs | p99 µs | p99.9 µs | late > 1 ms | busy cores | CPU µs/op |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, target := range targets {
		runs := map[string][]pacingRun{}
		for rep := 0; rep < *pacingReps; rep++ {
			for _, tool := range alternated(tools, rep) {
				var r pacingRun
				switch {
				case tool == "ybload":
					r, err = ybloadPaced(*ybload, target)
				case strings.HasPrefix(tool, "ybload ("):
					r, err = ybloadPaced(*pacingOther, target)
				default:
					r, err = ycsbPaced(java, classpath, target)
				}
				if err != nil {
					return fmt.Errorf("%s at %d ops/s: %w", tool, target, err)
				}
				runs[tool] = append(runs[tool], r)
			}
		}
		for _, tool := range tools {
			rs := runs[tool]
			med := func(f func(pacingRun) float64) float64 { return medianValue(valuesOf(rs, f)) }
			late := "—"
			if rs[0].late >= 0 {
				late = fmt.Sprintf("%.2f%%", 100*med(func(r pacingRun) float64 { return r.late }))
			}
			fmt.Fprintf(out, "| %d | %s | %.0f | %.0f | %.0f | %.0f | %s | %.3f | %.1f |\n", target, tool,
				med(func(r pacingRun) float64 { return r.thr }),
				med(func(r pacingRun) float64 { return r.p50 }), med(func(r pacingRun) float64 { return r.p99 }), med(func(r pacingRun) float64 { return r.p999 }),
				late, med(func(r pacingRun) float64 { return r.cpu.Seconds() / r.wall.Seconds() }), med(func(r pacingRun) float64 { return cpuPerOp(r.sample) }))
		}
	}
	out.WriteString("\n")
	return nil
}

// ybloadPaced runs bin one -pacing-time target run on the null binding
// and reads its reads' response time from its summary file.
func ybloadPaced(bin string, target int) (pacingRun, error) {
	ops := int64(target * *pacingTime)
	summary := filepath.Join(*workdir, "pacing-summary.json")
	s, err := measure([]string{bin, "run", "null", "-P", workloadFile("workloadc"), "-threads", strconv.Itoa(*pacingThreads),
		"-target", strconv.Itoa(target), "-p", "operationcount=" + strconv.FormatInt(ops, 10), "-p", "recordcount=1000",
		"-p", "ybload.summary=" + summary, "-s"}, ops)
	if err != nil {
		return pacingRun{}, err
	}
	b, err := os.ReadFile(summary)
	if err != nil {
		return pacingRun{}, err
	}
	var sum ycsb.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return pacingRun{}, fmt.Errorf("%s: %w", summary, err)
	}
	for _, m := range sum.Measurements {
		if m.Name == "READ" && m.Latency == "response" && m.Count > 0 {
			s.thr = sum.Throughput
			return pacingRun{sample: s, p50: float64(m.P50US), p99: float64(m.P99US), p999: float64(m.P999US), late: float64(m.Late) / float64(m.Count)}, nil
		}
	}
	return pacingRun{}, fmt.Errorf("%s: no READ response-time measurement", summary)
}

// ycsbPaced runs YCSB core's Client with BasicDB at the target and reads
// its intended-start latencies.
func ycsbPaced(java, classpath string, target int) (pacingRun, error) {
	ops := int64(target * *pacingTime)
	s, err := measure([]string{java, "-cp", classpath, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB",
		"-P", workloadFile("workloadc"), "-p", "basicdb.verbose=false", "-p", "operationcount=" + strconv.FormatInt(ops, 10),
		"-p", "recordcount=1000", "-threads", strconv.Itoa(*pacingThreads), "-target", strconv.Itoa(target),
		"-p", "measurement.interval=both", "-p", "hdrhistogram.percentiles=50,99,99.9", "-s"}, ops)
	if err != nil {
		return pacingRun{}, err
	}
	r := pacingRun{sample: s, late: -1}
	found := 0
	for _, m := range ycsbIntended.FindAllStringSubmatch(s.stdout, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[1] {
		case "50":
			r.p50, found = v, found+1
		case "99":
			r.p99, found = v, found+1
		case "99.9":
			r.p999, found = v, found+1
		}
	}
	if found != 3 {
		return pacingRun{}, fmt.Errorf("YCSB printed %d of the intended-start percentiles 50, 99, 99.9", found)
	}
	return r, nil
}
