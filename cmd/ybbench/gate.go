package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
	"github.com/ybbench/ybbench/profiles"
)

// gateMissingFlag is --gate-missing: whether a gate that cannot be
// evaluated stops a release (fail, the default) or is only warned of.
type gateMissingFlag struct{ val string }

func (f *gateMissingFlag) String() string { return f.val }
func (f *gateMissingFlag) Type() string   { return "fail|warn" }
func (f *gateMissingFlag) Set(v string) error {
	if v != "fail" && v != "warn" {
		return fmt.Errorf("%q: want fail or warn", v)
	}
	f.val = v
	return nil
}

// runGateFlags are run's --gate and --gate-missing.
type runGateFlags struct {
	file    string
	missing *gateMissingFlag
	junit   string
	history historyFlags
}

// historyFlags are --history and --history-last: a results directory
// whose runs' median is the baseline, whatever the gate file names.
type historyFlags struct {
	dir  string
	last int
	// url is the history store a gate file's series baseline reads when
	// it names none (gate's --history-url; run's is its history_url).
	url string
}

// register gives c the history flags.
func (h *historyFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&h.dir, "history", "", "baseline: the median of the last runs in this directory of results with the same profile, parameters and flavor (overrides the gate file's baseline)")
	c.Flags().IntVar(&h.last, "history-last", 0, "with --history: how many of its runs (default: the gate file's last, else 5)")
}

// apply sets the gate file's baseline to the history, when one is given.
func (h *historyFlags) apply(f *verdict.File) error {
	if h.dir == "" {
		if h.last != 0 {
			return exitcode.Errorf(exitcode.Config, "--history-last %d: without --history there is no history", h.last)
		}
		return nil
	}
	if h.last < 0 {
		return exitcode.Errorf(exitcode.Config, "--history-last %d: want a whole number of runs, at least 1", h.last)
	}
	return exitcode.Wrap(exitcode.Config, f.UseHistory(h.dir, h.last))
}

// register gives c (run) the gate flags.
func (g *runGateFlags) register(c *cobra.Command) {
	g.missing = &gateMissingFlag{val: "fail"}
	c.Flags().StringVar(&g.file, "gate", "", "judge the results by a gate file (YAML): verdict.json, exit 99 when a gate fails")
	c.Flags().Var(g.missing, "gate-missing", "a gate that cannot be evaluated: fail (exit 99) or warn")
	c.Flags().StringVar(&g.junit, "junit", "", "copy the run's junit.xml (the gates as JUnit XML) to this path")
	g.history.register(c)
}

// load parses the gate file, if one is given (its check against the
// profile needs the resolved settings: pipeline.CheckGate).
func (g *runGateFlags) load() (*pipeline.Gate, error) {
	if g.file == "" {
		if g.junit != "" {
			return nil, exitcode.Errorf(exitcode.Config, "--junit %s: there is no verdict to report without --gate", g.junit)
		}
		if g.history.dir != "" {
			return nil, exitcode.Errorf(exitcode.Config, "--history %s: there are no gates to take it as baseline without --gate", g.history.dir)
		}
		return nil, nil
	}
	f, err := verdict.Load(g.file)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	if err := g.history.apply(f); err != nil {
		return nil, err
	}
	return &pipeline.Gate{File: f, WarnMissing: g.missing.val == "warn", JUnit: g.junit}, nil
}

// gateCommand is `ybbench gate`: a finished run's result.json judged by a
// gate file, verdict.json written beside it.
func gateCommand(o *options, stdout, stderr io.Writer) *cobra.Command {
	var gateFile, junit string
	var history historyFlags
	missing := &gateMissingFlag{val: "fail"}
	c := &cobra.Command{Use: "gate", Short: "Judge a run's result.json by a gate file: verdict.json beside it, exit 99 when a gate fails",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if gateFile == "" {
				return exitcode.Errorf(exitcode.Config, "--gate is required: the gate file (YAML)")
			}
			dir, err := o.runDir()
			if err != nil {
				return err
			}
			warn := missing.val == "warn"
			v, err := gateRun(c.Context(), dir, gateFile, &history, warn, junit, time.Now())
			if err != nil {
				return err
			}
			printVerdict(stdout, v)
			return verdictError(v, warn, stderr)
		}}
	c.Flags().StringVar(&gateFile, "gate", "", "the gate file (YAML): a baseline and the gates (docs/gates.md)")
	c.Flags().Var(missing, "gate-missing", "a gate that cannot be evaluated: fail (exit 99) or warn")
	c.Flags().StringVar(&junit, "junit", "", "copy the run's junit.xml (the gates as JUnit XML) to this path")
	history.register(c)
	c.Flags().StringVar(&history.url, "history-url", "", "the history store a gate file's history: {series: auto} reads when it names no url (default: $YBBENCH_HISTORY_URL, else the embedded store)")
	c.Flags().StringVar(&o.run, "run", "", "the run: its directory or its id (under the runs directory)")
	runsDirFlag(c, o)
	return c
}

// gateRun reads a run's result.json and the gate file, checks the file
// against the run's profile and writes verdict.json beside the result,
// junit.xml with the stage failures of its ledger (copied to junit when
// given), and the reports again, which show the verdict first.
func gateRun(ctx context.Context, dir, gateFile string, history *historyFlags, warnMissing bool, junit string, now time.Time) (*verdict.Verdict, error) {
	b, err := os.ReadFile(filepath.Join(dir, pipeline.ResultFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, exitcode.Errorf(exitcode.Config, "%s has no %s: nothing to gate (collect it first)", dir, pipeline.ResultFile)
	}
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	res, err := collect.ReadResult(b)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, fmt.Errorf("%s: %w", dir, err))
	}
	f, err := loadGate(gateFile, res.Profile, history)
	if err != nil {
		return nil, err
	}
	storeURL := history.url
	if storeURL == "" {
		storeURL = os.Getenv("YBBENCH_HISTORY_URL")
	}
	base, err := verdict.BaselineFor(ctx, f, res, storeURL)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	v := verdict.Evaluate(f, res, base, now)
	if err := verdict.Write(filepath.Join(dir, verdict.VerdictFile), v); err != nil {
		return nil, err
	}
	// A results directory copied without its run.json has no stages to
	// report.
	var stages []verdict.StageFailure
	if l, err := pipeline.OpenLedger(dir); err == nil {
		stages = pipeline.StageFailures(l.Record())
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	if err := pipeline.WriteJUnit(dir, v, stages, warnMissing, junit); err != nil {
		return nil, exitcode.Wrap(exitcode.Tool, err)
	}
	if _, err := pipeline.RenderReport(dir); err != nil {
		return nil, exitcode.Wrap(exitcode.Tool, fmt.Errorf("the report with the verdict: %w", err))
	}
	return v, nil
}

// loadGate reads a gate file, takes --history's baseline, and checks it
// against a profile: every problem is a configuration error (exit 2)
// naming its line and field.
func loadGate(path, profile string, history *historyFlags) (*verdict.File, error) {
	f, err := verdict.Load(path)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	if err := history.apply(f); err != nil {
		return nil, err
	}
	p, err := profiles.Get(profile)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	if err := f.Check(verdict.ScopeOf(p)); err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	return f, nil
}

// verdictError is the verdict's exit (pipeline.VerdictError), and a
// warning for the gates --gate-missing=warn let pass.
func verdictError(v *verdict.Verdict, warnMissing bool, stderr io.Writer) error {
	if err := pipeline.VerdictError(v, warnMissing); err != nil {
		return err
	}
	if v.CannotEvaluate > 0 {
		fmt.Fprintf(stderr, "warning: %d gates could not be evaluated (--gate-missing=warn)\n", v.CannotEvaluate)
	}
	return nil
}

// printVerdict prints each gate on a line, and where verdict.json is.
func printVerdict(w io.Writer, v *verdict.Verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OUTCOME\tWORKLOAD\tOPERATION\tMETRIC\tMEASURED\tBASELINE\tRATIO\tTOLERANCE\tREASON")
	for _, g := range v.Gates {
		op := g.Operation
		if op == "" {
			op = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g.Outcome, g.Workload, op, g.Metric,
			verdict.MeasuredText(g), verdict.FormatFigure(g.Baseline, g.Unit), verdict.FormatFigure(g.Ratio, ""), g.Tolerance, g.Reason)
	}
	tw.Flush()
	fmt.Fprintf(w, "verdict: %s (%d passed, %d failed, %d could not be evaluated)\n", v.Outcome, v.Passed, v.Failed, v.CannotEvaluate)
}

// refused writes --junit's report for a run refused before it began (bad
// settings or gate file, exit 2): the refusal an errored test case named
// validate, the gates (when the file was read) skipped. A CI job that
// reads the file sees why, instead of finding none.
func (g *runGateFlags) refused(gate *pipeline.Gate, err error) error {
	if g.junit == "" || g.file == "" {
		return nil
	}
	var f *verdict.File
	if gate != nil {
		f = gate.File
	}
	b, jerr := verdict.JUnitNotJudged(f, "", "", time.Now(), []verdict.StageFailure{{Step: "validate", Error: err.Error()}}, exitcode.Of(err))
	if jerr == nil {
		jerr = pipeline.WriteJUnitCopy(g.junit, b)
	}
	return exitcode.Wrap(exitcode.Tool, jerr)
}
