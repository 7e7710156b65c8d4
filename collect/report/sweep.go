package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/sweep"
)

// sweepChart is a swept workload's throughput–latency curve: each
// percentile's latency (ms, from the intended start, on a log axis)
// against the steps' achieved throughput, in order of target.
func sweepChart(w *collect.WorkloadResult) (Chart, bool) {
	sw := w.Sweep
	if sw == nil || len(sw.Steps) == 0 {
		return Chart{}, false
	}
	steps := append(sw.Steps[:0:0], sw.Steps...)
	sortByTarget(steps)
	c := Chart{ID: w.Name + "-sweep", Title: w.Name + ": latency against achieved throughput, the sweep's steps", XLabel: "achieved throughput (ops/s)",
		YLabel: "latency from the intended start (ms, log)", LogY: true}
	for _, pc := range []struct {
		name string
		of   func(i int) float64
	}{
		{"p50", func(i int) float64 { return steps[i].P50 }}, {"p95", func(i int) float64 { return steps[i].P95 }},
		{"p99", func(i int) float64 { return steps[i].P99 }}, {"p99.9", func(i int) float64 { return steps[i].P999 }},
	} {
		s := Series{Name: pc.name}
		for i := range steps {
			if y := pc.of(i) / 1000; y > 0 {
				s.X, s.Y = append(s.X, steps[i].Achieved), append(s.Y, y)
			}
		}
		c.Series = append(c.Series, s)
	}
	if k := sw.Knee; k != nil {
		c.Note = fmt.Sprintf("Knee: %.0f ops/s achieved at a target of %.0f (step %d), p99 %.3f ms; SLO p99 %.3f ms.", k.Achieved, k.Target, k.Step, k.P99/1000, sw.SLOP99/1000)
		c.Note = strings.TrimSpace(c.Note + " " + sw.KneeRangeText())
	}
	if len(w.Repetitions) > 0 {
		c.Title = fmt.Sprintf("%s: latency against achieved throughput, the sweep's steps (r%d, the median repetition)", w.Name, w.MedianRepetition)
	}
	if a := w.SweepAgreement; a != nil {
		c.Note = strings.TrimSpace(c.Note + " " + a.Text())
	}
	return c, true
}

// sortByTarget orders steps by their target rate (stable: a repeat stays
// after the step it repeats).
func sortByTarget(steps []sweep.Step) {
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Target < steps[j].Target })
}
