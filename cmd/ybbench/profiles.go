package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/pipeline"
)

// profilesCommand is `ybbench profiles [NAME...]`: the built-in profiles
// (or the ones named), as a table or as JSON.
func profilesCommand(stdout io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "profiles [NAME...]", Short: "List the built-in profiles and their parameters (or the ones named)",
		Args: cobra.ArbitraryArgs}
	out := addOutput(c)
	c.RunE = func(_ *cobra.Command, names []string) error {
		l, err := pipeline.ListProfiles(names...)
		if err != nil {
			return err
		}
		return out.write(stdout, l, func(w io.Writer) error { return pipeline.WriteProfiles(w, l) })
	}
	return c
}
