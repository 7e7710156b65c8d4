package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/history/changepoint"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// historyStoreFlag is the flag every history command shares: the store.
type historyStoreFlag struct{ url string }

// open opens the store the flag (else YBBENCH_HISTORY_URL, else the
// default) names; a store that cannot be opened is the user's setting to
// correct (exit 2).
func (h *historyStoreFlag) open(ctx context.Context) (history.Store, error) {
	url := h.url
	if url == "" {
		url = os.Getenv("YBBENCH_HISTORY_URL")
	}
	st, err := history.Open(ctx, url)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.Config, "--history-url: %v", err)
	}
	return st, nil
}

// series opens the store and gathers its series.
func (h *historyStoreFlag) series(ctx context.Context) (history.Store, []*history.Series, int, error) {
	st, err := h.open(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	es, err := st.Entries(ctx)
	if err != nil {
		st.Close()
		return nil, nil, 0, exitcode.Errorf(exitcode.Config, "%v", err)
	}
	return st, history.SeriesOf(es), len(es), nil
}

// matching is the series each pattern names (all of them with none); a
// pattern naming none is bad input.
func matching(all []*history.Series, patterns []string) ([]*history.Series, error) {
	if len(patterns) == 0 {
		return all, nil
	}
	var out []*history.Series
	for _, p := range patterns {
		ss, err := history.Match(all, p)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Config, err)
		}
		for _, s := range ss {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// atLeastOne refuses a command line without an argument, saying what it
// takes (exit 2).
func atLeastOne(what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return exitcode.Errorf(exitcode.Config, "%s takes %s", c.CommandPath(), what)
		}
		return nil
	}
}

// tableFlag is -o for the history listings: text, json or csv.
type tableFlag struct{ val string }

func (f *tableFlag) String() string { return f.val }
func (f *tableFlag) Type() string   { return "text|json|csv" }
func (f *tableFlag) Set(v string) error {
	if v != "text" && v != "json" && v != "csv" {
		return fmt.Errorf("%q: want text, json or csv", v)
	}
	f.val = v
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// historyCommand is `ybbench history`: the results history's commands.
func historyCommand(stdout, stderr io.Writer) *cobra.Command {
	store := &historyStoreFlag{}
	h := &cobra.Command{Use: "history", Short: "The results history: import runs, list and show series, find change points, draw the trend",
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	h.PersistentFlags().StringVar(&store.url, "history-url", "",
		"the store: postgres://…, s3://bucket/prefix, sqlite:PATH (or a path ending .db) or a directory of runs (default: $YBBENCH_HISTORY_URL, else the embedded store under the user's data directory)")
	h.AddCommand(historyImport(store, stdout, stderr), historyList(store, stdout), historyShow(store, stdout),
		historyRegressions(store, stdout), historyReport(store, stdout))
	return h
}

func historyImport(store *historyStoreFlag, stdout, stderr io.Writer) *cobra.Command {
	var buildID, buildTime string
	c := &cobra.Command{Use: "import DIR…", Short: "Add run directories (or directories holding only their result.json) to the history; twice adds nothing",
		Args: atLeastOne("one run directory or more"),
		RunE: func(c *cobra.Command, args []string) error {
			given := history.Build{ID: buildID}
			if buildTime != "" {
				t, err := time.Parse(time.RFC3339, buildTime)
				if err != nil {
					return exitcode.Errorf(exitcode.Config, "--build-time %q: want a time in RFC 3339, e.g. 2026-12-06T10:00:00Z", buildTime)
				}
				given.Time = t
			}
			st, err := store.open(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			added := 0
			for _, dir := range args {
				a, err := history.AddRun(c.Context(), st, dir, given)
				if err != nil {
					return exitcode.Errorf(exitcode.Config, "%s: %v", dir, err)
				}
				for _, sk := range a.Skipped {
					fmt.Fprintf(stderr, "%s: left out %s\n", dir, sk)
				}
				state := "added"
				if !a.Added {
					state = "there already"
				} else {
					added++
				}
				fmt.Fprintf(stdout, "%s: run %s, build %s, %d series: %s\n", dir, a.RunID, a.Build.ID, a.Series, state)
			}
			fmt.Fprintf(stdout, "%d of %d run(s) added to %s\n", added, len(args), st.Describe())
			return nil
		}}
	c.Flags().StringVar(&buildID, "build-id", "", "the build the runs measured, where their results name none (default: the database's flavor and version)")
	c.Flags().StringVar(&buildTime, "build-time", "", "when that build was made (RFC 3339), where the results name none")
	return c
}

func historyList(store *historyStoreFlag, stdout io.Writer) *cobra.Command {
	out := &tableFlag{val: "text"}
	c := &cobra.Command{Use: "list", Short: "List the history's series: id, profile/workload/operation, points, first and last build", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, all, runs, err := store.series(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			l := history.ListOf(st.Describe(), runs, all)
			switch out.val {
			case "json":
				return writeJSON(stdout, l)
			case "csv":
				return history.WriteListCSV(stdout, l)
			}
			return history.WriteListText(stdout, l)
		}}
	c.Flags().VarP(out, "output", "o", "what to print: text, json or csv")
	return c
}

func historyShow(store *historyStoreFlag, stdout io.Writer) *cobra.Command {
	out := &tableFlag{val: "text"}
	c := &cobra.Command{Use: "show SERIES…", Short: "Print series run by run: build, run and each figure (a series id, or profile/workload[/operation] with * for any)",
		Args: atLeastOne("a series (ybbench history list names them)"),
		RunE: func(c *cobra.Command, args []string) error {
			st, all, _, err := store.series(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			ss, err := matching(all, args)
			if err != nil {
				return err
			}
			switch out.val {
			case "json":
				return writeJSON(stdout, history.ShowOf(ss))
			case "csv":
				return history.WriteShowCSV(stdout, ss)
			}
			return history.WriteShowText(stdout, ss)
		}}
	c.Flags().VarP(out, "output", "o", "what to print: text, json or csv")
	return c
}

// methodFlags are the change-point method's settings.
type methodFlags struct {
	set changepoint.Settings
}

func (m *methodFlags) register(c *cobra.Command) {
	c.Flags().IntVar(&m.set.Window, "window", changepoint.DefaultWindow, "the method's sliding window, in points")
	c.Flags().Float64Var(&m.set.PValue, "p-value", changepoint.DefaultPValue, "the significance level a change point must reach")
	c.Flags().Float64Var(&m.set.MinMagnitude, "min-magnitude", changepoint.DefaultMinMagnitude, "the smallest relative change reported (0.05: 5%)")
}

// check refuses settings the method cannot take, naming the flag.
func (m *methodFlags) check() error {
	if _, err := changepoint.Detect([]float64{1, 2, 3, 4}, m.set); err != nil {
		return exitcode.Errorf(exitcode.Config, "--window %d, --p-value %g, --min-magnitude %g: %v", m.set.Window, m.set.PValue, m.set.MinMagnitude, err)
	}
	return nil
}

// analyses are every figure of every series through the method.
func analyses(ss []*history.Series, set changepoint.Settings) ([]history.Analysis, error) {
	var out []history.Analysis
	for _, s := range ss {
		for _, f := range s.Figures() {
			a, err := history.Analyze(s, f, set)
			if err != nil {
				return nil, exitcode.Wrap(exitcode.Tool, err)
			}
			out = append(out, a)
		}
	}
	return out, nil
}

func historyRegressions(store *historyStoreFlag, stdout io.Writer) *cobra.Command {
	out := &outputFlag{val: "text"}
	m := &methodFlags{}
	c := &cobra.Command{Use: "regressions [SERIES…]", Short: "List each series' change points: the builds around it, the levels before and after, the change with its 95% interval, the p-value",
		RunE: func(c *cobra.Command, args []string) error {
			if err := m.check(); err != nil {
				return err
			}
			st, all, _, err := store.series(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			ss, err := matching(all, args)
			if err != nil {
				return err
			}
			as, err := analyses(ss, m.set)
			if err != nil {
				return err
			}
			r := history.Regressions{Schema: history.RegressionsSchema, Method: history.Method, Settings: history.SettingsOf(m.set), Analyses: as}
			return out.write(stdout, r, func(w io.Writer) error { return history.WriteRegressionsText(w, r) })
		}}
	m.register(c)
	c.Flags().VarP(out, "output", "o", "what to print: text or json")
	return c
}
