package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
)

// Finding runs: --run takes a run's directory or its id (under the runs
// directory), --runs-dir is read through the same layers as run's
// runs_dir, and `runs` (or status without --run) lists them.

// runsDirSetting is the setting that says where runs are.
const runsDirSetting = "runs_dir"

// runsDirFlag gives c the runs_dir setting's flag, as run, plan and up
// have it from the settings table.
func runsDirFlag(c *cobra.Command, o *options) {
	for _, st := range pipeline.Settings() {
		if st.Name != runsDirSetting {
			continue
		}
		v := &settingFlag{typ: st.Type}
		name := pipeline.FlagName(st.Name)
		c.Flags().Var(v, name, st.FlagUsage())
		c.PreRun = chain(c.PreRun, func(c *cobra.Command, _ []string) {
			if c.Flags().Changed(name) {
				o.set[runsDirSetting] = &v.val
			}
		})
	}
}

// runsDir is the runs directory: the runs_dir setting's default, the spec
// file's, YBBENCH_RUNS_DIR, --runs-dir, the later winning. Only that one
// variable is read: a stage such as down must not be stopped by a bad
// variable it does not use.
func (o *options) runsDir() (string, error) {
	env := pipeline.EnvName(runsDirSetting)
	cl := pipeline.CommandLine{File: o.specFile, Flags: map[string]string{},
		Getenv: func(k string) string {
			if k == env {
				return os.Getenv(k)
			}
			return ""
		}}
	if v, ok := o.set[runsDirSetting]; ok {
		cl.Flags[runsDirSetting] = *v
	}
	s, err := pipeline.Load(cl)
	if err != nil {
		return "", exitcode.Wrap(exitcode.Config, err)
	}
	if s.RunsDir == "" {
		return "", exitcode.Errorf(exitcode.Config, "runs_dir must not be empty (--runs-dir, %s)", env)
	}
	return s.RunsDir, nil
}

// runDir finds the run --run names: a directory holding a run.json, else
// a run id in the runs directory.
func (o *options) runDir() (string, error) {
	if o.run == "" {
		return "", exitcode.Errorf(exitcode.Config, "--run is required: the run's directory or id (ybbench runs lists them)")
	}
	if isRun(o.run) {
		return o.run, nil
	}
	runs, err := o.runsDir()
	if err != nil {
		return "", err
	}
	if dir := filepath.Join(runs, o.run); isRun(dir) {
		return dir, nil
	}
	abs, _ := filepath.Abs(runs)
	return "", exitcode.Errorf(exitcode.Config, "--run %s: no such run: not a run directory (one holding run.json), nor a run id in %s (ybbench runs lists them)", o.run, abs)
}

func isRun(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "run.json"))
	return err == nil && info.Mode().IsRegular()
}

// open finds the run --run names and opens it; lock takes its lock.
func (o *options) open(stderr io.Writer, lock bool) (*pipeline.Run, error) {
	dir, err := o.runDir()
	if err != nil {
		return nil, err
	}
	if !lock {
		return pipeline.Inspect(dir, deps(stderr, o.verbose, o.reg))
	}
	return pipeline.Open(dir, deps(stderr, o.verbose, o.reg))
}

// finished reports the *pipeline.FinishedError of the run --run names,
// read without its lock (taking the lock writes the lock file, and a
// finished run is to be left as it is); nil when the run is not finished
// or cannot be read (opening it then says why).
func (o *options) finished(stderr io.Writer) *pipeline.FinishedError {
	r, err := o.open(stderr, false)
	if err != nil {
		return nil
	}
	var fe *pipeline.FinishedError
	if errors.As(r.Finished(), &fe) {
		return fe
	}
	return nil
}

// outputFlag is -o/--output: text (the default, for people) or json (for
// scripts: a documented shape with a schema name, docs/json-output.md).
type outputFlag struct{ val string }

func (f *outputFlag) String() string { return f.val }
func (f *outputFlag) Type() string   { return "text|json" }
func (f *outputFlag) Set(v string) error {
	if v != "text" && v != "json" {
		return fmt.Errorf("%q: want text or json", v)
	}
	f.val = v
	return nil
}

// addOutput gives c the -o flag.
func addOutput(c *cobra.Command) *outputFlag {
	f := &outputFlag{val: "text"}
	c.Flags().VarP(f, "output", "o", "what to print: text (for people) or json (for scripts; docs/json-output.md)")
	return f
}

// write prints v as JSON, or with text when the output is text.
func (f *outputFlag) write(w io.Writer, v any, text func(io.Writer) error) error {
	if f.val != "json" {
		return text(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// listRuns prints the runs of the runs directory.
func listRuns(o *options, out *outputFlag, stdout io.Writer) error {
	dir, err := o.runsDir()
	if err != nil {
		return err
	}
	l, err := pipeline.ListRuns(dir)
	if err != nil {
		// A runs directory that is a file, or unreadable, is the user's
		// setting to correct.
		return exitcode.Errorf(exitcode.Config, "--runs-dir %s: %v", dir, err)
	}
	return out.write(stdout, l, func(w io.Writer) error { return pipeline.WriteRuns(w, l) })
}

// runsCommand is `ybbench runs`: the runs of the runs directory.
func runsCommand(o *options, stdout io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "runs", Short: "List the runs: id, profile, state, outcome, started, duration"}
	out := addOutput(c)
	runsDirFlag(c, o)
	c.RunE = func(*cobra.Command, []string) error { return listRuns(o, out, stdout) }
	return c
}

// statusCommand is `ybbench status`: a run's ledger, read without its lock;
// without --run, the runs.
func statusCommand(o *options, stdout io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "status", Short: "Show a run's ledger (without --run: list the runs)"}
	out := addOutput(c)
	c.Flags().StringVar(&o.run, "run", "", "the run: its directory or its id (under the runs directory)")
	runsDirFlag(c, o)
	c.RunE = func(*cobra.Command, []string) error {
		if o.run == "" {
			return listRuns(o, out, stdout)
		}
		dir, err := o.runDir()
		if err != nil {
			return err
		}
		s, err := pipeline.StatusOf(dir)
		if err != nil {
			return exitcode.Errorf(exitcode.Config, "run %s: %v", dir, err)
		}
		return out.write(stdout, s, func(w io.Writer) error { return pipeline.WriteStatus(w, s) })
	}
	return c
}

// refusesFinished are the stages a finished run is not given to: they
// would reopen it, make hosts again and overwrite its results.
var refusesFinished = map[string]bool{"resume": true, "install": true, "bench": true}

// endFinished is how a stage ends on a finished run: resume has nothing to
// do, which is no error (exit 0, the reason on stderr); install and bench
// are refused (exit 2).
func endFinished(use string, fe *pipeline.FinishedError, stderr io.Writer) error {
	if use == "resume" {
		fmt.Fprintln(stderr, "ybbench:", fe)
		return nil
	}
	return exitcode.Wrap(exitcode.Config, fe)
}
