package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect/sweep"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/agentrun"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/repetition"
)

// Phase is one agent invocation on every client: a workload's load or run.
type Phase struct {
	Workload string
	Phase    string // prepare, load, run
	// Rep is the workload's repetition (from 1) when the run repeats its
	// workloads (--repeat N, N > 1); 0 otherwise, which keeps the steps
	// and files a run without repetitions always had.
	Rep int
	// Sweep is the step (from 1) of the workload's sweep that this run
	// phase is (sweep.go); 0 otherwise.
	Sweep int
}

// stepName is the ledger name of a phase: bench/<workload>/<phase>, or
// bench/<workload>/r<k>/<phase> for repetition k; a sweep's step j is
// bench/<workload>[/r<k>]/sweep/<j>.
func (p Phase) stepName() string {
	prefix := "bench/" + p.Workload + "/"
	if p.Rep > 0 {
		prefix += repetition.Tag(p.Rep) + "/"
	}
	if p.Sweep > 0 {
		return prefix + "sweep/" + strconv.Itoa(p.Sweep)
	}
	return prefix + p.Phase
}

// fileBase is the agents' file name stem of a phase.
func (p Phase) fileBase() string { return agentrun.Phase(p).FileBase() }

// measured is the measured (run) phase of the same workload and repetition.
func (p Phase) measured() Phase { return Phase{Workload: p.Workload, Phase: agentrun.Run, Rep: p.Rep} }

// agentInput is the invocation input of a phase on the clients that run it
// (the agent's directory, name, index and file paths are per host).
func (r *Run) agentInput(ph Phase, count int, password string, startAt time.Time) agentrun.Input {
	p, prof := r.spec.Params, r.profile()
	in := agentrun.Input{Family: prof.Family, Binding: prof.Binding, Phase: agentrun.Phase(ph), WorkloadArgs: prof.WorkloadArgs[ph.Workload],
		Count: count, StartAt: startAt,
		Params: p}
	if r.dep != nil {
		in.DB = agentrun.DB{YSQL: r.dep.YSQL, YCQL: r.dep.YCQL, Database: r.dep.Database, User: r.dep.User, Password: password}
	}
	in.Properties = r.spec.agentProperties(prof.Family, ph.Phase)
	in.LateAfter = r.spec.agentLateAfter(ph.Phase)
	in.MetricsPort = r.spec.agentMetricsPort()
	if st, ok := r.sweepStepOf(ph); ok {
		in.TargetOpsPerSec = st.Target
		// A step is its warm-up at the step's rate, then its measured time
		// (twice as long when extended).
		in.StepWarmup, in.Params.Duration = r.spec.SweepWarmup, r.spec.sweepStepTime()
		if st.Extended {
			in.Params.Duration *= 2
		}
		// Its time bounds it, not the run's operation count, which would
		// end a step at 110% of the saturation early and make one at 10%
		// run ten times as long: the count is raised to twice what the
		// step's rate does in that time (YCSB sizes its key space for the
		// run's inserts from it, so it is not dropped).
		if need := int64(math.Ceil(st.Target * in.Params.Duration.Seconds() * 2)); in.Params.Operations > 0 && in.Params.Operations < need {
			in.Params.Operations = need
		}
	}
	return in
}

// agentProperties are the YCSB properties a phase's agents are given: the
// spec's agent_properties, on the load and run phases.
func (s *Spec) agentProperties(family, phase string) map[string]string {
	if family != "ycsb" || phase == agentrun.Prepare {
		return nil
	}
	return s.AgentProperties
}

// agentLateAfter is the late-start tolerance a phase's agents are given:
// on the run phase, the spec's when it is not the agents' default (0).
func (s *Spec) agentLateAfter(phase string) time.Duration {
	if phase != agentrun.Run || s.LateAfter <= 0 || s.LateAfter == time.Millisecond {
		return 0
	}
	return s.LateAfter
}

// agents is the agent runner of this run.
func (r *Run) agents() *agentrun.Agents {
	return &agentrun.Agents{Runner: r.runner, Mark: provision.Mark{RunID: r.ID(), Version: Version}, Limit: r.spec.Parallel}
}

// agentBinary is the ybload shipped to clients: the spec's, or the one
// beside the running ybbench.
func (r *Run) agentBinary() (string, error) { return agentPath(r.spec.Agent) }

// agentPath is the agent setting's binary: given, or else ybload beside
// the running ybbench, which must be there.
func agentPath(agent string) (string, error) {
	if agent != "" {
		return agent, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(exe), "ybload")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no load agent beside %s: build it (make build) or give --agent path/to/ybload", exe)
	}
	return p, nil
}

// agentsStep is the ledger step that puts the agent on the clients: begun
// before the first byte is written there, so down knows to remove it.
const agentsStep = "agents"

// shipAgent uploads ybload to every client (once: skipped when the host
// already has the same file), as the ledger step agentsStep.
func (r *Run) shipAgent(ctx context.Context, clients []infra.Host) error {
	bin, err := r.agentBinary()
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, fmt.Errorf("load agent: %w", err))
	}
	about := fmt.Sprintf("put the load agent on %d client(s)", len(clients))
	return r.step(agentsStep, about, hostNames(clients), func() (map[string]string, error) {
		return r.putAgent(ctx, clients, b)
	})
}

// putAgent claims the run's own directory under each client's base, makes
// the agent's directories in it and uploads b where it is not there
// already. It returns the ledger's details: what the claim changed on a
// host outside the run's own directory (a base it had to make).
func (r *Run) putAgent(ctx context.Context, clients []infra.Host, b []byte) (map[string]string, error) {
	changes, err := r.agents().Ship(ctx, clients, b, func(host string) { r.progress().Host(host, "uploading the load agent") })
	if err == nil {
		// Said once every client has it, so that the stage's last frame
		// does not show an upload that is over.
		for _, h := range clients {
			r.progress().Host(h.Name, "load agent in place")
		}
	}
	details := map[string]string{}
	for h, c := range changes {
		details["host_changes."+h] = strings.Join(c, "; ")
	}
	return details, err
}

// recordsOf reports whether a phase writes tick records.
func recordsOf(ph Phase) bool { return agentrun.Phase(ph).Records() }

// runPhase runs one phase on the clients: each gets its private files
// (0600) and is told to start at the same wall-clock instant; their status
// lines stream into the progress view; their files are fetched
// afterwards, even when the phase failed. Around the measured phase the
// db hosts' CPU is sampled.
func (r *Run) runPhase(ctx context.Context, ph Phase, clients []infra.Host) error {
	fam, err := familyOf(r.profile().Family)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	pw := ""
	if r.dep.PasswordFile != "" {
		b, err := os.ReadFile(r.dep.PasswordFile)
		if err != nil {
			return exitcode.Wrap(exitcode.Tool, fmt.Errorf("database password: %w", err))
		}
		pw = strings.TrimSpace(string(b))
	}
	hosts := clients
	if fam.firstClientOnly(ph.Phase) {
		hosts = clients[:1]
	}
	if _, ok := r.sweepStepOf(ph); ph.Sweep > 0 && !ok {
		// Without its plan the step would run unpaced: no sweep step at all.
		return exitcode.Errorf(exitcode.Tool, "%s: its plan is not in %s", r.phaseName(ph), sweep.Path(r.dir, repetition.Stem(ph.Workload, ph.Rep)))
	}
	startAt := time.Now().Add(r.startDelay(len(hosts)))
	base := r.agentInput(ph, len(hosts), pw, startAt)
	// Every invocation is built before anything runs: one that cannot be
	// is a setting's fault, found before the db hosts are touched.
	invs := map[string]agentrun.Invocation{}
	for i, h := range hosts {
		in := base
		in.Index, in.Dir, in.Host, in.Addr = i, agentrun.Dir(h), h.Name, h.PrivateIP
		inv, err := agentrun.Build(in)
		if err != nil {
			return exitcode.Wrap(exitcode.Config, fmt.Errorf("%s %s: %w", ph.Workload, ph.Phase, err))
		}
		invs[h.Name] = inv
	}
	about := fmt.Sprintf("%s %s on %d client(s)", r.phaseName(ph), ph.Phase, len(hosts))
	return r.step(ph.stepName(), about, hostNames(hosts), func() (map[string]string, error) {
		var cpu *cpuSampler
		if ph.Phase == "run" && !r.spec.HostSamplesOff() {
			cpu = r.startCPU(ctx, cpuEvery)
		}
		agents := r.agents()
		results, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (provision.Result, error) {
			return agents.Start(ctx, h, agentrun.Phase(ph), invs[h.Name], func(line string) { r.progress().Agent(h.Name, line) })
		})
		var cerr error
		switch {
		case cpu != nil:
			dbs, clients := cpu.stop(context.WithoutCancel(ctx), r)
			cerr = r.writeCPU(ph, dbs, clients)
		case ph.Phase == "run":
			cerr = r.writeCPU(ph, nil, nil)
		}
		ferr := errors.Join(r.fetch(context.WithoutCancel(ctx), ph, hosts), cerr)
		details := map[string]string{}
		for i, res := range results {
			details[hosts[i].Name+".exit"] = strconv.Itoa(res.ExitCode)
		}
		if err != nil {
			return details, exitcode.Wrap(exitcode.Workload, fmt.Errorf("%s %s: %w", ph.Workload, ph.Phase, errors.Join(err, ferr)))
		}
		return details, exitcode.Wrap(exitcode.Workload, ferr)
	})
}

// startDelay is how far ahead a phase's agents are told to start:
// start_delay when the phase runs on several clients, so that they start
// together; none on one client, which has no one to wait for (it starts
// once its connections are made, as the reference tools do), unless
// start_delay was given. A run resumed from its ledger knows a setting as
// given only when it differs from the default (Spec.given): an explicit
// 3s on one client is then taken as none.
func (r *Run) startDelay(clients int) time.Duration { return r.spec.startDelayFor(clients) }

// startDelayFor is the start delay a phase on clients clients is given
// (Run.startDelay); plan bounds a sweep's steps with it too.
func (s *Spec) startDelayFor(clients int) time.Duration {
	if clients == 1 && !s.given("start_delay") {
		return 0
	}
	return s.StartDelay
}

// fetch copies the agents' files of a phase into runs/<id>/agents/<host>/.
func (r *Run) fetch(ctx context.Context, ph Phase, hosts []infra.Host) error {
	agents := r.agents()
	_, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		return struct{}{}, agents.Fetch(ctx, h, agentrun.Phase(ph), filepath.Join(r.dir, "agents", h.Name))
	})
	return err
}

// Phases lists the agent phases of the run's profile, in order.
func (r *Run) Phases() []Phase {
	fam, err := familyOf(r.profile().Family)
	if err != nil {
		return nil
	}
	var out []Phase
	for _, w := range r.spec.Workloads {
		for _, k := range repetition.Numbers(r.spec.Repeat) {
			for _, p := range fam.phases(w) {
				out = append(out, Phase{Workload: w, Phase: p, Rep: k})
			}
		}
	}
	return out
}

// phaseName is a phase's workload as the progress view and errors say it:
// with its repetition ("workloada r2/3") when the run repeats.
func (r *Run) phaseName(ph Phase) string {
	name := ph.Workload
	if l := repetition.Label(ph.Rep, r.spec.Repeat); l != "" {
		name += " " + l
	}
	if ph.Sweep > 0 {
		return fmt.Sprintf("%s sweep step %d", name, ph.Sweep)
	}
	return name
}

// Bench runs every phase not yet done (resume skips those done). stop is
// the soft stop (a first Ctrl-C): agents are asked to stop and write what
// they measured, their files are fetched, and no further phase starts. ctx
// is the hard stop: remote commands are killed.
func (r *Run) Bench(ctx, stop context.Context) error {
	if err := r.needHosts(); err != nil {
		return err
	}
	clients := r.cluster.ByRole(infra.RoleClient)
	if len(clients) == 0 {
		return exitcode.Errorf(exitcode.Config, "the cluster has no client host")
	}
	if fam, err := familyOf(r.profile().Family); err == nil && len(clients) > 1 {
		r.progress().Note(fmt.Sprintf("%d clients: %s; the seeds used one client", len(clients), fam.spread()))
	}
	if err := r.shipAgent(ctx, clients); err != nil {
		return err
	}
	watch := context.AfterFunc(stop, func() {
		r.progress().Note("stopping the agents: they write what they measured")
		r.StopAgents(ctx)
	})
	defer watch()
	// A workload (with --repeat, each repetition of it) is redone whole
	// unless its run phase finished: a phase cut off by a killed
	// orchestrator left its table half loaded (or its run's inserts half
	// made), and only a fresh table gives the same numbers. Agents a
	// killed orchestrator left running are stopped first.
	if r.benchStarted() {
		r.StopAgents(ctx)
	}
	for _, ph := range r.Phases() {
		if err := r.benchPhase(ctx, stop, ph, clients); err != nil {
			return err
		}
		if r.spec.Sweep && ph.Phase == agentrun.Run {
			if err := r.sweepWorkload(ctx, stop, ph, clients); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchPhase runs one phase unless it and its workload's run are done.
func (r *Run) benchPhase(ctx, stop context.Context, ph Phase, clients []infra.Host) error {
	if r.ledger.Done(ph.stepName()) && r.ledger.Done(ph.measured().stepName()) {
		return nil
	}
	if stop.Err() != nil || ctx.Err() != nil {
		return exitcode.Errorf(exitcode.Workload, "interrupted before %s %s", r.phaseName(ph), ph.Phase)
	}
	if err := r.runPhase(ctx, ph, clients); err != nil {
		return err
	}
	if stop.Err() != nil {
		return exitcode.Errorf(exitcode.Workload, "interrupted during %s %s: what was measured is kept", r.phaseName(ph), ph.Phase)
	}
	return nil
}

// StopAgents asks every agent still running to stop and write what it
// measured (SIGINT to its recorded pid), as a first Ctrl-C does.
func (r *Run) StopAgents(ctx context.Context) {
	if r.cluster == nil || r.runner == nil {
		return
	}
	r.agents().Stop(ctx, r.cluster.ByRole(infra.RoleClient))
}
