package sysbench

import (
	"github.com/ybbench/ybbench/bench/agentutil"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/pace"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/record"
)

// Env is everything outside the process a sysbench invocation touches.
type Env struct {
	Stdout, Stderr io.Writer
	// Getenv reads YBLOAD_YSQL_PASSWORD and PGPASSWORD (nil: none).
	Getenv func(string) string
	// Abort, when closed, cuts off events in flight (a second Ctrl-C).
	Abort <-chan struct{}
	// Version is ybload's version.
	Version string
}

// Main runs `ybload sysbench <workload> [options] <command>` (args without
// the word sysbench) and returns the exit code: 0 ok, 2 bad input, 5 a
// database or workload error, 1 our own failure. Asked for help (--help,
// -h, help, <workload> help) it writes the options of the --compat mode
// on standard output and returns 0, before any other option is checked.
func Main(ctx context.Context, args []string, env *Env) int {
	if m, asked, err := helpRequest(args); asked {
		if err != nil {
			fmt.Fprintf(env.Stderr, "ybload sysbench: %v\n", err)
			return exitcode.Config
		}
		fmt.Fprint(env.Stdout, Help(m))
		return exitcode.OK
	}
	if m, asked := versionRequest(args); asked {
		// As sysbench: the version, and nothing else is checked or done.
		fmt.Fprintln(env.Stdout, ToolLine(env.Version, m))
		return exitcode.OK
	}
	err := run(ctx, args, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ybload sysbench: %v\n", err)
	}
	return exitcode.Of(err)
}

func run(ctx context.Context, args []string, env *Env) error {
	o, err := ParseArgs(args, env.Getenv, agentutil.ReadSecretFile)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	for _, w := range o.Warnings {
		fmt.Fprintln(env.Stdout, w)
	}
	level := slog.LevelInfo
	if o.Verbosity >= 5 {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	metrics, err := serveMetrics(ctx, env.Stderr, o)
	if err != nil {
		return err
	}
	defer metrics.Close()
	seed := o.RandSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	eps := endpoints(o)
	version, yb, err := serverVersion(ctx, eps[0])
	if err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	srv := ServerInfo{Version: version, YugabyteDB: yb}
	settings := settingsOf(o, srv, seed, env.Version)
	tool := ToolLine(env.Version, o.Mode)

	switch o.Command {
	case "prepare", "create", "load":
		fmt.Fprintf(env.Stdout, "%s\n\n", tool)
		plan := PreparePlan(o, yb)
		if len(plan.Dropped) > 0 {
			fmt.Fprintf(env.Stdout, "Note: the server is PostgreSQL, not YugabyteDB: the fork's DDL is sent without what PostgreSQL rejects: %s\n",
				strings.Join(plan.Dropped, "; "))
		}
		res, err := Prepare(ctx, env.Stdout, o, plan, seed, o.Command != "load", o.Command != "create")
		if o.Summary != "" {
			s := newSummary(o, srv, settings, env.Version)
			s.addPrepare(res)
			if err != nil {
				s.Error = err.Error()
			}
			if werr := s.write(o.Summary); werr != nil {
				return fmt.Errorf("write the JSON summary: %w", werr)
			}
		}
		return exitcode.Wrap(exitcode.Workload, err)
	case "cleanup":
		fmt.Fprintf(env.Stdout, "%s\n\n", tool)
		return exitcode.Wrap(exitcode.Workload, Cleanup(ctx, env.Stdout, o))
	}
	return runWorkload(ctx, o, env, log, seed, srv, settings, tool, metrics)
}

// serveMetrics starts the live metrics when --ybload-metrics-addr asks for
// them on a run (nil: off; prepare and cleanup measure nothing), before
// anything connects, so that a port in use costs no server time. The
// server is closed last, as the agent exits.
func serveMetrics(ctx context.Context, stderr io.Writer, o *Options) (*livemetrics.Server, error) {
	if o.MetricsAddr == "" || o.Command != "run" {
		return nil, nil
	}
	s, err := livemetrics.Serve(ctx, o.MetricsAddr)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.Config, "--ybload-metrics-addr=%s: %v", o.MetricsAddr, err)
	}
	fmt.Fprintf(stderr, "Serving live metrics at http://%s%s\n", s.Addr(), livemetrics.Path)
	return s, nil
}

// runWorkload is the run command: the tables checked, the header, the
// threads connected, the measured run at the start time, and sysbench's
// report of it.
func runWorkload(ctx context.Context, o *Options, env *Env, log *slog.Logger, seed uint64, srv ServerInfo, settings map[string]string, tool string,
	metrics *livemetrics.Server) error {
	if err := requireTables(ctx, o); err != nil {
		return err
	}
	h := &Header{Tool: tool, Mode: o.Mode, Threads: o.Threads, Warmup: o.Warmup, Rate: o.Rate, ReportInterval: o.ReportInterval, Endless: o.Events == 0 && o.Time == 0,
		Seed: o.RandSeed, Hosts: o.Hosts, Debug: o.Debug, Validate: o.Validate}
	WriteHeader(env.Stdout, h)
	wl := NewWorkload(o, seed, log)
	if err := wl.Connect(ctx); err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	defer wl.Close()
	// Agents on several clients start together at the instant the
	// orchestrator chose: connected first, so that connecting is not part
	// of the race, and before the warm-up.
	if err := agentutil.WaitUntil(ctx, agentutil.WallClock{}, o.StartAt, agentutil.AnnounceWait(env.Stderr, o.StartAt)); err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	WriteStarted(env.Stdout, h)
	ec, closeOutputs, err := engineConfig(o, env, log, seed, wl, settings, metrics.Sink())
	if err != nil {
		return err
	}
	defer closeOutputs()
	res, err := bench.Run(ctx, wl, ec)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	f := reportRun(env, o, wl, res)
	if o.Summary != "" {
		s := newSummary(o, srv, settings, env.Version)
		s.addRun(res, f, wl.Totals(true))
		if err := s.write(o.Summary); err != nil {
			return fmt.Errorf("write the JSON summary: %w", err)
		}
	}
	if res.Err != nil && !(o.QueueFullStop && errors.Is(res.Err, pace.ErrQueueFull)) {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("the run stopped early: %w", res.Err))
	}
	return nil
}

// requireTables refuses a run on tables that are not there, before any
// thread connects: one message naming the prepare to run, rather than a
// failed statement per thread.
func requireTables(ctx context.Context, o *Options) error {
	eps := endpoints(o)
	missing, err := missingTables(ctx, eps[0], o.Tables)
	if err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, n := range missing {
		names[i] = "sbtest" + strconv.FormatInt(n, 10)
	}
	return exitcode.Errorf(exitcode.Workload, "%s: table %s does not exist in database %s on %s: run `ybload sysbench %s … prepare` first (with the same --tables)",
		o.Workload, strings.Join(names, ", "), o.DB, eps[0], o.Workload)
}

// engineConfig is the engine's configuration for the run: its limits, the
// Poisson schedule of --rate, and its outputs: sysbench's intermediate
// reports, the records, the live metrics (live, nil when off) and the CPU
// profile when asked. closeOutputs ends the files after the run's summary
// is written; on an error nothing is left open.
func engineConfig(o *Options, env *Env, log *slog.Logger, seed uint64, wl *Workload, settings map[string]string,
	live bench.Sink) (ec bench.Config, closeOutputs func(), err error) {
	ec = bench.Config{
		Threads: o.Threads, Operations: o.Events, SharedQuota: true,
		Duration: time.Duration(o.Time) * time.Second, Warmup: time.Duration(o.Warmup) * time.Second,
		Grace: o.Grace, Abort: env.Abort, Seed: seed, Logger: log, LateAfter: o.LateAfter,
	}
	var poisson *pace.Poisson
	if o.Rate > 0 {
		poisson = &pace.Poisson{Rate: float64(o.Rate), Queue: pace.DefaultQueue, Seed: seed}
		ec.Schedule = poisson
	}
	if o.ReportInterval > 0 {
		ec.Sinks = append(ec.Sinks, &intervalSink{w: env.Stdout, o: o, wl: wl, poisson: poisson})
	}
	if live != nil {
		ec.Sinks = append(ec.Sinks, live)
	}
	outs := &bench.RunOutputs{}
	if o.Records != "" {
		agent := o.Agent
		if agent == "" {
			agent = agentutil.Hostname()
		}
		rs, err := outs.Records(o.Records, record.Meta{Agent: agent, Workload: "sysbench/" + o.Workload, Phase: "run", Settings: settings})
		if err != nil {
			return ec, nil, exitcode.Errorf(exitcode.Config, "--ybload-records: %v", err)
		}
		rs.Counters = wl.Counters
		ec.Sinks = append(ec.Sinks, rs)
	}
	if o.CPUProfile != "" {
		if err := outs.CPUProfile(o.CPUProfile); err != nil {
			outs.Close()
			return ec, nil, exitcode.Errorf(exitcode.Config, "--ybload-cpuprofile: %v", err)
		}
	}
	return ec, outs.Close, nil
}

// reportRun writes sysbench's final report of the run on standard output,
// and on standard error what sysbench's report does not say: a run that
// stopped early, events cancelled at the end, connections lost.
func reportRun(env *Env, o *Options, wl *Workload, res *bench.Result) *Final {
	if res.Err != nil {
		msg := res.Err.Error()
		if errors.Is(res.Err, pace.ErrQueueFull) {
			msg = "The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate"
		}
		if o.QueueFullStop && errors.Is(res.Err, pace.ErrQueueFull) {
			fmt.Fprintf(env.Stderr, "ybload sysbench: %s; the run stopped there (--ybload-queue-full=stop): the report below covers the events completed until then\n", msg)
		} else {
			fmt.Fprintf(env.Stderr, "FATAL: %s\nybload sysbench: the run stopped early; the report below covers the events completed until then\n", msg)
		}
	}
	if res.Cancelled > 0 {
		fmt.Fprintf(env.Stderr, "ybload sysbench: %d events still in flight %s after the end were cancelled and are not counted\n", res.Cancelled, o.Grace)
	}
	hist := histogram(wl.stats)
	f := &Final{Mode: o.Mode, Totals: wl.Totals(false), Seconds: res.RunTime.Seconds(), Percentile: o.Percentile}
	if o.Percentile > 0 {
		f.PercentileMs = hist.percentile(o.Percentile)
	}
	f.EventsAvg, f.EventsStddev, f.TimeAvg, f.TimeStddev = fairness(wl.stats)
	if o.Histogram {
		f.Histogram = hist
	}
	WriteFinal(env.Stdout, f)
	if t := f.Totals; t.Lost > 0 {
		fmt.Fprintf(env.Stderr, "ybload sysbench: %d lost connections were reconnected; their events ran again from the start and count once\n", t.Lost)
	}
	return f
}

// settingsOf records what shapes the numbers, for the records and summary.
func settingsOf(o *Options, srv ServerInfo, seed uint64, version string) map[string]string {
	s := map[string]string{
		"sysbench.compat":          o.Mode.String(),
		"sysbench.workload":        o.Workload,
		"sysbench.command":         o.Command,
		"sysbench.rand_seed":       strconv.FormatUint(seed, 10),
		"sysbench.rand_type":       o.RandType,
		"sysbench.param_int_type":  map[Mode]string{ModeFork: "int4", Mode1020: "int8"}[o.Mode],
		"sysbench.db_ps_mode":      o.PSMode,
		"sysbench.hosts":           strings.Join(o.Hosts, ","),
		"sysbench.database":        o.DB,
		"sysbench.user":            o.User,
		"sysbench.password_source": o.PasswordSource,
		"server.version":           srv.Version,
		"server.yugabytedb":        strconv.FormatBool(srv.YugabyteDB),
		"ybload.version":           version,
		"ybload.grace":             o.Grace.String(),
		"ybload.socket":            o.Socket,
		"latency.records":          SourceHDR,
		"latency.sysbench_report":  SourceSysbench,
	}
	keys := make([]string, 0, len(o.Given))
	for k := range o.Given {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s["option."+k] = o.Given[k]
	}
	return s
}

// versionRequest reports whether the line asks for the version
// (--version, --version=on), and the --compat mode it names.
func versionRequest(args []string) (Mode, bool) {
	asked, m := false, ModeFork
	for _, a := range args {
		name, val, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case !strings.HasPrefix(a, "--"):
		case canonical(name) == "version" && (val == "" || val == "on" || val == "true" || val == "1"):
			asked = true
		case canonical(name) == "compat":
			if mm, err := parseMode(val); err == nil {
				m = mm
			}
		}
	}
	return m, asked
}
