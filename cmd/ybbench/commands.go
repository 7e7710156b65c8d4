package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
)

// runCommand is `ybbench run`: every stage, the teardown always.
func runCommand(o *options, stdout, stderr io.Writer) *cobra.Command {
	runGate := &runGateFlags{}
	run := &cobra.Command{Use: "run", Short: "Run everything: up, preflight, install, bench, collect, report, down (always)",
		RunE: func(c *cobra.Command, _ []string) error {
			d := deps(stderr, o.verbose, o.reg)
			gate, gerr := runGate.load()
			s, err := o.resolve(c.Context(), d, pipeline.CheckOptions{MakesHosts: true, ShipsAgent: true, AddsHistory: true})
			if gate != nil {
				gerr = pipeline.CheckGate(c.Context(), s, gate.File)
			}
			// The gate file's problems are reported with the settings', all
			// before the run exists; --junit still gets its report.
			if err := errors.Join(err, gerr); err != nil {
				err = exitcode.Wrap(exitcode.Config, err)
				return errors.Join(err, runGate.refused(gate, err))
			}
			r, err := pipeline.New(s, d)
			if err != nil {
				return err
			}
			r.SetGate(gate)
			fmt.Fprintf(stderr, "run %s in %s\n", r.ID(), r.Dir())
			ss := signals(stderr)
			return ss.exit(execute(r, ss.hard, ss.stop, stdout, stderr))
		}}
	o.specFlags(run)
	runGate.register(run)
	return run
}

// planCommand is `ybbench plan`: what a run would do, creating nothing.
func planCommand(o *options, stdout, stderr io.Writer) *cobra.Command {
	var planOut *outputFlag
	plan := &cobra.Command{Use: "plan", Short: "Say what a run would do: hosts, roles, commands per stage, expected duration",
		RunE: func(c *cobra.Command, _ []string) error {
			d := deps(stderr, o.verbose, o.reg)
			s, err := o.resolve(c.Context(), d, pipeline.CheckOptions{})
			if err != nil {
				return err
			}
			pl, err := pipeline.MakePlan(s, d)
			if err != nil {
				return err
			}
			return planOut.write(stdout, pl, func(w io.Writer) error { return pipeline.WritePlanText(w, pl) })
		}}
	o.specFlags(plan)
	planOut = addOutput(plan)
	return plan
}

// upCommand is `ybbench up`: the hosts of a new run, checked.
func upCommand(o *options, stdout, stderr io.Writer) *cobra.Command {
	up := &cobra.Command{Use: "up", Short: "Create the hosts of a new run and check them (prints the run id on stdout)",
		RunE: func(c *cobra.Command, _ []string) error {
			d := deps(stderr, o.verbose, o.reg)
			s, err := o.resolve(c.Context(), d, pipeline.CheckOptions{MakesHosts: true})
			if err != nil {
				return err
			}
			r, err := pipeline.New(s, d)
			if err != nil {
				return err
			}
			// The lock goes when the command returns, not only with the
			// process (a caller in the same process may tear the run down).
			defer r.Close()
			// The id alone on stdout, as soon as the run exists (RUN=$(ybbench
			// up …) works, and a failed up still names the run to tear down);
			// everything else goes to stderr.
			fmt.Fprintln(stdout, r.ID())
			fmt.Fprintf(stderr, "run %s in %s\n", r.ID(), r.Dir())
			ss := signals(stderr)
			if err := r.Up(ss.hard); err != nil {
				return ss.exit(err)
			}
			return ss.exit(r.Preflight(ss.hard))
		}}
	o.specFlags(up)
	return up
}

// stageCommand is one stage on an existing run.
// A stage holds the run's lock for the life of the process. A finished
// run is left as it is: resume says so and exits 0, install and bench
// refuse it (exit 2), before its lock is taken.
func stageCommand(o *options, stderr io.Writer, use, short string, fn func(r *pipeline.Run, hard, stop context.Context) error) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, RunE: func(c *cobra.Command, _ []string) error {
		if refusesFinished[use] {
			if fe := o.finished(stderr); fe != nil {
				return endFinished(use, fe, stderr)
			}
		}
		if use == "report" {
			// Without results there is nothing to render: said before the
			// lock, so that the refusal changes nothing in the run.
			if ri, err := o.open(stderr, false); err == nil {
				if err := ri.NeedResults(); err != nil {
					return err
				}
			}
		}
		r, err := o.open(stderr, true)
		var le *pipeline.LockedError
		if use == "down" && errors.As(err, &le) {
			return exitcode.Errorf(exitcode.Config, "%s", le.DownMessage())
		}
		if err != nil {
			return err
		}
		ss := signals(stderr)
		if use == "down" {
			return fn(r, ss.hard, ss.stop) // a signal does not stop a teardown
		}
		err = fn(r, ss.hard, ss.stop)
		// Finished by another process between the look and the lock.
		if fe := (*pipeline.FinishedError)(nil); errors.As(err, &fe) {
			return endFinished(use, fe, stderr)
		}
		return ss.exit(err)
	}}
	o.runFlag(c)
	runsDirFlag(c, o)
	return c
}
