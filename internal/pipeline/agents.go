package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Phase is one agent invocation on every client: a workload's load or run.
type Phase struct {
	Workload string
	Phase    string // prepare, load, run
}

// stepName is the ledger name of a phase.
func (p Phase) stepName() string { return "bench/" + p.Workload + "/" + p.Phase }

// fileBase is the agents' file name stem of a phase.
func (p Phase) fileBase() string { return p.Workload + "-" + p.Phase }

// split divides n over k parts as evenly as possible (part i of k).
func split(n int64, k, i int) (start, count int64) {
	per, rem := n/int64(k), n%int64(k)
	start = int64(i)*per + min(int64(i), rem)
	count = per
	if int64(i) < rem {
		count++
	}
	return start, count
}

// agentArgs builds one agent's command line (no secret on it: credentials
// are in the 0600 properties file) for a YCSB phase. It is a pure function.
func agentArgs(binding string, ph Phase, records, ops int64, threads int, duration time.Duration, ddl string, idx, n int, dir, host string, startAt time.Time) []string {
	cmd := "run"
	if ph.Phase != "run" {
		cmd = "load"
	}
	props := filepath.Join(dir, ph.fileBase()+".properties")
	a := []string{cmd, binding, "-P", "workloads/" + ph.Workload, "-P", props, "-p", "recordcount=" + strconv.FormatInt(records, 10)}
	switch ph.Phase {
	case "prepare":
		a = append(a, "-p", "ybload.prepare.only=true")
		if binding == "ycql" {
			return append(a, "-p", "ycql.createtable=true", "-p", "ycql.droptable=true")
		}
		return append(a, "-p", "ysql.createdatabase=true", "-p", "ysql.droptable=true", "-p", "ysql.createtable=true", "-p", "ysql.ddl="+ddl)
	case "load":
		start, count := split(records, n, idx)
		a = append(a, "-p", "insertstart="+strconv.FormatInt(start, 10), "-p", "insertcount="+strconv.FormatInt(count, 10))
	case "run":
		_, share := split(ops, n, idx)
		a = append(a, "-p", "operationcount="+strconv.FormatInt(share, 10), "-p", "ybload.agent.index="+strconv.Itoa(idx), "-p", "ybload.agent.count="+strconv.Itoa(n))
		if duration > 0 {
			a = append(a, "-p", "maxexecutiontime="+strconv.FormatInt(int64(duration/time.Second), 10))
		}
	}
	_, t := split(int64(threads), n, idx)
	a = append(a, "-p", "threadcount="+strconv.FormatInt(max(t, 1), 10), "-s",
		"-p", "ybload.agent="+host,
		"-p", "ybload.records="+filepath.Join(dir, ph.fileBase()+".jsonl"),
		"-p", "ybload.summary="+filepath.Join(dir, ph.fileBase()+".json"),
		"-p", "ybload.start.at="+strconv.FormatInt(startAt.UnixMilli(), 10))
	return a
}

// agentProps is the 0600 properties file an agent reads its connection from.
func agentProps(flavor string, eps []provision.Endpoint, database, user, password string) string {
	var b strings.Builder
	b.WriteString("# written by ybbench for this run; readable by its owner only\n")
	b.WriteString("db.driver=org.postgresql.Driver\ndb.url=")
	for _, e := range eps {
		fmt.Fprintf(&b, "jdbc:postgresql://%s:%d/%s;", e.Addr, e.Port, database)
	}
	fmt.Fprintf(&b, "\ndb.user=%s\ndb.passwd=%s\n", user, password)
	return b.String()
}

// agentDir is where an agent's files live on its host: inside the run's
// own directory under the host's base (claimed before anything goes in).
func agentDir(h infra.Host) string { return filepath.Join(provision.OwnDir(h.Base), "agent") }

// agentBin is the shipped agent on its host.
func agentBin(h infra.Host) string { return filepath.Join(provision.OwnDir(h.Base), "bin", "ybload") }

// agentBinary is the ybload shipped to clients: the spec's, or the one
// beside the running ybbench.
func (r *Run) agentBinary() (string, error) {
	if r.spec.Agent != "" {
		return r.spec.Agent, nil
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
	sum := sha256.Sum256(b)
	want := hex.EncodeToString(sum[:])
	mark := provision.Mark{RunID: r.ID(), Version: Version}
	changes, err := provision.Parallel(ctx, clients, provision.ParallelOptions{Limit: r.spec.Parallel, FailFast: true}, func(ctx context.Context, h infra.Host) ([]string, error) {
		changed, err := provision.ClaimReporting(ctx, r.runner, h, mark, []string{h.Base}, "")
		if err != nil {
			return changed, err
		}
		return changed, r.putAgentOn(ctx, h, want, b)
	})
	details := map[string]string{}
	for i, h := range clients {
		if i < len(changes) && len(changes[i]) > 0 {
			details["host_changes."+h.Name] = strings.Join(changes[i], "; ")
		}
	}
	return details, exitcode.Wrap(exitcode.Provision, err)
}

// putAgentOn makes the agent's directories on h and uploads b there unless
// a binary of the same sha256 (want) is there already.
func (r *Run) putAgentOn(ctx context.Context, h infra.Host, want string, b []byte) error {

	dst := agentBin(h)
	res, err := r.runner.Run(ctx, h, "mkdir -p -- "+provision.Quote(agentDir(h))+" "+provision.Quote(filepath.Dir(dst))+
		" && chmod 700 -- "+provision.Quote(agentDir(h))+" && { sha256sum -- "+provision.Quote(dst)+" 2>/dev/null | cut -d' ' -f1; uname -m; }", provision.Step("agent-check"))
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return err
	}
	out := strings.Fields(string(res.Stdout))
	if len(out) > 0 && out[len(out)-1] != "x86_64" && out[len(out)-1] != "amd64" {
		return fmt.Errorf("%s is %s: build ybload for it (GOARCH) and give --agent", h.Name, out[len(out)-1])
	}
	if len(out) == 2 && out[0] == want {
		return nil
	}
	r.progress().Host(h.Name, "uploading the load agent")
	return r.runner.Put(ctx, h, dst, bytes.NewReader(b), 0o755)
}

// recordsOf reports whether a phase writes tick records.
func recordsOf(ph Phase) bool { return ph.Phase == "load" || ph.Phase == "run" }

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
	p := r.spec.Params
	startAt := time.Now().Add(r.spec.StartDelay)
	about := fmt.Sprintf("%s %s on %d client(s)", ph.Workload, ph.Phase, len(hosts))
	return r.step(ph.stepName(), about, hostNames(hosts), func() (map[string]string, error) {
		var cpu0 map[string]cpuSample
		if ph.Phase == "run" {
			cpu0 = r.sampleCPU(ctx)
		}
		results, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (provision.Result, error) {
			dir := agentDir(h)
			in := agentInput{Profile: r.profile().Name, Binding: r.profile().Binding, Phase: ph, WLArgs: r.profile().WorkloadArgs[ph.Workload],
				Idx: indexOfHost(hosts, h.Name), N: len(hosts), Dir: dir, Host: h.Name, StartAt: startAt, Dep: r.dep, Password: pw,
				Params: paramsView{Records: p.Records, Operations: p.Operations, Threads: p.Threads, LoadThreads: p.LoadThreads,
					Duration: p.Duration, Warmup: p.Warmup, DDL: p.DDL, Tables: p.Tables}}
			args, files := fam.invocation(in)
			if ph.Phase != "prepare" && ph.Phase != "cleanup" {
				args = append(args, extraProps(r.spec.AgentProperties, ph)...)
			}
			for name, content := range files {
				if err := r.runner.Put(ctx, h, filepath.Join(dir, name), strings.NewReader(content), 0o600); err != nil {
					return provision.Result{}, err
				}
			}
			script := fmt.Sprintf("cd %s && echo $$ > %s && exec %s %s > %s",
				provision.Quote(dir), provision.Quote(ph.fileBase()+".pid"), provision.Quote(agentBin(h)),
				provision.QuoteAll(args), provision.Quote(ph.fileBase()+".dat"))
			lw := &provision.LineWriter{Fn: func(line string) { r.progress().Agent(h.Name, line) }}
			res, err := r.runner.Run(ctx, h, script, provision.Step("agent-"+ph.fileBase()), provision.Output(io.Discard, lw))
			lw.Flush()
			if err != nil {
				return res, err
			}
			return res, res.Err()
		})
		details := map[string]string{}
		if cpu0 != nil {
			for k, v := range cpuUse(cpu0, r.sampleCPU(context.WithoutCancel(ctx))) {
				details[k] = v
			}
		}
		ferr := r.fetch(context.WithoutCancel(ctx), ph, hosts)
		for i, res := range results {
			details[hosts[i].Name+".exit"] = strconv.Itoa(res.ExitCode)
		}
		if err != nil {
			return details, exitcode.Wrap(exitcode.Workload, fmt.Errorf("%s %s: %w", ph.Workload, ph.Phase, errors.Join(err, ferr)))
		}
		return details, exitcode.Wrap(exitcode.Workload, ferr)
	})
}

// extraProps are the spec's agent_properties as -p arguments, in name
// order, with {workload} and {phase} in values replaced (so a file setting
// can name one file per phase).
func extraProps(m map[string]string, ph Phase) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v := strings.NewReplacer("{workload}", ph.Workload, "{phase}", ph.Phase).Replace(m[k])
		out = append(out, "-p", k+"="+v)
	}
	return out
}

func indexOfHost(hs []infra.Host, name string) int {
	for i, h := range hs {
		if h.Name == name {
			return i
		}
	}
	return 0
}

// fetch copies the agents' files of a phase into runs/<id>/agents/<host>/.
func (r *Run) fetch(ctx context.Context, ph Phase, hosts []infra.Host) error {
	_, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		local := filepath.Join(r.dir, "agents", h.Name)
		if err := os.MkdirAll(local, 0o755); err != nil {
			return struct{}{}, err
		}
		var errs []error
		for _, ext := range []string{".jsonl", ".json", ".dat"} {
			name := ph.fileBase() + ext
			f, err := os.Create(filepath.Join(local, name))
			if err != nil {
				return struct{}{}, err
			}
			err = r.runner.Get(ctx, h, filepath.Join(agentDir(h), name), f)
			f.Close()
			if err != nil {
				os.Remove(filepath.Join(local, name))
			}
			if err != nil && ext == ".jsonl" && recordsOf(ph) {
				errs = append(errs, fmt.Errorf("fetch %s: %w", name, err))
			}
		}
		return struct{}{}, errors.Join(errs...)
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
		for _, p := range fam.phases(w) {
			out = append(out, Phase{Workload: w, Phase: p})
		}
	}
	return out
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
	if len(clients) > 1 {
		r.progress().Note(fmt.Sprintf("%d clients: the key space and threads are split between them; the seeds used one client", len(clients)))
	}
	if err := r.shipAgent(ctx, clients); err != nil {
		return err
	}
	watch := context.AfterFunc(stop, func() {
		r.progress().Note("stopping the agents: they write what they measured")
		r.StopAgents(ctx)
	})
	defer watch()
	// A workload is redone whole unless its run phase finished: a phase
	// cut off by a killed orchestrator left its table half loaded (or its
	// run's inserts half made), and only a fresh table gives the same
	// numbers. Agents a killed orchestrator left running are stopped first.
	if r.benchStarted() {
		r.StopAgents(ctx)
	}
	for _, ph := range r.Phases() {
		if r.ledger.Done(ph.stepName()) && r.ledger.Done(Phase{Workload: ph.Workload, Phase: "run"}.stepName()) {
			continue
		}
		if stop.Err() != nil || ctx.Err() != nil {
			return exitcode.Errorf(exitcode.Workload, "interrupted before %s %s", ph.Workload, ph.Phase)
		}
		if err := r.runPhase(ctx, ph, clients); err != nil {
			return err
		}
		if stop.Err() != nil {
			return exitcode.Errorf(exitcode.Workload, "interrupted during %s %s: what was measured is kept", ph.Workload, ph.Phase)
		}
	}
	return nil
}

// StopAgents asks every agent still running to stop and write what it
// measured (SIGINT to its recorded pid), as a first Ctrl-C does.
func (r *Run) StopAgents(ctx context.Context) {
	if r.cluster == nil || r.runner == nil {
		return
	}
	provision.Parallel(ctx, r.cluster.ByRole(infra.RoleClient), provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		// Only a pid that is still a ybload is signalled: a finished
		// agent's pid may belong to another process by now.
		script := "for f in " + provision.Quote(agentDir(h)) + "/*.pid; do [ -f \"$f\" ] || continue; p=$(cat \"$f\"); " +
			"[ \"$(cat /proc/$p/comm 2>/dev/null)\" = ybload ] && kill -INT \"$p\"; rm -f \"$f\"; done; true"
		_, err := r.runner.Run(ctx, h, script, provision.Step("agent-stop"))
		return struct{}{}, err
	})
}
