package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
	"github.com/ybbench/ybbench/provision/ssh"
)

// The fake-parts tier: the whole Execute, every stage, with the parts that
// need a cloud, root or a database replaced by the smallest honest stand-in
// (a provider whose hosts are directories on this machine, a flavor that
// starts no server, the agent's null binding), and the rest real: the
// local runner, the preflight, the agent contract's scripts, the real
// ybload, the collector and the report.

// Sizes of the fake-parts run: small enough for the unit tier, and one
// thread per phase with a fixed agent seed, so that the operation mix of
// every workload is the same on every run and the golden pins it.
const (
	fakeRecords    = 100
	fakeOperations = 200
	fakeAgentSeed  = "1"
	// fakeServiceUser is the fake db hosts' service user: a name no
	// machine has.
	fakeServiceUser = "ybbench-no-such-user"
)

var (
	agentOnce sync.Once
	agentDir  string
	agentBin  string
	agentErr  error
)

func TestMain(m *testing.M) {
	// A run adds its results to the history store under the user's data
	// directory: the tests' runs go to one of their own, never the user's.
	data, err := os.MkdirTemp("", "ybbench-test-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	if agentDir != "" {
		os.RemoveAll(agentDir)
	}
	os.Exit(code)
}

// ybload builds the real agent once per test binary, without -race: the
// agent runs as its own process, and a race-instrumented build of it would
// cost the unit tier its budget. It is built with the environment's cgo
// setting, not CGO_ENABLED=0 as `make build` ships it, so that it reuses
// the packages the other tiers' non-race builds compiled (the cgo setting
// is part of what the build cache keys on).
func ybload(t *testing.T) string {
	t.Helper()
	agentOnce.Do(func() {
		if agentDir, agentErr = os.MkdirTemp("", "ybbench-fakeparts-"); agentErr != nil {
			return
		}
		agentBin = filepath.Join(agentDir, "ybload")
		cmd := exec.Command("go", "build", "-o", agentBin, "github.com/ybbench/ybbench/cmd/ybload")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentErr = fmt.Errorf("build ybload: %v\n%s", err, out)
		}
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentBin
}

// fakeProvider's hosts are this machine: each a base directory of its own
// under root, reached through the local runner. Destroy removes the bases
// and fails, as a real provider's verification would, when the run left
// its own directory on a host (the teardown's wipe did not happen).
type fakeProvider struct {
	root string

	// keep names a host Destroy cannot delete (its base stays), as a
	// cloud whose API refuses to delete a machine.
	keep string

	mu        sync.Mutex
	creates   int
	destroyed []string // cluster names
}

func (p *fakeProvider) Name() string { return "fake" }

// Traits: the hosts are up when Create returns, and are deleted (their
// bases removed) at the teardown.
func (p *fakeProvider) Traits() infra.Traits { return infra.Traits{Running: true} }

func (p *fakeProvider) Plan(s infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	return nil, "make a directory per host under " + p.root, nil
}

func (p *fakeProvider) Create(ctx context.Context, s infra.ClusterSpec) (*infra.Cluster, error) {
	p.mu.Lock()
	p.creates++
	p.mu.Unlock()
	c := &infra.Cluster{Name: s.Name, Provider: "fake", CreatedAt: time.Now().UTC()}
	add := func(role infra.Role, name string) error {
		base := filepath.Join(p.root, name)
		// The machine exists before the run: its base is there already.
		if err := os.MkdirAll(base, 0o755); err != nil {
			return err
		}
		c.Hosts = append(c.Hosts, infra.Host{Name: name, Roles: []infra.Role{role}, PublicIP: "127.0.0.1", PrivateIP: "127.0.0.1",
			InstanceType: "fake." + string(role), Base: base, Shared: true,
			// The fake database runs no process: its service user is
			// no user at all, so no process here can be its own and the
			// db hosts' readings find none (nobody, used before, owns
			// daemons on some machines, and the limit verdict then
			// depended on the machine).
			ServiceUser: fakeServiceUser})
		return nil
	}
	for i := 1; i <= s.DBHosts; i++ {
		if err := add(infra.RoleDB, fmt.Sprintf("db-%d", i)); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= s.ClientHosts; i++ {
		if err := add(infra.RoleClient, fmt.Sprintf("client-%d", i)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (p *fakeProvider) Destroy(ctx context.Context, c *infra.Cluster) error {
	p.mu.Lock()
	p.destroyed = append(p.destroyed, c.Name)
	p.mu.Unlock()
	var errs []error
	for _, h := range c.Hosts {
		if _, err := os.Stat(provision.OwnDir(h.Base)); err == nil {
			errs = append(errs, fmt.Errorf("%s: the run's own directory %s remains", h.Name, provision.OwnDir(h.Base)))
		}
		if h.Name == p.keep {
			errs = append(errs, fmt.Errorf("%s: host %s could not be deleted", h.Name, h.Base))
			continue
		}
		if err := os.RemoveAll(h.Base); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fakeFlavor installs nothing and starts no server: it claims the run's
// own directory on each db host (as every flavor does before writing
// there), writes the bench role's password, and returns a deployment whose
// YSQL endpoints nothing listens on; the agent's null binding never dials
// them. With fail set, Install fails after the claim, as a flavor whose
// server does not start.
type fakeFlavor struct {
	fail error

	mu       sync.Mutex
	installs int
	wiped    []string // cluster names
}

func (f *fakeFlavor) Name() string { return "fake" }

func (f *fakeFlavor) Describe(provision.FlavorSpec) string {
	return "(nothing: no server is installed)"
}

func (f *fakeFlavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	f.mu.Lock()
	f.installs++
	f.mu.Unlock()
	dep := &provision.Deployment{Flavor: "fake", Version: "0.0.0", Database: "ycsb", User: "ybbench",
		Settings: map[string]string{"server": "none (the fake-parts tier)"}}
	for _, h := range c.ByRole(infra.RoleDB) {
		if err := provision.Claim(ctx, r, h, provision.Mark{RunID: s.RunID, Version: s.ToolVersion}, []string{h.Base}, ""); err != nil {
			return dep, err
		}
		// Port 1 (tcpmux): nothing answers there, so an agent that dialled
		// it would fail its phase.
		dep.YSQL = append(dep.YSQL, provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: 1})
	}
	if f.fail != nil {
		return dep, f.fail
	}
	dep.PasswordFile = filepath.Join(s.SecretsDir, "fake-password")
	return dep, os.WriteFile(dep.PasswordFile, []byte("not-a-real-password\n"), 0o600)
}

func (f *fakeFlavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	return nil
}

func (f *fakeFlavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	f.mu.Lock()
	f.wiped = append(f.wiped, c.Name)
	f.mu.Unlock()
	var errs []error
	for _, h := range c.ByRole(infra.RoleDB) {
		errs = append(errs, provision.Release(ctx, r, h, c.Name, []string{h.Base}))
	}
	return errors.Join(errs...)
}

// fakeRun is one run of Execute on the fake parts, and what it touched.
type fakeRun struct {
	deps     pipeline.Deps // what the run was made with
	run      *pipeline.Run
	provider *fakeProvider
	flavor   *fakeFlavor
	hosts    string // the hosts' root directory
	err      error
	progress *progressLog
}

// executeFake runs the whole pipeline on the fake parts: profile
// ycsb-ysql with the agent's null binding, 3 db hosts and 1 client.
func executeFake(t *testing.T, installErr error, opts ...func(*fakeProvider)) *fakeRun {
	t.Helper()
	fr := newFake(t, installErr, opts...)
	fr.err = fr.run.Execute(t.Context(), t.Context())
	return fr
}

// newFake is executeFake's run, not yet executed.
func newFake(t *testing.T, installErr error, opts ...func(*fakeProvider)) *fakeRun {
	t.Helper()
	return newFakeWith(t, installErr, nil, nil, opts...)
}

// newFakeWith is newFake with its spec changed by spec and its runner
// wrapped by runner (either nil: as newFake has them).
func newFakeWith(t *testing.T, installErr error, spec func(*pipeline.Spec), runner func(provision.Runner) provision.Runner, opts ...func(*fakeProvider)) *fakeRun {
	t.Helper()
	bin := ybload(t)
	fr := &fakeRun{hosts: filepath.Join(t.TempDir(), "hosts"), flavor: &fakeFlavor{fail: installErr}, progress: &progressLog{}}
	fr.provider = &fakeProvider{root: fr.hosts}
	for _, o := range opts {
		o(fr.provider)
	}
	s := pipeline.Defaults()
	s.RunsDir = filepath.Join(t.TempDir(), "runs")
	s.Agent = bin
	s.Records, s.Operations, s.Threads, s.LoadThreads = new(int64(fakeRecords)), new(int64(fakeOperations)), new(1), new(1)
	s.StartDelay = 0
	// Every host is this machine, on its one clock: the preflight's clock
	// reading is tested, but a loaded test machine's slow round trips must
	// not fail it.
	s.MaxClockSkew = 5 * time.Second
	s.AgentProperties = map[string]string{"ybload.seed": fakeAgentSeed}
	// The hosts are not read: the fake agents live a moment, so a reading
	// may or may not see one, and the limit verdict's reasons, the same
	// for every workload or not, changed how the golden report reads. The
	// readings and their verdicts are tested on real clusters (the e2e
	// tier's limit attribution) and from recorded readings.
	s.HostSamples = "off"
	if spec != nil {
		spec(&s)
	}
	res, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	// The profile as published, but on the agent's null binding: the
	// agents run every phase and measure, with no database to reach.
	p := *res.P
	p.Binding = "null"
	res.P = &p
	deps := pipeline.Deps{
		Provider: func(*pipeline.Spec, string) (infra.Provider, error) { return fr.provider, nil },
		Runner: func(_ *pipeline.Spec, runDir string, log *slog.Logger) (provision.Runner, error) {
			var r provision.Runner = localexec.New(localexec.WithLogDir(filepath.Join(runDir, "logs")), localexec.WithLogger(log))
			if runner != nil {
				r = runner(r)
			}
			return r, nil
		},
		Flavor: func(string) (provision.Flavor, error) { return fr.flavor, nil },
		NewKey: ssh.GenerateKey,
		Preflight: func(ctx context.Context, r provision.Runner, hosts []infra.Host, maxSkew time.Duration) (map[string]map[string]string, error) {
			// The real preflight; only the free space asked for is the
			// size of this test, not of a database.
			checks, err := provision.Preflight(ctx, r, hosts, provision.PreflightOptions{MaxClockSkew: maxSkew, MinFreeBytes: 1 << 20})
			return provision.PreflightFacts(checks), err
		},
		Progress: fr.progress,
		// A command line with secrets in it: the run records it redacted.
		Args:    fakeArgs,
		Environ: []string{"HOME=/root", "YBBENCH_YB_TARBALL=https://op:" + fakeSecret + "@downloads.example/yb.tar.gz", "YBBENCH_RECORDS=100"},
		Tool:    "ybbench test",
	}
	fr.deps = deps
	fr.run, err = pipeline.New(res, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fr.run.Close() })
	return fr
}

// checkTornDown checks what a teardown must leave, whatever the run's
// outcome: the flavor wiped and the provider destroyed this run's hosts
// exactly once, nothing of the run is left on them, and the ledger says
// torn-down.
func checkTornDown(t *testing.T, fr *fakeRun, outcome string) {
	t.Helper()
	id := fr.run.ID()
	if !slices.Equal(fr.provider.destroyed, []string{id}) {
		t.Errorf("the provider destroyed %q, want this run's hosts once (%s)", fr.provider.destroyed, id)
	}
	if !slices.Equal(fr.flavor.wiped, []string{id}) {
		t.Errorf("the flavor wiped %q, want this run's database once (%s)", fr.flavor.wiped, id)
	}
	if left, _ := os.ReadDir(fr.hosts); len(left) > 0 {
		t.Errorf("hosts left after the teardown: %v", left)
	}
	rec := fr.run.Ledger().Record()
	if rec.State != pipeline.RunTornDown || rec.Outcome != outcome || len(rec.Remains) > 0 {
		t.Errorf("ledger: state %s, outcome %s, remains %q; want %s, %s, nothing", rec.State, rec.Outcome, rec.Remains, pipeline.RunTornDown, outcome)
	}
}

// ledgerSteps is the ledger's steps, one a line: name, status, hosts.
func ledgerSteps(r *pipeline.Run) string {
	var b strings.Builder
	for _, s := range r.Ledger().Record().Steps {
		fmt.Fprintf(&b, "%s %s %s\n", s.Name, s.Status, strings.Join(s.Hosts, ","))
	}
	return b.String()
}

// The whole pipeline on the fake parts ends with a result and a report
// that carry what the agents really did: every workload loaded, then run,
// with the operation counts and mix the seeded agent produced, compared
// with seed 000's published table; and the hosts torn down.
func TestFakePartsPipeline(t *testing.T) {
	fr := executeFake(t, nil)
	if fr.err != nil {
		t.Fatalf("execute: %v (exit %d)", fr.err, exitcode.Of(fr.err))
	}
	checkTornDown(t, fr, pipeline.OutcomeSucceeded)
	checkProgress(t, fr.progress)
	if fr.provider.creates != 1 || fr.flavor.installs != 1 {
		t.Errorf("%d creates and %d installs, want 1 and 1", fr.provider.creates, fr.flavor.installs)
	}
	for _, s := range fr.run.Ledger().Record().Steps {
		if s.Status != pipeline.StepDone {
			t.Errorf("step %s: %s %s", s.Name, s.Status, s.Error)
		}
	}
	golden.Check(t, "fakeparts-steps.txt", []byte(ledgerSteps(fr.run)))

	raw, err := os.ReadFile(filepath.Join(fr.run.Dir(), pipeline.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := collect.Validate(raw); err != nil {
		t.Errorf("result.json does not match its schema: %v", err)
	}
	// What the agents did, from the parameters alone: the load phase
	// inserts every record once, the run phase makes every operation; each
	// thread's cleanup is measured too, and a READ-MODIFY-WRITE is also
	// measured as its READ and its UPDATE (YCSB's own accounting).
	res, err := collect.ReadResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Workloads) != 6 {
		t.Fatalf("%d workloads in the result, want seed 000's six", len(res.Workloads))
	}
	for _, w := range res.Workloads {
		want := map[string]int64{"load": fakeRecords, "run": fakeOperations}
		for _, ph := range w.Phases {
			var outer int64
			for _, m := range ph.Measurements {
				switch m.Name {
				case "CLEANUP":
					if m.Count != 1 {
						t.Errorf("%s %s: %d cleanups, want 1 (one thread)", w.Name, ph.Phase, m.Count)
					}
				case "READ-MODIFY-WRITE":
					outer -= m.Count
				default:
					outer += m.Count
				}
				if m.Errors != 0 {
					t.Errorf("%s %s %s: %d errors", w.Name, ph.Phase, m.Name, m.Errors)
				}
			}
			if outer != want[ph.Phase] || ph.Ops != want[ph.Phase] || !ph.Complete {
				t.Errorf("%s %s: %d operations measured, %d counted, complete %v; want %d", w.Name, ph.Phase, outer, ph.Ops, ph.Complete, want[ph.Phase])
			}
			delete(want, ph.Phase)
		}
		if len(want) > 0 {
			t.Errorf("%s: phases %v missing", w.Name, want)
		}
	}
	checkHDRLogs(t, fr.run, res)
	id := fr.run.ID()
	golden.Check(t, "fakeparts-result.json", normalResult(t, raw, id, fr.hosts))
	report, err := os.ReadFile(filepath.Join(fr.run.Dir(), pipeline.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	// The command line is recorded, its secrets redacted, everywhere the
	// run writes it.
	for _, f := range []string{pipeline.InvocationsFile, pipeline.ResultFile, pipeline.ReportFile} {
		b, err := os.ReadFile(filepath.Join(fr.run.Dir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), fakeSecret) {
			t.Errorf("%s holds a secret of the command line", f)
		}
		if !strings.Contains(string(b), "ybbench run --quick") && !strings.Contains(string(b), `"--quick"`) {
			t.Errorf("%s lacks the command line", f)
		}
	}
	golden.Check(t, "fakeparts-report.md", normalReport(report, id))
}

// A stage that fails still ends in a complete teardown, and the run exits
// with the failed stage's code: 4 when the database cannot be installed.
func TestFakePartsInstallFails(t *testing.T) {
	fr := executeFake(t, errors.New("the server did not start"))
	if exitcode.Of(fr.err) != exitcode.Provision || !strings.Contains(fr.err.Error(), "the server did not start") {
		t.Fatalf("execute: %v (exit %d); want the install's failure, exit %d", fr.err, exitcode.Of(fr.err), exitcode.Provision)
	}
	checkTornDown(t, fr, pipeline.OutcomeFailed)
	golden.Check(t, "fakeparts-install-fails-steps.txt", []byte(ledgerSteps(fr.run)))
	for _, f := range []string{pipeline.DeploymentFile, pipeline.ResultFile, pipeline.ReportFile} {
		if _, err := os.Stat(filepath.Join(fr.run.Dir(), f)); !os.IsNotExist(err) {
			t.Errorf("%s after a failed install: %v", f, err)
		}
	}
}

// A host the provider cannot delete is an incomplete teardown: the run
// exits 6, its error names what remains and the command that retries,
// the ledger records it, and the host is indeed still there.
func TestFakePartsIncompleteTeardown(t *testing.T) {
	fr := executeFake(t, nil, func(p *fakeProvider) { p.keep = "db-2" })
	if exitcode.Of(fr.err) != exitcode.Teardown {
		t.Fatalf("execute: %v (exit %d); want exit %d", fr.err, exitcode.Of(fr.err), exitcode.Teardown)
	}
	kept := filepath.Join(fr.hosts, "db-2")
	for _, want := range []string{"db-2", kept, "ybbench down --run " + fr.run.Dir()} {
		if !strings.Contains(fr.err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, fr.err)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the host the provider could not delete is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fr.hosts, "db-1")); !os.IsNotExist(err) {
		t.Errorf("db-1 was not deleted: %v", err)
	}
	rec := fr.run.Ledger().Record()
	if rec.State != pipeline.RunTeardownIncomplete || len(rec.Remains) == 0 || !strings.Contains(strings.Join(rec.Remains, "\n"), "db-2") {
		t.Errorf("ledger: state %s, remains %q; want %s naming db-2", rec.State, rec.Remains, pipeline.RunTeardownIncomplete)
	}
}

// Normalising: what the golden files cannot pin because the machine
// decides it (times, the Go version, latencies and what follows from them,
// the preflight's readings) is replaced by a placeholder; its key stays, so
// that a figure that appears or disappears still changes the golden.

const varies = "<varies>"

// fakeSecret stands for a secret given on the command line and in the
// environment, which neither result.json nor report.md may hold.
const fakeSecret = "hunter2-fake-secret"

// fakeArgs is the command line the fake run records.
var fakeArgs = []string{"ybbench", "run", "--quick", "--yb-tarball", "https://downloads.example/yb.tar.gz?X-Signature=" + fakeSecret,
	"--agent-properties=ysql.passwd=" + fakeSecret + ",measurementtype=hdrhistogram"}

// normalResult is result.json with what varies replaced: the run id, the
// hosts' directory and the creation time; the Go version; each host's
// preflight readings (clock, ulimits, free space: the keys stay, but the
// ulimit warnings, present or not by machine, go); and per workload the
// throughput, latencies, phase windows, the comparisons' measured figures
// and ratios, Little's law, the CPU figures (CPU seconds dropped) and this
// machine's core count.
// Counts, errors, counters, parameters, the published table and every name
// stay exact.
func normalResult(t *testing.T, raw []byte, id, hosts string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	replace(doc, "created")
	replace(object(doc["versions"]), "go")
	// The preflight's warnings (ulimits) and the core count are this
	// machine's; the commands' times vary.
	delete(doc, "preflight_warnings")
	replace(object(object(doc["environment"])["shared_machine"]), "cpus")
	for _, inv := range array(doc["invocations"]) {
		replace(object(inv), "at")
	}
	// The caveats say this machine's cores, its preflight warnings and
	// when the run started, as the report does.
	var caveats []any
	for _, c := range array(doc["caveats"]) {
		cm := object(c)
		if cm["kind"] == "preflight" {
			continue
		}
		if text, ok := cm["text"].(string); ok {
			for _, v := range reportVaries[:2] {
				text = v.re.ReplaceAllString(text, v.with)
			}
			cm["text"] = text
		}
		caveats = append(caveats, cm)
	}
	if caveats != nil {
		doc["caveats"] = caveats
	}
	for _, h := range array(doc["hosts"]) {
		facts := object(object(h)["facts"])
		delete(facts, "warnings")
		for k := range facts {
			if k != "reachable" && k != "max_clock_skew_ms" {
				facts[k] = varies
			}
		}
	}
	// The reproduction verdict's figures are the measured ones.
	for _, row := range array(object(doc["reproduction"])["rows"]) {
		for _, f := range array(object(row)["figures"]) {
			replace(object(f), "median", "ci_low", "ci_high", "ratio", "within", "cv")
		}
	}
	for _, w := range array(doc["workloads"]) {
		wm := object(w)
		replace(wm, "throughput", "sanity_text")
		// Little's law is left out (0) when every latency was below 1 µs.
		if _, ok := wm["sanity_text"]; ok {
			wm["sanity"] = varies
		}
		// Judged only when computed (not for sub-microsecond latencies).
		delete(wm, "sanity_tolerance")
		delete(wm, "sanity_within")
		for _, c := range array(wm["comparisons"]) {
			replace(object(c), "measured", "ratio")
		}
		for _, c := range object(wm["cpu"]) {
			cm := object(c)
			replace(cm, "percent")
			// CPU seconds are left out when 0, as they are for a database
			// with no process; present or not, they are what the machine did.
			delete(cm, "cpu_seconds")
			delete(cm, "cpu_seconds_at_end")
			if src, ok := cm["source"].(string); ok {
				cm["source"] = cores.ReplaceAllString(src, "this machine's N cores")
			}
		}
		for _, ph := range array(wm["phases"]) {
			pm := object(ph)
			replace(pm, "throughput_ops_per_sec", "window_ms")
			for _, m := range array(pm["measurements"]) {
				replace(object(m), "latency_us", "response_us")
			}
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return []byte(strings.NewReplacer(id, "<run-id>", hosts, "<hosts>").Replace(b.String()))
}

// cores is this machine's core count where a CPU figure's source names it.
var cores = regexp.MustCompile(`this machine's \d+ cores`)

func object(v any) map[string]any { m, _ := v.(map[string]any); return m }
func array(v any) []any           { a, _ := v.([]any); return a }

// replace sets the keys of m that are there to the placeholder.
func replace(m map[string]any, keys ...string) {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			m[k] = varies
		}
	}
}

// The report's lines that hold measured figures, and the parts of them
// that vary; every other line is compared as it is.
var reportVaries = []struct {
	re   *regexp.Regexp
	with string
}{
	// The caveats: this machine's cores and the run's start.
	{regexp.MustCompile(`(shared one machine \()\d+ cores?`), "${1}N cores"},
	{regexp.MustCompile(`(; started ).* UTC\.`), "${1}" + varies + "."},
	{regexp.MustCompile(`^(\*\*\w+\*\* — \d+ agent\(s\), \d+ threads, \d+ operations, )\d+( ops/s over )[\d.]+( s.*)$`), "${1}~${2}~${3}"},
	// A measurement's row: name, count and errors stay.
	{regexp.MustCompile(`^(\| [A-Z-]+ \| \d+ \| \d+ \|)( [\d.]+ \|){6}$`), "${1} ~ | ~ | ~ | ~ | ~ | ~ |"},
	// A comparison's row: the published column and figure stay (a tiny
	// measured figure may be written with an exponent).
	{regexp.MustCompile(`^(\| [^|]+ \| [^|]+ \| [^|]+ \|) [-+.\de]+ ([a-z/%]+ \|) [-+.\de]+ \|$`), "${1} ~ ${2} ~ |"},
	// The db hosts' CPU, and the core count of its source.
	{regexp.MustCompile(` \d+(\.\d+)?%`), " ~%"},
	{cores, "this machine's N cores"},
	// Little's law of sub-microsecond latencies is a figure or, when the
	// histograms saw only zeros, "not computed".
	{regexp.MustCompile(`^(Sanity \(Little's law, ≈ 1 for a closed loop\): ).*$`), "${1}~"},
}

// normalReport is report.md with the run id and the measured figures
// replaced (reportVaries).
func normalReport(report []byte, id string) []byte {
	lines := strings.Split(strings.ReplaceAll(string(report), id, "<run-id>"), "\n")
	var out []string
	for _, l := range lines {
		// The preflight's warnings are this machine's (its ulimits).
		if strings.HasPrefix(l, "- **Preflight warnings:**") {
			continue
		}
		for _, v := range reportVaries {
			l = v.re.ReplaceAllString(l, v.with)
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

// checkHDRLogs checks the collect stage's interval logs of a run with one
// client: one per workload and measured phase, which hdrhistogram-go's
// reader reads back with per tag the count result.json has of that
// operation, and the count the collect step recorded.
func checkHDRLogs(t *testing.T, run *pipeline.Run, res *collect.Result) {
	t.Helper()
	logs := 0
	for _, w := range res.Workloads {
		for _, ph := range w.Phases {
			path := filepath.Join(run.Dir(), collect.HDRDir, collect.HDRLogName("client-1", w.Name, ph.Phase))
			f, err := os.Open(path)
			if err != nil {
				t.Errorf("%s %s: %v", w.Name, ph.Phase, err)
				continue
			}
			logs++
			counts := map[string]int64{}
			r := hdrhistogram.NewHistogramLogReader(f)
			for {
				h, err := r.NextIntervalHistogram()
				if err != nil {
					t.Errorf("%s: %v", path, err)
				}
				if h == nil {
					break
				}
				counts[h.Tag()] += h.TotalCount()
			}
			f.Close()
			want := map[string]int64{}
			for _, m := range ph.Measurements {
				if m.Count > 0 {
					want[m.Name] = m.Count
				}
			}
			if !maps.Equal(counts, want) {
				t.Errorf("%s: counts per tag %v, result.json has %v", path, counts, want)
			}
		}
	}
	if logs != 12 {
		t.Errorf("%d interval logs, want 12 (six workloads, load and run)", logs)
	}
	for _, s := range run.Ledger().Record().Steps {
		if s.Name == "collect" && s.Details["hdr_logs"] != "12" {
			t.Errorf("the collect step recorded %q interval logs, want 12", s.Details["hdr_logs"])
		}
	}
}
