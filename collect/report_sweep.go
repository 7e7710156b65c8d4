package collect

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/collect/sweep"
)

// sweepMarkdown is a swept workload's curve as a table, its knee and the
// rules its steps were held to ("" for a workload not swept).
func sweepMarkdown(w *WorkloadResult) string {
	sw := w.Sweep
	if sw == nil {
		return ""
	}
	var b strings.Builder
	whose := "the run phase's"
	if len(w.Repetitions) > 0 {
		whose = fmt.Sprintf("repetition r%d's run phase's, the median repetition's sweep; each repetition swept after its own run", w.MedianRepetition)
	}
	fmt.Fprintf(&b, "**Throughput–latency sweep** — saturation %s ops/s (%s), %d steps; SLO p99 %s ms (%s).\n\n",
		num(sw.Saturation), whose, len(sw.Steps), ms(sw.SLOP99), map[bool]string{true: "slo_p99", false: "twice the lowest step's p99"}[sw.SLOGiven])
	if a := w.SweepAgreement; a != nil {
		b.WriteString(mdText(a.Text()) + "\n\n")
	}
	if k := sw.Knee; k != nil {
		fmt.Fprintf(&b, "Knee: **%s ops/s achieved** at a target of %s (step %d), p99 %s ms%s; max_sustainable_throughput %s ops/s.\n\n",
			num(k.Achieved), num(k.Target), k.Step, ms(k.P99), map[bool]string{true: ", confirmed by its repeat", false: ", **not confirmed** by its repeat"}[k.Confirmed], num(sw.MaxSustainable))
		if t := sw.KneeRangeText(); t != "" {
			b.WriteString(t + "\n\n")
		}
	} else {
		b.WriteString("Knee: none: not even the lowest step held its target within the SLO.\n\n")
	}
	b.WriteString("| step | kind | target ops/s | achieved ops/s | achieved ÷ target | late | errors | p50 ms | p95 ms | p99 ms | p99.9 ms | limited by | counts |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, s := range sw.Steps {
		kind := s.Kind
		if s.Extended {
			kind += " (extended)"
		}
		counts := "yes"
		switch {
		case s.Stopped != "":
			counts = "no: stopped early (" + s.Stopped + ")"
		case s.Achieved/s.Target < sweep.MinAchieved:
			counts = "no: behind its rate"
		case s.Late > sweep.MaxLate:
			counts = "no: late starts"
		case !s.Good(sw.SLOP99):
			counts = "yes, past the knee"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %.3f | %.2f%% | %d | %s | %s | %s | %s | %s | %s |\n", s.Index, mdText(kind), num(s.Target), num(s.Achieved),
			s.Achieved/s.Target, 100*s.Late, s.Errors, ms(s.P50), ms(s.P95), ms(s.P99), ms(s.P999), mdText(s.LimitedBy), mdText(counts))
	}
	fmt.Fprintf(&b, "\nA step counts when it achieved ≥ %g of its target with ≤ %g%% late starts; the knee is the highest step at ≥ %g of its target and within the SLO; the bracket around it is bisected to %g%% of the saturation throughput, and a final step repeats it.\n\n",
		sweep.MinAchieved, 100*sweep.MaxLate, sweep.GoodAchieved, 100*sweep.Plan{Resolution: sw.Resolution}.Bisection())
	for _, p := range sw.Problems {
		fmt.Fprintf(&b, "- %s\n", mdText(p))
	}
	return b.String()
}

// KneeRangeText says how well a sweep knows its knee: the p99 noise it
// measured at one rate, and the range of rates that leaves the knee in
// ("" without a knee).
func (sw *SweepResult) KneeRangeText() string {
	r := sw.KneeRange
	if r == nil {
		return ""
	}
	if r.Low == 0 {
		return fmt.Sprintf("The p99 of one rate moved by up to %.0f%% between two measurements of it: that leaves the SLO no room, and this sweep cannot place its knee above any rate it measured (only below %s ops/s).", 100*sw.P99RepeatNoise, num(r.High))
	}
	return fmt.Sprintf("The p99 of one rate moved by up to %.0f%% between two measurements of it: given that noise, the knee lies between %s and %s ops/s.", 100*sw.P99RepeatNoise, num(r.Low), num(r.High))
}
