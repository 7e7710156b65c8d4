package ycsb

import (
	"sort"

	"github.com/ybbench/ybbench/bench/agentutil"

	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/pace"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/record"
)

//go:embed workloads
var builtinWorkloads embed.FS

// BuiltinWorkload returns the built-in copy of YCSB's workload file name
// (workloada … workloadf).
func BuiltinWorkload(name string) ([]byte, bool) {
	b, err := fs.ReadFile(builtinWorkloads, "workloads/"+name)
	return b, err == nil
}

// BindingFactory builds a binding from the properties.
type BindingFactory func(p *Props, log *slog.Logger) (Binding, error)

// Env is everything outside the process that a YCSB invocation touches.
type Env struct {
	Stdout, Stderr io.Writer
	// Bindings maps binding names (ysql, jdbc, …) and YCSB class names to factories.
	Bindings map[string]BindingFactory
	// Abort, when closed, cuts off operations in flight (second Ctrl-C).
	Abort <-chan struct{}
	// Version is ybload's version, for the records.
	Version string
	// ReadFile reads a file (property files); os.ReadFile if nil.
	ReadFile func(string) ([]byte, error)
}

// Invocation is a parsed YCSB command line.
type Invocation struct {
	Load    bool
	Binding string
	Props   *Props
	// WorkloadFiles says, for each -P, which file was read: the path, or
	// "built-in <name>" when no such path existed.
	WorkloadFiles []string
	Args          []string
}

type listFlag struct {
	name string
	vals *[]string
}

func (l listFlag) String() string     { return "" }
func (l listFlag) Set(v string) error { *l.vals = append(*l.vals, v); return nil }

// setting is one property a command-line option sets, in the order given.
type setting struct{ key, value, flag string }

// settingFlag is an option that sets a property (-threads, -target, -l,
// -db, -s, -load, -t, and -p itself): all go into one ordered list, as
// YCSB's Client puts them into one property map in the order of the line,
// so the last one wins whichever option it came from. fixed is the value
// of an option that takes none (-s, -load, -t).
type settingFlag struct {
	key, name, fixed string
	list             *[]setting
}

func (f settingFlag) String() string   { return "" }
func (f settingFlag) IsBoolFlag() bool { return f.fixed != "" }
func (f settingFlag) Set(v string) error {
	if f.fixed != "" {
		if v != "true" { // -s=false and the like: YCSB has no such form
			return fmt.Errorf("-%s takes no value", f.name)
		}
		v = f.fixed
	}
	if f.key == "" { // -p name=value
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("-p %s: want name=value", v)
		}
		*f.list = append(*f.list, setting{k, val, "-p " + k})
		return nil
	}
	*f.list = append(*f.list, setting{f.key, v, "-" + f.name})
	return nil
}

// ParseArgs reads `load|run <binding> [options]` with YCSB's options
// (-P file, -p name=value, -threads n, -target n, -s, -l label, -db class,
// -load, -t). Every option beats every -P, whatever the order, and the
// last option setting a property wins (-threads 2 -p threadcount=3 runs
// three threads), as in YCSB; the phase is the dotransactions property,
// which the command word sets first and -load, -t or -p may change. A
// help flag (-h, -help, --help) in the binding's place or among the
// options returns flag.ErrHelp, as YCSB's bin/ycsb answers -h anywhere.
func ParseArgs(args []string, readFile func(string) ([]byte, error)) (*Invocation, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	bad := func(format string, a ...any) error { return exitcode.Errorf(exitcode.Config, format, a...) }
	if len(args) >= 2 && agentutil.IsHelpFlag(args[1]) {
		return nil, flag.ErrHelp
	}
	if len(args) < 2 {
		return nil, bad("usage: ybload load|run <binding> [-P file] [-p name=value] [-threads n] [-target n] [-s] [-l label] (ybload %s --help lists the options)", args[0])
	}
	inv := &Invocation{Props: NewProps(), Args: args}
	// bin/ycsb's command word puts -load or -t first on Client's line:
	// a later -t, -load or -p dotransactions=… overrides it.
	var sets []setting
	switch args[0] {
	case "load":
		sets = append(sets, setting{"dotransactions", "false", "load"})
	case "run":
		sets = append(sets, setting{"dotransactions", "true", "run"})
	default:
		return nil, bad("unknown command %q: want load or run", args[0])
	}
	inv.Binding = args[1]
	fset := flag.NewFlagSet("ybload "+args[0], flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	var files []string
	fset.Var(listFlag{"P", &files}, "P", "property file")
	for _, f := range []settingFlag{{name: "p"}, {key: "threadcount", name: "threads"}, {key: "target", name: "target"},
		{key: "status", name: "s", fixed: "true"}, {key: "label", name: "l"}, {key: "db", name: "db"},
		{key: "dotransactions", name: "load", fixed: "false"}, {key: "dotransactions", name: "t", fixed: "true"}} {
		f.list = &sets
		fset.Var(f, f.name, f.key)
	}
	if err := fset.Parse(args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, bad("%v", err)
	}
	if fset.NArg() > 0 {
		return nil, bad("unexpected argument %q", fset.Arg(0))
	}
	for _, f := range files {
		data, err := readFile(f)
		used := f
		if err != nil {
			if b, ok := BuiltinWorkload(path.Base(f)); ok && errors.Is(err, fs.ErrNotExist) {
				data, used = b, "built-in "+path.Base(f)
			} else {
				return nil, bad("-P %s: %v", f, err)
			}
		}
		if err := inv.Props.LoadFile(used, data); err != nil {
			return nil, bad("%v", err)
		}
		inv.WorkloadFiles = append(inv.WorkloadFiles, used)
	}
	// Every option beats every -P file, whatever the order; among the
	// options the last one wins.
	for _, st := range sets {
		inv.Props.SetFlag(st.key, st.value, st.flag)
	}
	// YCSB's Boolean.valueOf: anything but "true" (any case) is false.
	inv.Load = !strings.EqualFold(inv.Props.Get("dotransactions", "true"), "true")
	return inv, nil
}

// Main runs a YCSB invocation and returns the process exit code. Asked for
// help, it writes the usage on standard output and returns 0, before
// anything else is read or printed.
func Main(ctx context.Context, args []string, env *Env) int {
	err := run(ctx, args, env)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, Usage())
		return exitcode.OK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "ybload: %v\n", err)
	}
	return exitcode.Of(err)
}

func run(ctx context.Context, args []string, env *Env) error {
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	inv, err := ParseArgs(args, env.ReadFile)
	if err != nil {
		return err
	}
	p := inv.Props
	fmt.Fprintf(env.Stderr, "Command line: %s\n", maskSecrets(args))
	fmt.Fprintf(env.Stderr, "ybload %s (YCSB-compatible client)\n", env.Version)
	for _, f := range inv.WorkloadFiles {
		if strings.HasPrefix(f, "built-in ") {
			fmt.Fprintf(env.Stderr, "Using the %s workload file (no such path on disk)\n", f)
		}
	}
	ro, err := readRunOptions(p, inv)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	cfg, err := ReadConfig(p)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(env.Stderr, "Warning: %s\n", w)
	}
	name := inv.Binding
	if c := p.Get("db", ""); c != "" && !p.SourceOf("db").isDefault() {
		name = c
	}
	factory, ok := env.Bindings[name]
	if !ok {
		return exitcode.Errorf(exitcode.Config, "unknown binding %q (have %s)", name, bindingNames(env.Bindings))
	}
	binding, err := factory(p, log)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	if c, ok := binding.(Closer); ok {
		defer c.Close()
	}
	if pr, ok := binding.(Preparer); ok {
		if err := pr.Prepare(ctx, inv.Load); err != nil {
			return exitcode.Wrap(exitcode.Workload, err)
		}
	}
	if ro.prepareOnly {
		// The orchestrator has one agent create the table before the
		// others start loading into it; the summary says what it ran.
		fmt.Fprintln(env.Stderr, "Prepared (ybload.prepare.only): not running the workload.")
		if ro.summary != "" {
			if err := writePrepareSummary(ro.summary, binding, settingsOf(p, inv, binding, cfg, ro, env.Version), inv); err != nil {
				return fmt.Errorf("write the JSON summary: %w", err)
			}
		}
		return nil
	}
	// YCSB lowers threadcount to the operation count (stdout warning).
	ops := cfg.OperationCount
	if inv.Load {
		ops = cfg.LoadCount
	}
	threads := ro.threads
	if int64(threads) > ops && ops > 0 {
		fmt.Fprintln(env.Stdout, "Warning: the threadcount is bigger than recordcount, the threadcount will be recordcount!")
		threads = int(ops)
	}
	fmt.Fprintln(env.Stderr, "Loading workload...")
	if cfg.FieldLengthDist == "histogram" {
		if cfg.FieldLengths, err = readHistogram(cfg.FieldLengthHistogram, env.ReadFile); err != nil {
			return exitcode.Wrap(exitcode.Config, err)
		}
	}
	core, err := NewCore(cfg, inv.Load, binding, ro.seed, log)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	if cfg.DataIntegrity {
		// The fork's CoreWorkload says so as it initialises (the seeds'
		// .dat files hold the line).
		fmt.Fprintln(env.Stdout, "Data integrity is enabled.")
	}
	// Agents on several clients start together at a wall-clock instant
	// the orchestrator chose (their clocks were checked by its preflight).
	if err := agentutil.WaitUntil(ctx, agentutil.WallClock{}, ro.startAt, agentutil.AnnounceWait(env.Stderr, ro.startAt)); err != nil {
		return exitcode.Wrap(exitcode.Workload, err)
	}
	fmt.Fprintln(env.Stderr, "Starting test.")

	ec := bench.Config{
		Threads: threads, Operations: ops, Duration: ro.maxTime, Warmup: ro.warmup,
		Interval: ro.interval, Grace: ro.grace, Abort: env.Abort, Seed: ro.seed,
		Raw: ro.typ != MeasureHDR, Logger: log,
	}
	if ro.target > 0 {
		// YCSB divides the target by threadcount before it lowers the
		// thread count to the operation count: a thread's rate is
		// target ÷ threadcount as given, whatever runs.
		ec.Schedule = &pace.Target{OpsPerSec: float64(ro.target), Threads: ro.threads, Jitter: true}
	}
	settings := settingsOf(p, inv, binding, cfg, ro, env.Version)
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	if ro.status {
		ec.Sinks = append(ec.Sinks, NewStatusSink(env.Stderr, ro.label, ro.statusEvery, ro.mode, ro.typ))
	}
	var raw *RawSink
	if ec.Raw {
		w := env.Stdout
		if ro.rawFile != "" {
			f, err := os.OpenFile(ro.rawFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return exitcode.Errorf(exitcode.Config, "measurement.raw.output_file: %v", err)
			}
			closers = append(closers, f)
			w = f
		}
		raw = NewRawSink(w, ro.rawFile, env.Stdout, ro.mode, ro.typ)
		ec.Sinks = append(ec.Sinks, raw)
	}
	if ro.records != "" {
		f, err := os.OpenFile(ro.records, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "ybload.records: %v", err)
		}
		closers = append(closers, f)
		phase := "run"
		if inv.Load {
			phase = "load"
		}
		rs := bench.NewRecordSink(record.NewWriter(f), record.Meta{Agent: ro.agent, Workload: "ycsb", Phase: phase, Settings: settings})
		rs.Counters = core.Counters
		ec.Sinks = append(ec.Sinks, rs)
	}
	if prof := p.Get("ybload.cpuprofile", ""); prof != "" {
		stop, err := agentutil.StartCPUProfile(prof)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "ybload.cpuprofile: %v", err)
		}
		defer stop()
	}
	if tb, ok := binding.(ThreadBanner); ok {
		// Once per thread, as each YCSB client thread's DB prints it.
		banner := tb.ThreadBanner()
		for range threads {
			for _, l := range banner {
				fmt.Fprintln(env.Stdout, l)
			}
		}
	}
	var gc0 runtime.MemStats
	runtime.ReadMemStats(&gc0)
	res, err := bench.Run(ctx, core, ec)
	if err != nil {
		return exitcode.Wrap(exitcode.Config, err)
	}
	var gc1 runtime.MemStats
	runtime.ReadMemStats(&gc1)
	if res.Stop == bench.StopDuration {
		fmt.Fprintf(env.Stderr, "Maximum execution time of %d secs elapsed: stopped the workload.\n", int64(ro.maxTime/time.Second))
	}
	opts := ReportOptions{
		Mode: ro.mode, Type: ro.typ, Percentiles: ro.percentiles, NoRawSummary: p.Bool("measurement.raw.no_summary", false),
		GCCount: int64(gc1.NumGC - gc0.NumGC), GCPauseMs: int64(gc1.PauseTotalNs-gc0.PauseTotalNs) / 1e6,
	}
	if raw != nil {
		opts.Raw = raw.Values()
	}
	out := env.Stdout
	if ro.exportFile != "" {
		f, err := os.Create(ro.exportFile)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "exportfile: %v", err)
		}
		closers = append(closers, f)
		out = f
	}
	if err := writeExport(out, env.Stderr, ro.exporter, res, opts); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if ro.summary != "" {
		if err := writeSummaryFile(ro.summary, res, opts, settings, core.Counters(), inv, ddlOf(binding)); err != nil {
			return fmt.Errorf("write the JSON summary: %w", err)
		}
	}
	if res.Err != nil {
		return exitcode.Wrap(exitcode.Workload, fmt.Errorf("the run stopped early: %w", res.Err))
	}
	return nil
}

func (s Source) isDefault() bool { return s.File == "" && s.Flag == "" }

func bindingNames(m map[string]BindingFactory) string {
	var names []string
	for n := range m {
		if !strings.Contains(n, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
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

// maskSecrets hides the values of password-like properties on the command
// line before it is echoed.
func maskSecrets(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if k, _, ok := strings.Cut(a, "="); ok && isSecretKey(k) {
			a = k + "=****"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "passw") || strings.Contains(k, "passwd") || strings.Contains(k, "secret")
}

type runOptions struct {
	threads     int
	target      int64
	maxTime     time.Duration
	warmup      time.Duration
	interval    time.Duration
	grace       time.Duration
	status      bool
	statusEvery time.Duration
	label       string
	mode        IntervalMode
	typ         MeasurementType
	percentiles []float64
	rawFile     string
	exporter    string
	exportFile  string
	records     string
	summary     string
	agent       string
	seed        uint64
	seedSet     bool
	prepareOnly bool
	startAt     time.Time
}

// MaxThreads bounds threadcount, far above what a server accepts as
// connections, so a typo is an error rather than an out-of-memory crash.
const MaxThreads = 100000

// MaxFieldCount bounds fieldcount: PostgreSQL and YSQL take at most 1600
// columns, and a record is built per operation.
const MaxFieldCount = 1600

// readRunOptions reads the client-level properties (YCSB's Client and
// Measurements) and ybload's own (ybload.*), reporting every problem.
func readRunOptions(p *Props, inv *Invocation) (*runOptions, error) {
	ro := &runOptions{}
	var errs []error
	num := func(key string, def int64) int64 {
		v, err := p.Int(key, def)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	dur := func(key string, def time.Duration) time.Duration {
		if !p.Has(key) {
			return def
		}
		d, err := time.ParseDuration(strings.TrimSpace(p.Get(key, "")))
		if err != nil || d < 0 {
			errs = append(errs, p.bad(key, "want a duration such as 500ms or 10s"))
			return def
		}
		return d
	}
	if w := p.Get("workload", ""); w == "" {
		errs = append(errs, errors.New("Missing property: workload (give a workload file with -P, e.g. -P workloads/workloada)"))
	}
	nerr := len(errs)
	ro.threads = int(num("threadcount", 1))
	switch {
	case len(errs) > nerr: // not an integer: said once
	case ro.threads < 1:
		errs = append(errs, p.bad("threadcount", "must be at least 1"))
	case ro.threads > MaxThreads:
		errs = append(errs, p.bad("threadcount", fmt.Sprintf("must be at most %d (each thread is a connection)", MaxThreads)))
	}
	ro.target = num("target", 0)
	if ro.target < 0 {
		errs = append(errs, p.bad("target", "must not be negative"))
	}
	mt := num("maxexecutiontime", 0)
	if mt < 0 {
		errs = append(errs, p.bad("maxexecutiontime", "must not be negative"))
	}
	ro.maxTime = time.Duration(mt) * time.Second
	wu := num("warmuptime", 0)
	if wu < 0 {
		errs = append(errs, p.bad("warmuptime", "must not be negative"))
	}
	ro.warmup = time.Duration(wu) * time.Second
	ro.interval = dur("ybload.interval", bench.DefaultInterval)
	if ro.interval <= 0 && p.Has("ybload.interval") {
		errs = append(errs, p.bad("ybload.interval", "must be positive"))
	}
	ro.grace = dur("ybload.stop.grace", bench.DefaultGrace)
	ro.status = p.Bool("status", false)
	se := num("status.interval", 10)
	if se < 1 {
		errs = append(errs, p.bad("status.interval", "must be at least 1 second"))
	}
	ro.statusEvery = time.Duration(se) * time.Second
	ro.label = p.Get("label", "")
	var err error
	if ro.mode, err = ParseIntervalMode(p.Get("measurement.interval", "op")); err != nil {
		errs = append(errs, p.bad("measurement.interval", err.Error()))
	}
	if ro.typ, err = ParseMeasurementType(p.Get("measurementtype", "hdrhistogram")); err != nil {
		errs = append(errs, p.bad("measurementtype", err.Error()))
	}
	if ro.percentiles, err = ParsePercentiles(p.Get("hdrhistogram.percentiles", "95,99")); err != nil {
		errs = append(errs, p.bad("hdrhistogram.percentiles", err.Error()))
	}
	for _, k := range []string{"reportlatencyforeacherror", "measurement.trackjvm", "hdrhistogram.fileoutput"} {
		if p.Bool(k, false) {
			errs = append(errs, p.bad(k, "not supported by ybload"))
		}
	}
	if p.Get("latencytrackederrors", "") != "" {
		errs = append(errs, p.bad("latencytrackederrors", "not supported by ybload"))
	}
	ro.rawFile = p.Get("measurement.raw.output_file", "")
	ro.exporter = p.Get("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter")
	ro.exportFile = p.Get("exportfile", "")
	ro.records = p.Get("ybload.records", "")
	ro.summary = p.Get("ybload.summary", "")
	ro.agent = p.Get("ybload.agent", agentutil.Hostname())
	if po, err := p.StrictBool("ybload.prepare.only", false); err != nil {
		errs = append(errs, err)
	} else {
		ro.prepareOnly = po
	}
	if p.Has("ybload.start.at") {
		at, err := agentutil.ParseStartAt(p.Get("ybload.start.at", ""))
		if err != nil {
			errs = append(errs, p.bad("ybload.start.at", err.Error()))
		}
		ro.startAt = at
	}
	if p.Has("ybload.seed") {
		s, err := strconv.ParseUint(strings.TrimSpace(p.Get("ybload.seed", "")), 10, 64)
		if err != nil {
			errs = append(errs, p.bad("ybload.seed", "want an unsigned integer"))
		}
		ro.seed, ro.seedSet = s, true
	} else {
		ro.seed = uint64(time.Now().UnixNano())
	}
	return ro, errors.Join(errs...)
}
