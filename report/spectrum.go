package report

import (
	"fmt"

	"github.com/ybbench/ybbench/collect"
)

// SpectrumQuantiles are the quantiles of each operation's latency
// spectrum, spread evenly on the nines axis up to 99.999%; where a
// histogram holds fewer measurements than a quantile resolves, its value is
// the histogram's maximum.
var SpectrumQuantiles = []float64{0, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99995, 0.99999}

// measuredPhase is the phase the figures of a result come from.
const measuredPhase = "run"

// spectrumChart is the HDR percentile distribution of each operation of
// the measured phase, merged over its agents (of the median repetition,
// whose phases are the workload's own).
func spectrumChart(runDir string, w *collect.WorkloadResult) (Chart, error) {
	c := Chart{ID: w.Name + "-spectrum", Title: w.Name + ": latency by percentile, per operation", XLabel: "percentile",
		YLabel: "latency (ms)", Nines: true}
	var files []collect.AgentFile
	var err error
	if w.MedianRepetition > 0 {
		files, err = collect.RepetitionAgentFiles(runDir, w.Name, w.MedianRepetition, measuredPhase)
		c.Title += fmt.Sprintf(" (median repetition, r%d)", w.MedianRepetition)
	} else {
		files, err = collect.AgentFiles(runDir, w.Name, measuredPhase)
	}
	if len(files) == 0 {
		c.Note = "no tick records of the " + measuredPhase + " phase in the run directory"
		return c, err
	}
	ph, merr := collect.Merge(files)
	if merr != nil {
		c.Note = "the records could not be merged"
		return c, fmt.Errorf("%s: %w", w.Name, merr)
	}
	for _, m := range ph.Measurements {
		if m.Count() == 0 {
			continue
		}
		s := Series{Name: m.Name}
		for _, q := range SpectrumQuantiles {
			s.X = append(s.X, q)
			s.Y = append(s.Y, float64(m.Service.Percentile(100*q))/1000)
		}
		c.Series = append(c.Series, s)
	}
	return c, err
}
