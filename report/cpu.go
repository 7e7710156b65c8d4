package report

import (
	"sort"

	"github.com/ybbench/ybbench/internal/hostcpu"
)

// cpuChart is each db host's CPU over the measured phase: one point per
// interval between two readings, at the interval's end.
func cpuChart(runDir, workload string) (Chart, error) {
	c := Chart{ID: workload + "-cpu", Title: workload + ": db host CPU over the " + measuredPhase + " phase",
		XLabel: "seconds from the phase's start", YLabel: "CPU busy (%)"}
	f, err := hostcpu.Read(runDir, workload, measuredPhase)
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
	for _, h := range hosts {
		r := f.Hosts[h].Readings()
		s := Series{Name: h}
		if len(r) == 2 {
			// One span: drawn flat across it, from its start to its end.
			if u, ok := hostcpu.Between(r[0], r[1]); ok {
				s.X, s.Y = []float64{0, r[1].At - r[0].At}, []float64{u.Percent, u.Percent}
			}
		} else {
			for i := 1; i < len(r); i++ {
				if u, ok := hostcpu.Between(r[i-1], r[i]); ok {
					s.X, s.Y = append(s.X, r[i].At-r[0].At), append(s.Y, u.Percent)
				}
			}
		}
		if len(s.X) > 0 {
			c.Series = append(c.Series, s)
		}
		if c.YLabel == "CPU busy (%)" && r[0].Mode == hostcpu.ModeProcess {
			c.YLabel = "database processes' CPU (% of the machine's cores)"
		}
	}
	if !sampled {
		c.Note = "CPU sampled at the phase's start and end only"
	}
	return c, nil
}
