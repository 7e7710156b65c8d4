package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// cpuEvery is how often every host's counters are read while a measured
// phase runs: at the agents' tick, so that the attribution of the run's
// limit can leave the warm-up out and see a saturated second.
const cpuEvery = time.Second // the agents' own default tick

// cpuMaxReadings bounds a phase's stream of readings per host (a day at
// one a second); the stream ends when the phase does.
const cpuMaxReadings = 86400

// cpuSampler reads the hosts' counters at the start of a measured phase,
// every cpuEvery while it runs (one streaming session per host), and at
// its end, with the reading the phase's before/after figures come from
// (agentrun.SampleCPU): the db hosts counting the database's processes as
// their own, the clients the agent's.
type cpuSampler struct {
	before sampleRound
	cancel context.CancelFunc
	done   sync.WaitGroup

	mu      sync.Mutex
	samples sampleRound // the streamed readings, each host's in order
}

// sampleRound is readings of every host that could be read, by role.
type sampleRound struct{ dbs, clients map[string][]hostcpu.Sample }

// sampleAll reads every db host and every client once, in parallel.
func (r *Run) sampleAll(ctx context.Context) (dbs, clients map[string]hostcpu.Sample) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		clients = agentrun.SampleCPU(ctx, r.runner, r.cluster.ByRole(infra.RoleClient), agentrun.OwnAgent)
	}()
	dbs = agentrun.SampleCPU(ctx, r.runner, r.cluster.ByRole(infra.RoleDB), agentrun.OwnDatabase)
	<-done
	return dbs, clients
}

// startCPU takes the first reading and starts the streams of readings,
// every so often (every).
func (r *Run) startCPU(ctx context.Context, every time.Duration) *cpuSampler {
	dbs, clients := r.sampleAll(ctx)
	s := &cpuSampler{before: sampleRound{dbs: one(dbs), clients: one(clients)},
		samples: sampleRound{dbs: map[string][]hostcpu.Sample{}, clients: map[string][]hostcpu.Sample{}}}
	sctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	secs := max(1, int(every.Round(time.Second)/time.Second))
	for _, role := range []struct {
		role infra.Role
		own  string
		into map[string][]hostcpu.Sample
	}{{infra.RoleDB, agentrun.OwnDatabase, s.samples.dbs}, {infra.RoleClient, agentrun.OwnAgent, s.samples.clients}} {
		s.done.Add(1)
		go func() {
			defer s.done.Done()
			agentrun.StreamCPU(sctx, r.runner, r.cluster.ByRole(role.role), role.own, secs, cpuMaxReadings, func(host string, x hostcpu.Sample) {
				s.mu.Lock()
				role.into[host] = append(role.into[host], x)
				s.mu.Unlock()
			})
		}()
	}
	return s
}

func one(m map[string]hostcpu.Sample) map[string][]hostcpu.Sample {
	out := map[string][]hostcpu.Sample{}
	for h, x := range m {
		out[h] = []hostcpu.Sample{x}
	}
	return out
}

// stop ends the streams and takes the last reading: every host read at
// both ends gets a span, with the readings of it taken in between.
func (s *cpuSampler) stop(ctx context.Context, r *Run) (dbs, clients map[string]hostcpu.Span) {
	s.cancel()
	s.done.Wait()
	adbs, aclients := r.sampleAll(ctx)
	return spansOf(s.before.dbs, adbs, s.samples.dbs), spansOf(s.before.clients, aclients, s.samples.clients)
}

// spansOf pairs each host's first and last readings, with those between.
func spansOf(before map[string][]hostcpu.Sample, after map[string]hostcpu.Sample, between map[string][]hostcpu.Sample) map[string]hostcpu.Span {
	spans := map[string]hostcpu.Span{}
	for host, b := range before {
		a, ok := after[host]
		if !ok || len(b) == 0 {
			continue
		}
		spans[host] = hostcpu.Span{Before: b[0], After: a, Samples: between[host]}
	}
	return spans
}

// writeCPU records the hosts' counters over a measured phase as a typed
// file in the run directory (runs/<id>/cpu/<workload>[-r<k>]-<phase>.json),
// which the collector reads; with sampling off, the file says so.
func (r *Run) writeCPU(ph Phase, dbs, clients map[string]hostcpu.Span) error {
	f := &hostcpu.File{Workload: ph.Workload, Phase: ph.Phase, Rep: ph.Rep, Hosts: dbs, Clients: clients}
	if ph.Sweep > 0 {
		f.Workload, f.Rep = agentrun.Phase(ph).Stem(), 0
	}
	if len(dbs) == 0 && len(clients) == 0 {
		if !r.spec.HostSamplesOff() {
			return nil
		}
		f.Off = "host_samples off"
	}
	return hostcpu.Write(r.dir, f)
}
