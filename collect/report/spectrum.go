package report

import (
	"fmt"

	"github.com/ybbench/ybbench/collect"
)

// SpectrumQuantiles are the quantiles of each operation's latency
// spectrum (collect computes its values, in series.json).
var SpectrumQuantiles = collect.SpectrumQuantiles

// measuredPhase is the phase the figures of a result come from.
const measuredPhase = "run"

// spectrumChart is the HDR percentile distribution of each operation of
// the measured phase after warm-up, merged over its agents, from the run
// whose figures are the workload's (its median repetition, when repeated).
func spectrumChart(w *collect.WorkloadResult, runs []run) Chart {
	c := Chart{ID: w.Name + "-spectrum", Title: w.Name + ": latency by percentile, per operation", XLabel: "percentile",
		YLabel: "latency (ms)", Nines: true}
	if w.MedianRepetition > 0 {
		c.Title += fmt.Sprintf(" (median repetition, r%d)", w.MedianRepetition)
	}
	var ops []collect.SpectrumOp
	for _, r := range runs {
		if r.Spectral {
			ops = r.Spectrum
		}
	}
	if len(ops) == 0 {
		c.Note = "no tick records of the " + measuredPhase + " phase in the run directory"
		return c
	}
	// By operation name, as series.json keeps them.
	for _, op := range ops {
		if op.Count == 0 {
			continue
		}
		s := Series{Name: op.Op}
		for i, q := range SpectrumQuantiles {
			s.X = append(s.X, q)
			s.Y = append(s.Y, float64(op.US[i])/1000)
		}
		c.Series = append(c.Series, s)
	}
	return c
}
