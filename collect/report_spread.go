package collect

import (
	"fmt"
	"strings"
)

// spreadLines is a repeated workload's figures over its repetitions, for
// report.md: the median, range and coefficient of variation of the
// throughput and of each operation's mean, p50 and p99, each
// repetition's value beside them, and which repetition the tables below
// show. "" for a workload without repetitions.
func spreadLines(wr *WorkloadResult) string {
	if len(wr.Repetitions) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d repetitions; the phases below are repetition r%d's, the median one by the measured phase's throughput. Over all of them (gates use the median):\n\n",
		len(wr.Repetitions), wr.MedianRepetition)
	b.WriteString("| figure | median | min – max | CV | each repetition |\n|---|---:|---:|---:|---|\n")
	row := func(sp *Spread, name string, scale float64) {
		if sp == nil {
			return
		}
		vals := make([]string, len(sp.Values))
		for i, v := range sp.Values {
			vals[i] = num(v / scale)
		}
		fmt.Fprintf(&b, "| %s | %s | %s – %s | %.1f%% | %s |\n", name, num(sp.Median/scale), num(sp.Min/scale), num(sp.Max/scale), 100*sp.CV, strings.Join(vals, ", "))
	}
	row(wr.FindSpread("", "throughput"), "throughput (ops/s)", 1)
	row(wr.FindSpread("", MetricMaxSustainable), "the sweeps' knee, max_sustainable_throughput (ops/s)", 1)
	var ops []string
	for _, sp := range wr.Spread {
		if sp.Operation != "" && (len(ops) == 0 || ops[len(ops)-1] != sp.Operation) {
			ops = append(ops, sp.Operation)
		}
	}
	for _, op := range ops {
		for _, m := range []string{"mean", "p50", "p99"} {
			row(wr.FindSpread(op, m), mdText(op)+" "+m+" (ms)", 1000)
		}
	}
	b.WriteString("\n")
	for _, r := range wr.Repetitions {
		if r.Index == wr.MedianRepetition {
			continue // its problems are the workload's, listed below
		}
		for _, pr := range r.Problems {
			fmt.Fprintf(&b, "- r%d: %s\n", r.Index, mdText(pr))
		}
	}
	return b.String()
}
