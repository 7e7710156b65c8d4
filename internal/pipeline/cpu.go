package pipeline

import (
	"github.com/ybbench/ybbench/internal/hostcpu"
)

// writeCPU records the db hosts' CPU over a measured phase as a typed file
// in the run directory (runs/<id>/cpu/<workload>[-r<k>]-<phase>.json), which the
// collector reads: the two readings of every host read both times.
func (r *Run) writeCPU(ph Phase, before, after map[string]hostcpu.Sample) error {
	f := &hostcpu.File{Workload: ph.Workload, Phase: ph.Phase, Rep: ph.Rep, Hosts: map[string]hostcpu.Span{}}
	for host, b := range before {
		if a, ok := after[host]; ok {
			f.Hosts[host] = hostcpu.Span{Before: b, After: a}
		}
	}
	if len(f.Hosts) == 0 {
		return nil
	}
	return hostcpu.Write(r.dir, f)
}
