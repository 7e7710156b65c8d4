package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/collect/compare"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
)

// formatFlag is compare's --format: one of compare.Formats.
type formatFlag struct{ val string }

func (f *formatFlag) String() string { return f.val }
func (f *formatFlag) Type() string   { return strings.Join(compare.Formats, "|") }
func (f *formatFlag) Set(v string) error {
	if !slices.Contains(compare.Formats, v) {
		return fmt.Errorf("%q: want one of %s", v, strings.Join(compare.Formats, ", "))
	}
	f.val = v
	return nil
}

// compareCommand is `ybbench compare RUN_A RUN_B [...]`: the runs' figures
// side by side, read from their result.json alone.
func compareCommand(o *options, stdout io.Writer) *cobra.Command {
	format := &formatFlag{val: "markdown"}
	c := &cobra.Command{Use: "compare RUN_A RUN_B [RUN...]",
		Short: "Compare runs' figures side by side: each with its ratio to the first run's, flagged past the runs' spread",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 2 {
				return exitcode.Errorf(exitcode.Config, "ybbench compare takes two runs or more (a run's directory, its id or a result.json), got %d", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			runs, err := o.readRuns(args)
			if err != nil {
				return err
			}
			return compare.Render(stdout, compare.Compare(runs), format.val)
		}}
	c.Flags().Var(format, "format", "what to print: markdown (for people), json or csv (for programs)")
	runsDirFlag(c, o)
	return c
}

// readRuns reads the result of each run named, reporting every one that
// cannot be read together (exit 2), each naming its file.
func (o *options) readRuns(args []string) ([]compare.Run, error) {
	var runs []compare.Run
	var errs []error
	for _, a := range args {
		path, err := o.resultPath(a)
		if err == nil {
			var r compare.Run
			if r, err = compare.ReadRun(path); err == nil {
				runs = append(runs, r)
				continue
			}
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	return runs, nil
}

// resultPath is the result.json a compare argument names: the file
// itself, a run directory's, or that of a run id in the runs directory.
func (o *options) resultPath(arg string) (string, error) {
	if info, err := os.Stat(arg); err == nil {
		if info.IsDir() {
			return filepath.Join(arg, pipeline.ResultFile), nil
		}
		return arg, nil
	}
	runs, err := o.runsDir()
	if err != nil {
		return "", err
	}
	if dir := filepath.Join(runs, arg); isDir(dir) {
		return filepath.Join(dir, pipeline.ResultFile), nil
	}
	abs, _ := filepath.Abs(runs)
	return "", fmt.Errorf("%s: no such run: not a result.json, a run directory, nor a run id in %s (ybbench runs lists them)", arg, abs)
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
