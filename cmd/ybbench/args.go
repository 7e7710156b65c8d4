package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/internal/buildinfo"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// strictArgs makes the command line refuse what it would otherwise ignore:
// an argument a command does not take, an unknown command or flag (all
// exit 2, bad input). run, plan and up take the profile as their one
// positional argument (`ybbench plan sysbench-ysql`), so that the natural
// spelling runs the benchmark it names and not the default one.
func strictArgs(root *cobra.Command, o *options, profileArg ...*cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitcode.Wrap(exitcode.Config, fmt.Errorf("%w (%s --help lists the flags)", err, c.CommandPath()))
	})
	// --version is the root's own flag rather than cobra's, whose version
	// flag answers before the arguments are checked (`ybbench --version
	// extra` would print and exit 0).
	showVersion := root.Flags().Bool("version", false, "print the version, the commit and Go's version")
	// A runnable root with its own argument check: cobra then reports an
	// unknown command through it instead of as an unclassified error.
	root.RunE = func(c *cobra.Command, _ []string) error {
		if *showVersion {
			_, err := fmt.Fprintln(c.OutOrStdout(), "ybbench", versionText())
			return err
		}
		return c.Help()
	}
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return exitcode.Errorf(exitcode.Config, "unknown command %q for ybbench (ybbench --help lists the commands)", args[0])
		}
		return nil
	}
	takesProfile := map[*cobra.Command]bool{}
	for _, c := range profileArg {
		takesProfile[c] = true
		c.Use += " [PROFILE]"
		c.Args = profileArgs(o)
	}
	// cobra adds help and completion when the command runs; added now,
	// they get the same checks.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch {
		case c.Name() == "help":
			c.Run, c.RunE = nil, helpFor(root)
		case c.Name() == "completion":
			// Not runnable, cobra would print its help for any argument
			// and exit 0.
			c.Args = func(_ *cobra.Command, args []string) error {
				if len(args) > 0 {
					return exitcode.Errorf(exitcode.Config, "ybbench completion: unknown shell %q (bash, zsh, fish or powershell)", args[0])
				}
				return nil
			}
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		case c.Args == nil && !takesProfile[c]:
			c.Args = noArgs
		}
	}
}

// helpFor is the help command: the help of the command named, and an
// unknown name is bad input (cobra's own prints the root's help and exits
// 0).
func helpFor(root *cobra.Command) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		target, rest, err := root.Find(args)
		if err != nil || len(rest) > 0 || (len(args) > 0 && target == root) {
			return exitcode.Errorf(exitcode.Config, "ybbench help: unknown command %q (ybbench --help lists the commands)", strings.Join(args, " "))
		}
		return target.Help()
	}
}

// noArgs refuses any positional argument (exit 2).
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exitcode.Errorf(exitcode.Config, "ybbench %s takes no argument, got %q (ybbench %s --help)", c.Name(), args, c.Name())
	}
	return nil
}

// profileArgs takes at most one argument, the profile; given beside a
// --profile that names another, the two are refused together.
func profileArgs(o *options) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return nil
		case len(args) > 1:
			return exitcode.Errorf(exitcode.Config, "ybbench %s takes one argument, the profile; got %q", c.Name(), args)
		}
		if f := c.Flags().Lookup("profile"); f != nil && f.Changed && f.Value.String() != args[0] {
			return exitcode.Errorf(exitcode.Config, "ybbench %s: the profile is given twice: %q and --profile %s", c.Name(), args[0], f.Value.String())
		}
		p := args[0]
		o.set["profile"] = &p
		return nil
	}
}

// versionText is what --version and `ybbench version` print.
func versionText() string { return buildinfo.Describe(version, commit) }
