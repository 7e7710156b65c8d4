package main

// How one client run is measured, and how a configuration's repetitions
// are summed up: every section compares tools by these same definitions.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	wall   time.Duration
	cpu    time.Duration // user + sys of the client process
	maxRSS int64         // KiB
	ops    int64
	thr    float64 // ops/s as the tool reported it
	stdout string
}

var ycsbThroughput = regexp.MustCompile(`\[OVERALL\], Throughput\(ops/sec\), ([0-9.E]+)`)

// measure runs one client process and takes its wall time, CPU and peak RSS.
func measure(args []string, ops int64) (sample, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, _ := os.CreateTemp("", "sidebyside-*.err")
	defer os.Remove(stderr.Name())
	cmd.Stderr = stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		stderr.Seek(0, io.SeekStart)
		tail := tailOf(stderr, 20)
		return sample{}, fmt.Errorf("%v: %v\n%s", strings.Join(redact(args), " "), err, tail)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{wall: wall, ops: ops, stdout: stdout.String(), maxRSS: ru.Maxrss,
		cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	if m := ycsbThroughput.FindStringSubmatch(s.stdout); m != nil {
		s.thr, _ = strconv.ParseFloat(m[1], 64)
	}
	return s, nil
}

func redact(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if strings.Contains(a, "password=") || strings.Contains(a, "passwd=") {
			k, _, _ := strings.Cut(a, "=")
			out[i] = k + "=****"
		}
	}
	return out
}

func tailOf(f *os.File, n int) string {
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// alternated is the order of the tools in repetition rep: as given in even
// repetitions, reversed in odd ones, so that a drift of the shared machine
// over a repetition does not fall on one tool's runs alone.
func alternated(tools []string, rep int) []string {
	tools = slices.Clone(tools)
	if rep%2 == 1 {
		slices.Reverse(tools)
	}
	return tools
}

// rate is operations per second of the client's whole wall time, the same
// definition for every tool (each tool's own figure differs: go-ycsb counts
// from its first sample, YCSB from before its threads start).
func rate(s sample) float64     { return float64(s.ops) / s.wall.Seconds() }
func cpuPerOp(s sample) float64 { return float64(s.cpu.Microseconds()) / float64(s.ops) }

func median(s []sample, f func(sample) float64) float64 {
	v := make([]float64, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

func spread(s []sample, f func(sample) float64) string {
	lo, hi := f(s[0]), f(s[0])
	for _, x := range s {
		lo, hi = min(lo, f(x)), max(hi, f(x))
	}
	return fmt.Sprintf("%.4g–%.4g", lo, hi)
}

// writeRunTable prints the YCSB run phases' table, one row per "workload |
// client" key: the PostgreSQL and YCQL sections print theirs alike, so that
// the two read the same.
func writeRunTable(out *strings.Builder, runs map[string][]sample) {
	fmt.Fprintf(out, "| workload | client | ops/s (median) | spread | client CPU µs/op (median) | spread |\n|---|---|---|---|---|---|\n")
	for _, k := range sortedKeys(runs) {
		s := runs[k]
		fmt.Fprintf(out, "| %s | %.0f | %s | %.1f | %s |\n", k, median(s, rate), spread(s, rate), median(s, cpuPerOp), spread(s, cpuPerOp))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}
