// Command ybbench is the orchestrator: it provisions hosts (a local cluster
// of network namespaces, an on-prem inventory, or the profile's hardware on
// AWS or GCP), installs the database, ships the load agent, runs the
// profile's workloads, collects and compares the results, and always tears
// everything down.
//
//	ybbench run --local                          # the whole pipeline on this machine
//	ybbench run --inventory hosts.yaml --profile ycsb-ysql
//	ybbench down --run runs/<id>                 # teardown from the ledger alone
//	ybbench janitor --provider aws --region R    # what a cloud run left behind
//
// Exit codes: 0 ok, 1 tool, 2 configuration or input, 3 infrastructure,
// 4 provisioning, 5 agent or workload, 6 teardown incomplete, 99 gate;
// 130 or 143 when stopped by SIGINT or SIGTERM (after the teardown).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ybbench/ybbench/collect/report"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/pipeline/parts"
)

var version = "dev"

// commit is the git commit of the build (make build sets it).
var commit = ""

func main() {
	pipeline.Version = version
	err := newRoot(os.Stdout, os.Stderr).Execute()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ybbench:", err)
	}
	os.Exit(exitcode.Of(err))
}

// options are the command line's layer over the spec, and the registry
// of the parts it names.
type options struct {
	specFile string
	run      string
	presets  map[string]*bool   // preset → its flag
	set      map[string]*string // setting → flag value, only when given
	verbose  bool
	reg      *parts.Registry
}

// newRoot is the command line with the built-in parts.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	return newRootWith(stdout, stderr, parts.Builtin())
}

// newRootWith is the command line with the parts of reg (tests name
// stand-ins there).
func newRootWith(stdout, stderr io.Writer, reg *parts.Registry) *cobra.Command {
	o := &options{presets: map[string]*bool{}, set: map[string]*string{}, reg: reg}
	root := &cobra.Command{
		Use:           "ybbench",
		Short:         "Reproduce YugabyteDB's published benchmarks end to end",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&o.specFile, "spec", "", "YAML spec file (layered: defaults < file < YBBENCH_* < presets < flags)")
	root.PersistentFlags().BoolVarP(&o.verbose, "verbose", "v", false, "log more")
	run, plan, up := runCommand(o, stdout, stderr), planCommand(o, stdout, stderr), upCommand(o, stdout, stderr)

	install := stageCommand(o, stderr, "install", "Install and start the database on a run's hosts", func(r *pipeline.Run, hard, _ context.Context) error { return r.Install(hard) })
	benchCmd := stageCommand(o, stderr, "bench", "Run the profile's workloads on a run's clients", func(r *pipeline.Run, hard, stop context.Context) error { return r.Bench(hard, stop) })
	collectCmd := stageCommand(o, stderr, "collect", "Merge the agents' records into result.json", func(r *pipeline.Run, hard, _ context.Context) error { return r.Collect(hard) })
	report := stageCommand(o, stderr, "report", "Render report.md and report.html (with its CSV), and print report.md", func(r *pipeline.Run, hard, _ context.Context) error {
		if err := r.Report(hard); err != nil {
			return err
		}
		return printReport(stdout, r)
	})
	down := stageCommand(o, stderr, "down", "Tear a run down from its ledger alone (even after the orchestrator was killed)", func(r *pipeline.Run, _, _ context.Context) error {
		return r.TearDown()
	})
	resume := stageCommand(o, stderr, "resume", "Continue a run: skip the steps done, redo the rest, tear down (a finished run has nothing to resume)", func(r *pipeline.Run, hard, stop context.Context) error {
		return execute(r, hard, stop, stdout, stderr)
	})
	status := statusCommand(o, stdout)
	profilesCmd := profilesCommand(stdout)
	versionCmd := &cobra.Command{Use: "version", Short: "Print the version, the commit and Go's version",
		Run: func(*cobra.Command, []string) { fmt.Fprintln(stdout, "ybbench", versionText()) }}
	root.AddCommand(run, plan, up, install, benchCmd, collectCmd, report, down, resume, status, runsCommand(o, stdout),
		janitorCommand(o, stdout, stderr), gateCommand(o, stdout, stderr), compareCommand(o, stdout), historyCommand(stdout, stderr), profilesCmd, versionCmd)
	strictArgs(root, o, run, plan, up)
	describe(root)
	return root
}

// settingFlag holds a setting's flag as text: pipeline.Load parses it
// with the other layers, so a flag is checked as the file and the
// variables are. Type is what the help shows beside the flag.
type settingFlag struct{ val, typ string }

func (f *settingFlag) String() string     { return f.val }
func (f *settingFlag) Set(v string) error { f.val = v; return nil }
func (f *settingFlag) Type() string       { return f.typ }

func chain(a, b func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		if a != nil {
			a(c, args)
		}
		b(c, args)
	}
}

// resolve layers defaults < spec file < YBBENCH_* < presets < flags,
// validates the result in one place and checks what it names outside
// itself (pipeline.Spec.Check: the inventory, the subnet, Terraform, the
// tarball; a cloud's address lookup and API checks, only for settings
// that passed), reporting every problem at once: all before a run is
// created. On a refusal it returns the resolved settings too, when they
// resolved (only a check of what they name failed), else nil.
func (o *options) resolve(ctx context.Context, d pipeline.Deps, co pipeline.CheckOptions) (*pipeline.Resolved, error) {
	cl := pipeline.CommandLine{File: o.specFile, Getenv: os.Getenv, Environ: os.Environ(), Flags: map[string]string{}}
	for name, on := range o.presets {
		if *on {
			cl.Presets = append(cl.Presets, name)
		}
	}
	for field, v := range o.set {
		cl.Flags[field] = *v
	}
	// The layers' problems and the settings' are reported together: a bad
	// flag does not hide a bad variable or a setting out of range.
	s, lerr := pipeline.Load(cl)
	r, verr := s.ResolveWith(d.Registry)
	if ctx == nil {
		ctx = context.Background()
	}
	// The resolved spec is checked when there is one, so that what the
	// check records (a cloud run's looked-up address) is the run's.
	checked := &s
	if r != nil {
		checked = &r.Spec
	}
	co.Refused = lerr != nil || verr != nil
	cerr := checked.Check(ctx, d, co)
	if err := errors.Join(lerr, verr, cerr); err != nil {
		// The settings resolved (r) still name the profile a gate file
		// is checked against, with their problems reported together.
		return r, exitcode.Wrap(exitcode.Config, err)
	}
	r.Origins = pipeline.Origins(cl) // who overrode what, for the report
	return r, nil
}

// signals: the first SIGINT/SIGTERM is a soft stop (stages end, agents
// write what they measured, results are collected, teardown runs); the
// second cancels everything but teardown.
func signals(stderr io.Writer) *stopSignals {
	hard, cancelHard := context.WithCancel(context.Background())
	stop, cancelStop := context.WithCancel(context.Background())
	ss := &stopSignals{hard: hard, stop: stop}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		ss.mu.Lock()
		ss.first = sig
		ss.mu.Unlock()
		fmt.Fprintln(stderr, "ybbench: stopping; what was measured is kept and the run is torn down (again to skip straight to teardown)")
		cancelStop()
		<-ch
		fmt.Fprintln(stderr, "ybbench: skipping to teardown")
		cancelHard()
	}()
	return ss
}

// stopSignals are the contexts a signal cancels, and the first signal.
type stopSignals struct {
	hard, stop context.Context
	mu         sync.Mutex
	first      os.Signal
}

// exit is the error a command stopped by a signal ends with: the signal's
// own exit code (130, 143) after a complete teardown, whatever the stage
// it interrupted returned; an incomplete teardown's 6 still wins.
func (ss *stopSignals) exit(err error) error {
	ss.mu.Lock()
	sig := ss.first
	ss.mu.Unlock()
	return stoppedBy(sig, err)
}

func stoppedBy(sig os.Signal, err error) error {
	code := map[os.Signal]int{os.Interrupt: exitcode.Interrupted, syscall.SIGTERM: exitcode.Terminated}[sig]
	if code == 0 || exitcode.Of(err) == exitcode.Teardown {
		return err
	}
	if err == nil {
		return exitcode.Errorf(code, "stopped by %v", sig)
	}
	return exitcode.Errorf(code, "stopped by %v: %w", sig, err)
}

func execute(r *pipeline.Run, hard, stop context.Context, stdout, stderr io.Writer) error {
	err := r.Execute(hard, stop)
	if fe := (*pipeline.FinishedError)(nil); errors.As(err, &fe) {
		return err // nothing was done: its report is not this command's
	}
	if perr := printReport(stdout, r); perr == nil {
		fmt.Fprintf(stderr, "report: %s (charts: %s)\nresult: %s\n", filepath.Join(r.Dir(), pipeline.ReportFile),
			filepath.Join(r.Dir(), report.HTMLFile), filepath.Join(r.Dir(), pipeline.ResultFile))
	}
	return err
}

func printReport(w io.Writer, r *pipeline.Run) error {
	b, err := os.ReadFile(filepath.Join(r.Dir(), pipeline.ReportFile))
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func progressFor(stderr io.Writer) pipeline.Progress {
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return pipeline.NewLive(stderr)
	}
	return pipeline.NewLines(stderr)
}

func logger(stderr io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}
