package main

// What one sysbench-format run says, and how the sysbench section sums up
// a configuration's runs: by the run with the median figure, whose other
// figures (queries per transaction) are then those of one real run.

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// sbFigures are what a sysbench-format report says.
type sbFigures struct {
	events, read, write, other, errors int64
	tps                                float64
}

var (
	sbTxLine  = regexp.MustCompile(`(?m)^\s+transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`)
	sbNumLine = func(label string) *regexp.Regexp { return regexp.MustCompile(`(?m)^\s+` + label + `:\s+(\d+)`) }
	sbRead    = sbNumLine("read")
	sbWrite   = sbNumLine("write")
	sbOther   = sbNumLine("other")
	sbErrors  = sbNumLine("ignored errors")
)

func parseSysbench(out string) (sbFigures, error) {
	var f sbFigures
	m := sbTxLine.FindStringSubmatch(out)
	if m == nil {
		return f, fmt.Errorf("no transactions line in:\n%s", out)
	}
	f.events, _ = strconv.ParseInt(m[1], 10, 64)
	f.tps, _ = strconv.ParseFloat(m[2], 64)
	for _, x := range []struct {
		re  *regexp.Regexp
		dst *int64
	}{{sbRead, &f.read}, {sbWrite, &f.write}, {sbOther, &f.other}, {sbErrors, &f.errors}} {
		if m := x.re.FindStringSubmatch(out); m != nil {
			*x.dst, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	return f, nil
}

func (f sbFigures) perTx() (r, w, o float64) {
	if f.events == 0 {
		return 0, 0, 0
	}
	n := float64(f.events)
	return float64(f.read) / n, float64(f.write) / n, float64(f.other) / n
}

// sbRun is one measured run of one client.
type sbRun struct {
	s sample
	f sbFigures
	// start is the CPU of the same client's start-up and teardown: a run of
	// one transaction per thread just before, in the same placement. At 64
	// threads sysbench's start (a LuaJIT state and a connection per thread)
	// is a large part of a short run's CPU.
	start time.Duration
}

// sbMeasureRun measures one run of a sysbench-format client and reads its
// report.
func sbMeasureRun(args []string) (sbRun, error) {
	s, err := measure(args, 0)
	if err != nil {
		return sbRun{}, err
	}
	f, err := parseSysbench(s.stdout)
	return sbRun{s: s, f: f}, err
}

// tps is transactions per second as the tool reported it.
func (r sbRun) tps() float64 { return r.f.tps }

// cpuPerTx is client CPU per transaction, the start-up's taken off.
func (r sbRun) cpuPerTx() float64 {
	return float64((r.s.cpu - r.start).Microseconds()) / float64(max(r.f.events, 1))
}

// rawCPUPerTx is the whole process's CPU per transaction.
func (r sbRun) rawCPUPerTx() float64 {
	return float64(r.s.cpu.Microseconds()) / float64(max(r.f.events, 1))
}

func startCPU(x sbRun) float64 { return x.s.cpu.Seconds() }

func medianOf(xs []sbRun, f func(sbRun) float64) float64 { return f(medianRun(xs, f)) }

// medianRun is the run with the median value of f (the upper one of two).
func medianRun(xs []sbRun, f func(sbRun) float64) sbRun {
	s := append([]sbRun(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && f(s[j]) < f(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

func spreadOf(xs []sbRun, f func(sbRun) float64) string {
	lo, hi := f(xs[0]), f(xs[0])
	for _, x := range xs {
		lo, hi = min(lo, f(x)), max(hi, f(x))
	}
	return fmt.Sprintf("%.4g–%.4g", lo, hi)
}

// sbKey names one configuration of the sysbench section.
type sbKey struct {
	place   string
	threads int
	wl      string
	tool    string
}

func (k sbKey) String() string {
	return fmt.Sprintf("%s %s (%s, %d threads)", k.wl, k.tool, k.place, k.threads)
}
