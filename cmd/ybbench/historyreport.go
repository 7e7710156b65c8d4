package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/collect/report"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// historyReport is `ybbench history report`: the trend page of the series
// named, what `history regressions` finds drawn over what it was found in,
// in one file that opens anywhere (a CI artifact, an e-mail).
func historyReport(store *historyStoreFlag, stdout io.Writer) *cobra.Command {
	out := report.TrendFile
	m := &methodFlags{}
	c := &cobra.Command{Use: "report SERIES…", Short: "Write the trend page: each figure of the series over their builds, the change points marked and listed, each run linked to its report.html",
		Args: atLeastOne("a series or more (ybbench history list names them; * matches any: 'ycsb-ysql/*')"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := m.check(); err != nil {
				return err
			}
			if out == "" {
				return exitcode.Errorf(exitcode.Config, "--output: give the page's path")
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
			path, err := report.WriteTrend(ss, m.set, out)
			if err != nil {
				return exitcode.Wrap(exitcode.Tool, err)
			}
			_, err = fmt.Fprintln(stdout, path)
			return err
		}}
	m.register(c)
	c.Flags().StringVarP(&out, "output", "o", report.TrendFile, "the page to write (its directory is made); the runs' reports are linked relative to it")
	f := c.Flags().Lookup("output")
	f.Value = typedValue{Value: f.Value, typ: "path"}
	return c
}
