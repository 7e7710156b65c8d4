package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record/hist"
)

// SpectrumQuantiles are the quantiles of each operation's latency
// spectrum, spread evenly on the nines axis up to 99.999%; where a
// histogram holds fewer measurements than a quantile resolves, its value is
// the histogram's maximum.
var SpectrumQuantiles = []float64{0, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99995, 0.99999}

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
	var ops map[string]*hist.Hist
	for _, r := range runs {
		if r.Spectrum != nil {
			ops = r.Spectrum
		}
	}
	if len(ops) == 0 {
		c.Note = "no tick records of the " + measuredPhase + " phase in the run directory"
		return c
	}
	for _, name := range slices.Sorted(maps.Keys(ops)) {
		h := ops[name]
		if h.Count() == 0 {
			continue
		}
		s := Series{Name: name}
		for _, q := range SpectrumQuantiles {
			s.X = append(s.X, q)
			s.Y = append(s.Y, float64(h.Percentile(100*q))/1000)
		}
		c.Series = append(c.Series, s)
	}
	return c
}
