package pipeline

import (
	"context"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// cpuEvery is how often the db hosts' CPU is read while a measured phase
// runs: often enough to draw its course over a minute's phase, seldom
// enough that the reading (one short command per host) costs nothing.
const cpuEvery = 5 * time.Second

// cpuSampler reads the db hosts' CPU at the start of a measured phase,
// every cpuEvery while it runs, and at its end, with the reading the
// phase's before/after figures come from (agentrun.SampleCPU).
type cpuSampler struct {
	before  map[string]hostcpu.Sample
	stopped chan struct{}
	done    chan struct{} // closed when the sampling goroutine (the only writer of samples) returns
	samples []map[string]hostcpu.Sample
}

// startCPU takes the first reading and starts sampling in the background,
// every so often (cpuEvery).
func (r *Run) startCPU(ctx context.Context, every time.Duration) *cpuSampler {
	dbs := r.cluster.ByRole(infra.RoleDB)
	s := &cpuSampler{before: agentrun.SampleCPU(ctx, r.runner, dbs), stopped: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.stopped:
				return
			case <-t.C:
				m := agentrun.SampleCPU(ctx, r.runner, dbs)
				s.samples = append(s.samples, m)
			}
		}
	}()
	return s
}

// stop ends the sampling and takes the last reading: every host read at
// both ends gets a span, with the readings of it taken in between.
func (s *cpuSampler) stop(ctx context.Context, r *Run) map[string]hostcpu.Span {
	close(s.stopped)
	<-s.done
	after := agentrun.SampleCPU(ctx, r.runner, r.cluster.ByRole(infra.RoleDB))
	spans := map[string]hostcpu.Span{}
	for host, b := range s.before {
		a, ok := after[host]
		if !ok {
			continue
		}
		span := hostcpu.Span{Before: b, After: a}
		for _, m := range s.samples {
			if x, ok := m[host]; ok {
				span.Samples = append(span.Samples, x)
			}
		}
		spans[host] = span
	}
	return spans
}

// writeCPU records the db hosts' CPU over a measured phase as a typed file
// in the run directory (runs/<id>/cpu/<workload>[-r<k>]-<phase>.json),
// which the collector reads.
func (r *Run) writeCPU(ph Phase, spans map[string]hostcpu.Span) error {
	if len(spans) == 0 {
		return nil
	}
	return hostcpu.Write(r.dir, &hostcpu.File{Workload: ph.Workload, Phase: ph.Phase, Rep: ph.Rep, Hosts: spans})
}
