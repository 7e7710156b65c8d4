package pipeline

import (
	"context"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// cpuEvery is how often every host's counters are read while a measured
// phase runs: at the agents' tick, so that the attribution of the run's
// limit can leave the warm-up out and see a saturated second. One reading
// is one short command per host, reading /proc with shell builtins.
const cpuEvery = time.Second // the agents' own default tick

// cpuSampler reads the hosts' counters at the start of a measured phase,
// every cpuEvery while it runs, and at its end, with the reading the
// phase's before/after figures come from (agentrun.SampleCPU): the db
// hosts counting the database's processes as their own, the clients the
// agent's.
type cpuSampler struct {
	before  sampleRound
	stopped chan struct{}
	done    chan struct{} // closed when the sampling goroutine (the only writer of samples) returns
	samples []sampleRound
}

// sampleRound is one reading of every host that could be read, by role.
type sampleRound struct{ dbs, clients map[string]hostcpu.Sample }

// sampleAll reads every db host and every client once, in parallel.
func (r *Run) sampleAll(ctx context.Context) sampleRound {
	var out sampleRound
	done := make(chan struct{})
	go func() {
		defer close(done)
		out.clients = agentrun.SampleCPU(ctx, r.runner, r.cluster.ByRole(infra.RoleClient), agentrun.OwnAgent)
	}()
	out.dbs = agentrun.SampleCPU(ctx, r.runner, r.cluster.ByRole(infra.RoleDB), agentrun.OwnDatabase)
	<-done
	return out
}

// startCPU takes the first reading and starts sampling in the background,
// every so often (cpuEvery).
func (r *Run) startCPU(ctx context.Context, every time.Duration) *cpuSampler {
	s := &cpuSampler{before: r.sampleAll(ctx), stopped: make(chan struct{}), done: make(chan struct{})}
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
				s.samples = append(s.samples, r.sampleAll(ctx))
			}
		}
	}()
	return s
}

// stop ends the sampling and takes the last reading: every host read at
// both ends gets a span, with the readings of it taken in between.
func (s *cpuSampler) stop(ctx context.Context, r *Run) (dbs, clients map[string]hostcpu.Span) {
	close(s.stopped)
	<-s.done
	after := r.sampleAll(ctx)
	dbs = spansOf(s.before.dbs, after.dbs, s.samples, func(x sampleRound) map[string]hostcpu.Sample { return x.dbs })
	clients = spansOf(s.before.clients, after.clients, s.samples, func(x sampleRound) map[string]hostcpu.Sample { return x.clients })
	return dbs, clients
}

// spansOf pairs each host's first and last readings, with those between.
func spansOf(before, after map[string]hostcpu.Sample, rounds []sampleRound, role func(sampleRound) map[string]hostcpu.Sample) map[string]hostcpu.Span {
	spans := map[string]hostcpu.Span{}
	for host, b := range before {
		a, ok := after[host]
		if !ok {
			continue
		}
		span := hostcpu.Span{Before: b, After: a}
		for _, m := range rounds {
			if x, ok := role(m)[host]; ok {
				span.Samples = append(span.Samples, x)
			}
		}
		spans[host] = span
	}
	return spans
}

// writeCPU records the hosts' counters over a measured phase as a typed
// file in the run directory (runs/<id>/cpu/<workload>[-r<k>]-<phase>.json),
// which the collector reads; with sampling off, the file says so.
func (r *Run) writeCPU(ph Phase, dbs, clients map[string]hostcpu.Span) error {
	f := &hostcpu.File{Workload: ph.Workload, Phase: ph.Phase, Rep: ph.Rep, Hosts: dbs, Clients: clients}
	if ph.Sweep > 0 {
		f.Workload, f.Rep = agentrun.SweepStem(ph.Workload, ph.Sweep), 0
	}
	if len(dbs) == 0 && len(clients) == 0 {
		if !r.spec.HostSamplesOff() {
			return nil
		}
		f.Off = "host_samples off"
	}
	return hostcpu.Write(r.dir, f)
}
