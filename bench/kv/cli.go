package kv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/pace"
	"github.com/ybbench/ybbench/bench/ycql"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/record"
)

// Env is everything outside the process that `ybload kv` touches.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Abort, when closed, cuts off operations in flight (second Ctrl-C).
	Abort   <-chan struct{}
	Version string
}

// Main runs `ybload kv <flags>` and returns the exit code: 0, 2 for bad
// flags, 5 for a database or workload error. Asked for help (--help, -h,
// --help <workload>) it writes the help on standard output and returns 0,
// before any other flag is checked.
func Main(ctx context.Context, args []string, env *Env) int {
	if workload, asked := helpRequest(args); asked {
		text, err := Help(workload)
		if err != nil {
			fmt.Fprintf(env.Stderr, "ybload kv: %v\n", err)
			return exitcode.Config
		}
		fmt.Fprint(env.Stdout, text)
		return exitcode.OK
	}
	err := run(ctx, args, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ybload kv: %v\n", err)
	}
	return exitcode.Of(err)
}

// run is one `ybload kv` run: the flags, the schema, then the measured
// workload, unless --skip_workload stops after the schema.
func run(ctx context.Context, args []string, env *Env) error {
	processStart := time.Now()
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	o, cfg, err := configure(args, env, log)
	if err != nil {
		return err
	}
	metrics, err := serveMetrics(ctx, o, log)
	if err != nil {
		return err
	}
	defer metrics.Close()
	server, ddl, err := setUpSchema(ctx, o, cfg)
	if err != nil {
		return err
	}
	if o.SkipWorkload {
		log.Info("--skip_workload: not running the workload")
		return nil
	}
	sess, err := ycql.Open(ctx, cfg, server)
	if err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	defer sess.Close()
	return runWorkload(ctx, o, sess, ddl, env, log, processStart, metrics)
}

// serveMetrics starts the live metrics when --ybload_metrics_addr asks for
// them (nil: off; --skip_workload measures nothing), before anything
// connects, so that a port in use costs no server time. The server is
// closed last, as the agent exits.
func serveMetrics(ctx context.Context, o *Options, log *slog.Logger) (*livemetrics.Server, error) {
	if o.MetricsAddr == "" || o.SkipWorkload {
		return nil, nil
	}
	s, err := livemetrics.Serve(ctx, o.MetricsAddr)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.Config, "--ybload_metrics_addr %s: %v", o.MetricsAddr, err)
	}
	log.Info(fmt.Sprintf("Serving live metrics at http://%s%s", s.Addr(), livemetrics.Path))
	return s, nil
}

// configure reads the flags and the session configuration they give, both
// checked before anything is connected, and picks the key prefix.
func configure(args []string, env *Env, log *slog.Logger) (*Options, *ycql.Config, error) {
	o, err := ParseArgs(args, env.Getenv)
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Config, err)
	}
	cfg := o.CQLConfig()
	cfg.Logger = log
	if err := cfg.Validate(); err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Config, err)
	}
	log.Info("Starting sample app...", "workload", o.Workload, "ybload", env.Version)
	for _, w := range o.NoEffect {
		log.Warn(w)
	}
	if o.UUID == "" {
		u, err := gocql.RandomUUID()
		if err != nil {
			return nil, nil, fmt.Errorf("key prefix: %w", err)
		}
		o.UUID = u.String()
	}
	return o, cfg, nil
}

// runWorkload runs the measured workload on sess, after the pure-read
// setup when there are no writers, and reports it: the metrics lines, the
// records and summary if asked, the live metrics (of the measured
// workload only, not the setup) and the checks at the end.
func runWorkload(ctx context.Context, o *Options, sess *ycql.Session, ddl []string, env *Env, log *slog.Logger, processStart time.Time,
	metrics *livemetrics.Server) error {
	var initialRows int64 = -1
	if o.RowCountCheck {
		var err error
		if initialRows, err = countRows(ctx, sess.S, o.Table); err != nil {
			return exitcode.Wrap(exitcode.Workload, err)
		}
	}
	keys := NewPartKeyGen(o.Part.KeyStart, o.Part.Keys, o.MaxWrittenKey)
	if o.Part.Split() {
		log.Info("This agent's part of the run", "agent", o.Part.Index, "of", o.Part.Count,
			"keys_from", o.Part.KeyStart, "keys", o.Part.Keys, "num_writes", o.Part.NumWrites, "num_reads", o.Part.NumReads)
	}
	var setupKeys int64
	if !o.ReadOnly && o.Writers == 0 {
		setup, res, err := pureReadSetup(ctx, o, sess, keys, log, env.Abort)
		if err != nil {
			return err
		}
		setupKeys = setup.Snapshot().WriteOps
		if ctx.Err() != nil {
			return setupInterrupted(o, setup, res, keys, sess, settingsOf(o, sess, ddl, env.Version), log)
		}
	}
	wl := NewWorkload(o, sess.S, keys, log, o.Workload, o.Writers, o.Readers, o.Part.NumWrites, o.Part.NumReads, o.Stagger)
	wl.newRetry = sess.StatementRetry
	settings := settingsOf(o, sess, ddl, env.Version)
	counters := func() map[string]int64 { return countersOf(wl, keys, sess, setupKeys) }
	ec, closeOutputs, err := engineConfig(o, env, log, wl, keys, processStart, settings, counters)
	if err != nil {
		return err
	}
	if s := metrics.Sink(); s != nil {
		ec.Sinks = append(ec.Sinks, s)
	}
	defer closeOutputs()
	// Agents on several clients start the measured workload together at the
	// instant the orchestrator chose: connected and set up first, so that
	// neither is part of the race.
	if err := agentutil.WaitUntil(ctx, agentutil.WallClock{}, o.StartAt, func(d time.Duration) {
		log.Info("Waiting for the start time", "wait", d.Round(time.Millisecond), "start_at", o.StartAt.Format(time.RFC3339Nano))
	}); err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	log.Info("Starting the workload", "writers", o.Writers, "readers", o.Readers, "num_writes", o.NumWrites,
		"num_reads", o.NumReads, "run_time", o.RunTime, "routing", sess.Routing)
	res, err := bench.Run(ctx, wl, ec)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	c := wl.Snapshot()
	checkAtEnd(ctx, o, sess, c, initialRows, log)
	if o.Summary != "" {
		if err := writeSummary(o.Summary, summaryOf(res, settings, counters(), o.Workload)); err != nil {
			return fmt.Errorf("write the JSON summary: %w", err)
		}
	}
	log.Info("The sample app has finished", "stop", res.Stop, "reads", c.ReadOps, "keys_written", c.WriteOps,
		"verify_failures", c.VerifyFailed, "exceptions", c.Exceptions)
	if res.Err != nil {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("the run stopped early: %w", res.Err))
	}
	return nil
}

// engineConfig is the engine's configuration for the measured workload,
// with its outputs: the metrics line always, the records and the CPU
// profile when asked. closeOutputs ends the files after the run's summary
// is written; on an error nothing is left open.
func engineConfig(o *Options, env *Env, log *slog.Logger, wl *Workload, keys *KeyGen, processStart time.Time,
	settings map[string]string, counters func() map[string]int64) (ec bench.Config, closeOutputs func(), err error) {
	ec = bench.Config{Threads: wl.Threads(), Duration: o.RunTime, Warmup: o.Warmup, Interval: bench.DefaultInterval, Abort: env.Abort,
		Seed: o.Seed, Logger: log, LateAfter: o.LateAfter}
	if o.TargetOpsPerSec > 0 {
		ec.Schedule = &pace.Target{OpsPerSec: float64(o.TargetOpsPerSec), Threads: wl.Threads(), Jitter: true}
	}
	ec.Sinks = append(ec.Sinks, NewMetricsSink(env.Stdout, wl, keys, processStart, o.MetricsInterval))
	outs := &bench.RunOutputs{}
	if o.Records != "" {
		rs, err := outs.Records(o.Records, record.Meta{Agent: o.Agent, Workload: "kv", Phase: o.Workload, Settings: settings})
		if err != nil {
			return ec, nil, exitcode.Errorf(exitcode.Config, "--ybload_records: %v", err)
		}
		rs.Counters = counters
		ec.Sinks = append(ec.Sinks, rs)
	}
	if o.CPUProfile != "" {
		if err := outs.CPUProfile(o.CPUProfile); err != nil {
			outs.Close()
			return ec, nil, exitcode.Errorf(exitcode.Config, "--ybload_cpuprofile: %v", err)
		}
	}
	return ec, outs.Close, nil
}

// checkAtEnd logs the checks asked for at the end of the run: the table's
// rows against the keys written (--ybload_row_count_check), and the
// reference's sanity check. They log, as in the reference, and change no
// exit code.
func checkAtEnd(ctx context.Context, o *Options, sess *ycql.Session, c Counts, initialRows int64, log *slog.Logger) {
	if o.RowCountCheck && o.NumWrites >= 0 {
		n, err := countRows(ctx, sess.S, o.Table)
		switch {
		case err != nil:
			log.Error("Row count check failed", "err", err)
		case n != c.WriteOps+initialRows:
			log.Error(fmt.Sprintf("Number of rows %d does not match the keys written %d plus the initial rows %d", n, c.WriteOps, initialRows))
		default:
			log.Info("Row count check passed", "rows", n)
		}
	}
	if o.SanityCheckAtEnd {
		if c.ReadOps+c.WriteOps == 0 {
			log.Error("Expected non-zero number of IOPS.")
		}
		if c.Exceptions > 0 || c.FailedThreads > 0 {
			log.Error("Hit failures during workload.")
		}
	}
}
