package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// examples are each command's Example, shown by its --help: the common
// ways to call it, first the one a new user wants.
var examples = map[string]string{
	"run": `  ybbench run --local --quick                        # the whole pipeline on this machine (root), smaller sizes
  ybbench run sysbench-ysql --inventory hosts.yaml    # a profile on your own machines
  ybbench run --spec run.yaml                         # settings from a file (same names as the flags, with _)`,
	"plan": `  ybbench plan --local --quick                       # what run --local --quick would do, doing nothing
  ybbench plan kv-ycql --inventory hosts.yaml         # hosts, commands and duration of a profile on an inventory`,
	"up": `  ybbench up --local                                 # make a run's hosts and check them; the run id on stdout
  RUN=$(ybbench up --inventory hosts.yaml)           # then: ybbench install --run "$RUN", bench, collect, report, down`,
	"install": `  ybbench install --run runs/<id>                    # or the id alone, under --runs-dir`,
	"bench":   `  ybbench bench --run <id>`,
	"collect": `  ybbench collect --run <id>                         # result.json again, from the agents' records`,
	"report":  `  ybbench report --run <id>                          # report.md and report.html again, from the run directory`,
	"down":    `  ybbench down --run <id>                            # also after the orchestrator was killed`,
	"resume":  `  ybbench resume --run <id>                          # skip the steps done, redo the rest, tear down`,
	"status": `  ybbench status --run <id>                          # one run's ledger; without --run, the runs
  ybbench status --run <id> -o json`,
	"runs": `  ybbench runs                                       # id, profile, state, outcome, started, duration
  ybbench runs --runs-dir /srv/ybbench/runs -o json`,
	"janitor": `  ybbench janitor --provider aws --region us-east-1   # what ybbench left there past its expiry; nothing is deleted
  ybbench janitor --provider gcp --project my-proj --run <id> --yes   # delete one run's resources`,
	"gate": `  ybbench gate --run <id> --gate gates.yaml          # verdict.json beside result.json; exit 99 when a gate fails
  ybbench gate --run <id> --gate gates.yaml --gate-missing=warn   # a gate without a baseline only warns`,
	"compare": `  ybbench compare <id-a> <id-b>                      # every figure side by side, its ratio to the first run's, flagged past the spread
  ybbench compare runs/<a> results/b/result.json --format csv`,
	"profiles": `  ybbench profiles                                   # every built-in profile, as a table
  ybbench profiles sysbench-ysql -o json`,
	"version": `  ybbench version`,
	"history": `  ybbench history import runs/*                      # add finished runs to the history (the embedded store by default)
  ybbench history regressions                        # every series' change points, with the method's settings
  ybbench history list --history-url postgres://ci@db/bench   # a shared store for CI runners that vanish`,
	"history import": `  ybbench history import runs/*                      # run directories, or directories holding only result.json
  ybbench history import artifacts/rc7 --build-id 2.25.0-rc7 --build-time 2026-12-01T10:00:00Z`,
	"history list": `  ybbench history list                               # id, profile/workload/operation, points, first and last build
  ybbench history list -o csv --history-url s3://bench-results/ybbench`,
	"history show": `  ybbench history show ycsb-ysql/workloada           # each run's build and figures
  ybbench history show 4226354e51b7 -o csv           # one value per repetition, for a spreadsheet`,
	"history report": `  ybbench history report 'ycsb-ysql/*' -o trend.html # each figure over its builds, change points marked
  ybbench history report 4226354e51b7 -o ci/trend.html --history-url s3://bench-results/ybbench`,
	"history regressions": `  ybbench history regressions                        # change points of every series and figure
  ybbench history regressions 'ycsb-ysql/*' --p-value 0.01 -o json`,
}

// flagTypes are what the help shows beside the flags that are not
// settings (those take theirs from the settings table) instead of pflag's
// "string".
var flagTypes = map[string]string{"spec": "path", "run": "dir-or-id", "gate": "path", "junit": "path", "history": "dir", "history-last": "runs",
	"history-url": "url", "build-id": "id", "build-time": "time", "window": "builds", "p-value": "level", "min-magnitude": "share"}

// describe gives every command its example and every flag of flagTypes
// its type.
func describe(root *cobra.Command) {
	root.Example = align(examples["run"])
	var all func(cs []*cobra.Command) []*cobra.Command
	all = func(cs []*cobra.Command) []*cobra.Command {
		var out []*cobra.Command
		for _, c := range cs {
			out = append(append(out, c), all(c.Commands())...)
		}
		return out
	}
	commands := all(root.Commands())
	for _, c := range commands {
		if ex, ok := examples[strings.TrimPrefix(c.CommandPath(), root.Name()+" ")]; ok {
			c.Example = align(ex)
		}
	}
	typed := func(f *pflag.Flag) {
		if t, ok := flagTypes[f.Name]; ok {
			if _, done := f.Value.(typedValue); !done {
				f.Value = typedValue{Value: f.Value, typ: t}
			}
		}
	}
	root.PersistentFlags().VisitAll(typed)
	for _, c := range commands {
		c.Flags().VisitAll(typed)
		c.PersistentFlags().VisitAll(typed)
	}
}

// typedValue is a flag's value with the type its help shows.
type typedValue struct {
	pflag.Value
	typ string
}

func (v typedValue) Type() string { return v.typ }

// align lines up the comments of an example's lines, one column after
// its longest command.
func align(ex string) string {
	lines := strings.Split(ex, "\n")
	width := 0
	for _, l := range lines {
		cmd, _, _ := strings.Cut(l, "#")
		width = max(width, len(strings.TrimRight(cmd, " ")))
	}
	for i, l := range lines {
		if cmd, comment, ok := strings.Cut(l, "#"); ok {
			cmd = strings.TrimRight(cmd, " ")
			lines[i] = cmd + strings.Repeat(" ", width-len(cmd)+2) + "#" + comment
		}
	}
	return strings.Join(lines, "\n")
}
