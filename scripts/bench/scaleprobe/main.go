// Command scaleprobe is the scale section's child process (make bench,
// -only scale): it writes a synthetic run directory, or runs the collect
// or report stage on one, so that the section can read each stage's own
// CPU time and peak RSS from the process alone.
//
//	scaleprobe gen -dir D [-workloads 6 -reps 3 -agents 2 -ops 6 -load-ticks 10 -run-ticks 60 -warm-ticks 5 -per-tick 50 -schedule]
//	scaleprobe collect -dir D   result.json, series.json and the HDR logs, as ybbench collect writes them
//	scaleprobe report -dir D    report.md, report.html and report-csv/, as ybbench report writes them
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/pipeline"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scaleprobe gen|collect|report -dir D [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", "", "run directory")
	var s shape
	fs.IntVar(&s.workloads, "workloads", 6, "workloads (gen)")
	fs.IntVar(&s.reps, "reps", 3, "repetitions of each workload, 0 for none (gen)")
	fs.IntVar(&s.agents, "agents", 2, "agents (gen)")
	fs.IntVar(&s.ops, "ops", 6, "operations, at most 6 (gen)")
	fs.IntVar(&s.loadTicks, "load-ticks", 10, "ticks of the load phase (gen)")
	fs.IntVar(&s.runTicks, "run-ticks", 60, "ticks of the run phase (gen)")
	fs.IntVar(&s.warm, "warm-ticks", 5, "warm-up ticks of the run phase (gen)")
	fs.IntVar(&s.perTick, "per-tick", 50, "measurements per operation, agent and tick (gen)")
	fs.BoolVar(&s.schedule, "schedule", false, "the run phase ran to a schedule (gen)")
	fs.Parse(os.Args[2:])
	if *dir == "" || s.ops < 1 || s.ops > len(opNames) {
		fmt.Fprintln(os.Stderr, "scaleprobe: -dir is required, -ops between 1 and", len(opNames))
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = generate(*dir, s)
	case "collect":
		err = collectRun(*dir)
	case "report":
		_, err = pipeline.RenderReport(*dir)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaleprobe:", err)
		os.Exit(1)
	}
}

// collectRun is ybbench collect's work on a run directory whose setup.json
// is written: the result and, in the same reading of the records, the
// report's series, then the HDR interval logs.
func collectRun(dir string) error {
	series, err := collect.CreateSeries(dir)
	if err != nil {
		return err
	}
	res, err := collect.AggregateSeries(dir, series)
	if res == nil {
		series.Abort()
		return err
	}
	werr := collect.WriteResult(filepath.Join(dir, pipeline.ResultFile), res)
	serr := series.Commit()
	_, lerr := collect.WriteHDRLogs(dir)
	return errors.Join(err, werr, serr, lerr)
}
