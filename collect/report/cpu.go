package report

import (
	"fmt"
	"sort"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/record/hostcpu"
	"github.com/ybbench/ybbench/record/repetition"
)

// cpuChart is each db host's CPU over the measured phase (of the median
// repetition, when repeated, whose CPU file carries the repetition's name
// as its agents' files do): one point per interval between two readings,
// at the interval's end.
func cpuChart(runDir string, w *collect.WorkloadResult) (Chart, error) {
	c := Chart{ID: w.Name + "-cpu", Title: w.Name + ": db host CPU over the " + measuredPhase + " phase",
		XLabel: "seconds from the phase's start", YLabel: "CPU busy (%)"}
	stem := w.Name
	if w.MedianRepetition > 0 {
		stem = repetition.Stem(w.Name, w.MedianRepetition)
		c.Title += fmt.Sprintf(" (median repetition, r%d)", w.MedianRepetition)
	}
	f, err := hostcpu.Read(runDir, stem, measuredPhase)
	if err != nil || f == nil {
		c.Note = "no CPU readings of the db hosts"
		return c, err
	}
	hosts := make([]string, 0, len(f.Hosts))
	sampled := false
	for h, span := range f.Hosts {
		hosts = append(hosts, h)
		sampled = sampled || len(span.Samples) > 0
	}
	sort.Strings(hosts)
	left := 0    // intervals left out, as no share of the machine can be above all of it
	partial := 0 // intervals left out, as too short to be a share
	for _, h := range hosts {
		r := hostcpu.Steady(f.Hosts[h].Readings())
		s := Series{Name: h}
		if len(r) == 2 {
			// One span: drawn flat across it, from its start to its end.
			if u, ok := hostcpu.Between(r[0], r[1]); ok {
				s.X, s.Y = []float64{0, r[1].At - r[0].At}, []float64{u.Percent, u.Percent}
			}
		} else {
			short := shortInterval(r)
			for i := 1; i < len(r); i++ {
				if r[i].At-r[i-1].At < short {
					// The phase ended just after a sample: the few clock
					// ticks of what is left read as a spike or as nothing,
					// not as the share of an interval.
					partial++
					continue
				}
				u, ok := hostcpu.Between(r[i-1], r[i])
				if !ok {
					continue
				}
				if r[i].Mode == hostcpu.ModeProcess && u.Percent > 100 {
					// More than the whole machine: the processes' count
					// took in children reaped in that interval whose time
					// was spent before it. Not a figure to draw.
					left++
					continue
				}
				s.X, s.Y = append(s.X, r[i].At-r[0].At), append(s.Y, u.Percent)
			}
		}
		if len(s.X) > 0 {
			c.Series = append(c.Series, s)
		}
		if c.YLabel == "CPU busy (%)" && r[0].Mode == hostcpu.ModeProcess {
			c.YLabel = "db CPU (% of machine)"
		}
	}
	if !sampled {
		c.Note = "CPU sampled at the phase's start and end only"
	}
	if left > 0 {
		c.Note = joinNote(c.Note, fmt.Sprintf("%d interval(s) left out: the database processes' count read above the whole machine there (connections reaped in it, their time spent before)", left))
	}
	if partial > 0 {
		c.Note = joinNote(c.Note, fmt.Sprintf("%d partial interval(s) left out: shorter than half the sampling interval (the phase ended just after a sample), too few clock ticks to be a share", partial))
	}
	return c, nil
}

// shortInterval is the length below which an interval between readings
// is partial: half the median interval (0 with fewer than two intervals,
// where there is nothing to compare with).
func shortInterval(r []hostcpu.Sample) float64 {
	if len(r) < 3 {
		return 0
	}
	d := make([]float64, 0, len(r)-1)
	for i := 1; i < len(r); i++ {
		d = append(d, r[i].At-r[i-1].At)
	}
	sort.Float64s(d)
	return d[len(d)/2] / 2
}

// joinNote adds a sentence to a chart's note.
func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}
