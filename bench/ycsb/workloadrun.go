package ycsb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/livemetrics"
	"github.com/ybbench/ybbench/bench/pace"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/record"
)

// workloadRun is one invocation from a prepared binding to its report:
// what the steps of running the workload share, and the files they opened,
// closed when the run returns.
type workloadRun struct {
	env     *Env
	inv     *Invocation
	cfg     *Config
	ro      *runOptions
	binding Binding
	log     *slog.Logger
	files   []io.Closer
	// metrics serves the live metrics (nil: off).
	metrics *livemetrics.Server
}

// settings are the run's settings as the records and the summary keep them.
func (r *workloadRun) settings() map[string]string {
	return settingsOf(r.inv.Props, r.inv, r.binding, r.cfg, r.ro, r.env.Version)
}

// stopPrepared ends a prepare-only invocation: the orchestrator has one
// agent create the table before the others start loading into it; the
// summary says what it ran.
func (r *workloadRun) stopPrepared() error {
	fmt.Fprintln(r.env.Stderr, "Prepared (ybload.prepare.only): not running the workload.")
	if r.ro.summary == "" {
		return nil
	}
	if err := writePrepareSummary(r.ro.summary, r.binding, r.settings(), r.inv); err != nil {
		return fmt.Errorf("write the JSON summary: %w", err)
	}
	return nil
}

// execute runs the workload and writes its report, in YCSB's order of
// messages: load the workload, wait for the common start, run, report.
func (r *workloadRun) execute(ctx context.Context) error {
	defer r.closeFiles()
	ops, threads := r.operationsAndThreads()
	core, err := r.loadWorkload()
	if err != nil {
		return err
	}
	// Agents on several clients start together at a wall-clock instant
	// the orchestrator chose (their clocks were checked by its preflight).
	if err := agentutil.WaitUntil(ctx, agentutil.WallClock{}, r.ro.startAt, agentutil.AnnounceWait(r.env.Stderr, r.ro.startAt)); err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	fmt.Fprintln(r.env.Stderr, "Starting test.")
	ec := r.engineConfig(ops, threads)
	settings := r.settings()
	raw, err := r.addSinks(&ec, core, settings)
	if err != nil {
		return err
	}
	if prof := r.inv.Props.Get("ybload.cpuprofile", ""); prof != "" {
		stop, err := agentutil.StartCPUProfile(prof)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "ybload.cpuprofile: %v", err)
		}
		defer stop()
	}
	r.printThreadBanners(threads)
	res, gc, err := runCountingGC(ctx, core, ec)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	if res.Stop == bench.StopDuration {
		fmt.Fprintf(r.env.Stderr, "Maximum execution time of %d secs elapsed: stopped the workload.\n", int64(r.ro.maxTime/time.Second))
	}
	return r.report(res, gc, raw, settings, core)
}

func (r *workloadRun) closeFiles() {
	for _, c := range r.files {
		c.Close()
	}
}

// operationsAndThreads is the phase's operation count and the threads that
// run it: YCSB lowers threadcount to the operation count (stdout warning).
func (r *workloadRun) operationsAndThreads() (ops int64, threads int) {
	ops = r.cfg.OperationCount
	if r.inv.Load {
		ops = r.cfg.LoadCount
	}
	threads = r.ro.threads
	if int64(threads) > ops && ops > 0 {
		fmt.Fprintln(r.env.Stdout, "Warning: the threadcount is bigger than recordcount, the threadcount will be recordcount!")
		threads = int(ops)
	}
	return ops, threads
}

// loadWorkload builds CoreWorkload, reading the field-length histogram
// file first when the configuration names one.
func (r *workloadRun) loadWorkload() (*Core, error) {
	cfg := r.cfg
	fmt.Fprintln(r.env.Stderr, "Loading workload...")
	if cfg.FieldLengthDist == "histogram" {
		var err error
		if cfg.FieldLengths, err = readHistogram(cfg.FieldLengthHistogram, r.env.ReadFile); err != nil {
			return nil, exitcode.Wrap(exitcode.Config, err)
		}
	}
	core, err := NewCore(cfg, r.inv.Load, r.binding, r.ro.seed, r.log)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	if cfg.DataIntegrity {
		// The fork's CoreWorkload says so as it initialises (the seeds'
		// .dat files hold the line).
		fmt.Fprintln(r.env.Stdout, "Data integrity is enabled.")
	}
	return core, nil
}

func readHistogram(name string, readFile func(string) ([]byte, error)) (*HistogramGen, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	b, err := readFile(name)
	if err != nil {
		return nil, fmt.Errorf("fieldlengthhistogram: %w", err)
	}
	return ParseHistogram(name, string(b))
}

// engineConfig is the engine's configuration for the run.
func (r *workloadRun) engineConfig(ops int64, threads int) bench.Config {
	ro := r.ro
	ec := bench.Config{
		Threads: threads, Operations: ops, Duration: ro.maxTime, Warmup: ro.warmup,
		Interval: ro.interval, Grace: ro.grace, LateAfter: ro.lateAfter, Abort: r.env.Abort, Seed: ro.seed,
		Raw: ro.typ != MeasureHDR, Logger: r.log,
	}
	if ro.target > 0 {
		// YCSB divides the target by threadcount before it lowers the
		// thread count to the operation count: a thread's rate is
		// target ÷ threadcount as given, whatever runs.
		ec.Schedule = &pace.Target{OpsPerSec: float64(ro.target), Threads: ro.threads, Jitter: true}
	}
	return ec
}

// addSinks attaches what watches the run: the status lines (-s), the raw
// latencies (measurementtype raw or both), ybload's records and its live
// metrics. It returns the raw sink, whose values the report summarises.
func (r *workloadRun) addSinks(ec *bench.Config, core *Core, settings map[string]string) (*RawSink, error) {
	ro := r.ro
	if s := r.metrics.Sink(); s != nil {
		ec.Sinks = append(ec.Sinks, s)
	}
	if ro.status {
		ec.Sinks = append(ec.Sinks, NewStatusSink(r.env.Stderr, ro.label, ro.statusEvery, ro.mode, ro.typ))
	}
	var raw *RawSink
	if ec.Raw {
		w := r.env.Stdout
		if ro.rawFile != "" {
			f, err := os.OpenFile(ro.rawFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return nil, exitcode.Errorf(exitcode.Config, "measurement.raw.output_file: %v", err)
			}
			r.files = append(r.files, f)
			w = f
		}
		raw = NewRawSink(w, ro.rawFile, r.env.Stdout, ro.mode, ro.typ)
		ec.Sinks = append(ec.Sinks, raw)
	}
	if ro.records != "" {
		f, err := os.OpenFile(ro.records, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, exitcode.Errorf(exitcode.Config, "ybload.records: %v", err)
		}
		r.files = append(r.files, f)
		phase := "run"
		if r.inv.Load {
			phase = "load"
		}
		rs := bench.NewRecordSink(record.NewWriter(f), record.Meta{Agent: ro.agent, Workload: "ycsb", Phase: phase, Settings: settings})
		rs.Counters = core.Counters
		ec.Sinks = append(ec.Sinks, rs)
	}
	return raw, nil
}

// printThreadBanners prints a binding's banner once per thread, as each
// YCSB client thread's DB prints it.
func (r *workloadRun) printThreadBanners(threads int) {
	tb, ok := r.binding.(ThreadBanner)
	if !ok {
		return
	}
	banner := tb.ThreadBanner()
	for range threads {
		for _, l := range banner {
			fmt.Fprintln(r.env.Stdout, l)
		}
	}
}

// gcUse is what Go's collector did during a run; the report prints it
// where YCSB prints the JVM's collections.
type gcUse struct{ count, pauseMs int64 }

func runCountingGC(ctx context.Context, core *Core, ec bench.Config) (*bench.Result, gcUse, error) {
	var gc0 runtime.MemStats
	runtime.ReadMemStats(&gc0)
	res, err := bench.Run(ctx, core, ec)
	if err != nil {
		return nil, gcUse{}, err
	}
	var gc1 runtime.MemStats
	runtime.ReadMemStats(&gc1)
	return res, gcUse{count: int64(gc1.NumGC - gc0.NumGC), pauseMs: int64(gc1.PauseTotalNs-gc0.PauseTotalNs) / 1e6}, nil
}

// report writes the measurements with the chosen exporter (to exportfile
// or standard output) and the JSON summary, then turns a run that stopped
// early into an error.
func (r *workloadRun) report(res *bench.Result, gc gcUse, raw *RawSink, settings map[string]string, core *Core) error {
	ro := r.ro
	opts := ReportOptions{
		Mode: ro.mode, Type: ro.typ, Percentiles: ro.percentiles, NoRawSummary: r.inv.Props.Bool("measurement.raw.no_summary", false),
		GCCount: gc.count, GCPauseMs: gc.pauseMs,
	}
	if raw != nil {
		opts.Raw = raw.Values()
	}
	out := r.env.Stdout
	if ro.exportFile != "" {
		f, err := os.Create(ro.exportFile)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "exportfile: %v", err)
		}
		r.files = append(r.files, f)
		out = f
	}
	if err := writeExport(out, r.env.Stderr, ro.exporter, res, opts); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if ro.summary != "" {
		if err := writeSummaryFile(ro.summary, res, opts, settings, core.Counters(), r.inv, ddlOf(r.binding)); err != nil {
			return fmt.Errorf("write the JSON summary: %w", err)
		}
	}
	if res.Err != nil {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("the run stopped early: %w", res.Err))
	}
	return nil
}
