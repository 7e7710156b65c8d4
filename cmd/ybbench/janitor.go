package main

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/pipeline"
)

// janitorCommand is `ybbench janitor`: the resources ybbench made in a
// cloud account and left there (past their expiry, or of one run), found
// by their marks alone; listed, and deleted only with --yes.
func janitorCommand(o *options, stdout, stderr io.Writer) *cobra.Command {
	var req pipeline.JanitorRequest
	c := &cobra.Command{Use: "janitor",
		Short: "List what ybbench left in a cloud account (past its expiry, or of one run); delete it with --yes"}
	f := c.Flags()
	f.StringVar(&req.Provider, "provider", "", "the cloud: aws or gcp")
	f.StringVar(&req.Region, "region", "", "the region to look in (aws: default the provider's default region; gcp: narrows the project to one region)")
	f.StringVar(&req.Project, "project", "", "the GCP project to look in (required with gcp)")
	f.StringVar(&req.RunID, "run", "", "only this run's resources, expired or not (its id)")
	f.BoolVar(&req.Yes, "yes", false, "delete what is listed (without it nothing is deleted)")
	var clouds []string
	for _, p := range o.reg.Providers {
		if p.Cloud != nil {
			clouds = append(clouds, p.Name)
		}
	}
	// What the help shows beside each flag (set here, so that describe
	// leaves them: the --run of the other commands takes a directory).
	for name, typ := range map[string]string{"provider": strings.Join(clouds, "|"), "region": "region", "project": "project", "run": "id"} {
		fl := f.Lookup(name)
		fl.Value = typedValue{Value: fl.Value, typ: typ}
	}
	out := addOutput(c)
	c.RunE = func(c *cobra.Command, _ []string) error {
		j, err := pipeline.NewJanitor(o.reg, req)
		if err != nil {
			return err
		}
		j.Options.Log = logger(stderr, o.verbose)
		ctx := c.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		rep, err := j.Sweep(ctx, time.Now())
		if werr := out.write(stdout, rep, func(w io.Writer) error { return pipeline.WriteJanitorText(w, rep) }); err == nil {
			err = werr
		}
		return err
	}
	return c
}
