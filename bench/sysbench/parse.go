package sysbench

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// ParseArgs reads `<workload> [options] <command>` (options anywhere, as
// sysbench takes them) into Options, reporting every problem at once.
// getenv supplies YBLOAD_YSQL_PASSWORD and PGPASSWORD; readSecret reads
// --pgsql-password-file (nil: no file may be given).
func ParseArgs(args []string, getenv func(string) string, readSecret func(string) (string, error)) (*Options, error) {
	vals, pos, errs := splitArgs(args)
	o := &Options{}
	pos = o.takeDeprecated(vals, pos)
	o.Given = masked(vals)
	errs = append(errs, o.takeWorkloadAndCommand(pos)...)
	if m, err := parseMode(vals["compat"]); err != nil {
		errs = append(errs, err)
	} else {
		o.Mode = m
	}
	errs = append(errs, notInMode(vals, o.Mode)...)
	errs = append(errs, o.landOptions(vals)...)
	o.dropForkOnly()
	errs = append(errs, o.validate()...)
	if len(errs) == 0 {
		errs = append(errs, o.readPassword(vals, getenv, readSecret)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return o, nil
}

// splitArgs parts the line into the options' values by canonical name (the
// last given wins; --config-file's take its place on the line) and the
// positional words. An option no row names, and a value missing, are
// refused here; the values are read later, by their rows.
func splitArgs(args []string) (vals map[string]string, pos []string, errs []error) {
	vals = map[string]string{}
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		name = canonical(name)
		d, ok := findOpt(name)
		if !ok {
			errs = append(errs, fmt.Errorf("invalid option: %s", maskArg(a)))
			continue
		}
		if !hasVal {
			if d.value.kind != kindBool {
				errs = append(errs, fmt.Errorf("option --%s needs a value (--%s=value)", dashed(name), dashed(name)))
				continue
			}
			val = "on"
		}
		vals[name] = val
		if name == "config_file" {
			// Its options take its place on the line: later options win.
			if err := readConfigFile(val, vals); err != nil {
				errs = append(errs, err)
			}
		}
	}
	delete(vals, "config_file")
	return vals, pos, errs
}

// deprecatedAliases are sysbench 1.0.20's old option names, in the order
// it checks them: one given a value other than its default replaces the
// new option's, whatever their order on the line, with a warning.
var deprecatedAliases = []struct{ old, new string }{
	{"num_threads", "threads"}, {"max_requests", "events"}, {"max_time", "time"}, {"tx_rate", "rate"},
}

// testWarning is sysbench's warning for --test.
const testWarning = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options."

// takeDeprecated applies sysbench's deprecated spellings before anything
// else, as sysbench does: --test names the workload when only the command
// is on the line, and an alias's value replaces its new option's. Each
// gives sysbench's warning. It returns the positional words with --test's
// workload in front.
func (o *Options) takeDeprecated(vals map[string]string, pos []string) []string {
	if t := vals["test"]; t != "" {
		o.Warnings = append(o.Warnings, testWarning)
		if len(pos) == 1 {
			pos = []string{t, pos[0]}
		}
	}
	for _, al := range deprecatedAliases {
		v, ok := vals[al.old]
		if !ok {
			continue
		}
		d, _ := findOpt(al.old)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && strconv.FormatInt(n, 10) != d.def {
			o.Warnings = append(o.Warnings, fmt.Sprintf("WARNING: --%s is deprecated, use --%s instead", dashed(al.old), dashed(al.new)))
			vals[al.new] = v
		}
	}
	return pos
}

// masked are the options given, for the records, with secrets masked.
func masked(vals map[string]string) map[string]string {
	given := make(map[string]string, len(vals))
	for k, v := range vals {
		given[k] = maskVal(k, v)
	}
	return given
}

// takeWorkloadAndCommand reads the positional words: the workload (a
// script's name or path, as sysbench takes it) and the command.
func (o *Options) takeWorkloadAndCommand(pos []string) []error {
	var errs []error
	switch len(pos) {
	case 0:
		errs = append(errs, fmt.Errorf("missing the workload and the command: ybload sysbench <%s> [options] prepare|run|cleanup", strings.Join(Workloads, "|")))
	case 1:
		errs = append(errs, fmt.Errorf("missing the command after %s: prepare, run or cleanup", pos[0]))
	case 2:
	default:
		errs = append(errs, fmt.Errorf("unexpected argument %q (options are --name=value)", pos[2]))
	}
	if len(pos) >= 1 {
		o.Workload = strings.TrimSuffix(path.Base(pos[0]), ".lua")
		if !slices.Contains(Workloads, o.Workload) {
			errs = append(errs, fmt.Errorf("unknown workload %q: want one of %s", pos[0], strings.Join(Workloads, ", ")))
		}
	}
	if len(pos) >= 2 {
		o.Command = pos[1]
		if !slices.Contains(Commands, o.Command) {
			errs = append(errs, fmt.Errorf("unknown command %q: want prepare, run or cleanup (the fork's create and load, or help)", o.Command))
		}
	}
	return errs
}

// notInMode refuses the options given that the mode's code line lacks, as
// that line's sysbench refuses them, saying which line has them.
func notInMode(vals map[string]string, m Mode) []error {
	var errs []error
	for _, d := range optionDefs {
		v, given := vals[d.name]
		switch {
		case !given || d.lines.in(m):
		case d.lines == forkOnly:
			errs = append(errs, fmt.Errorf("invalid option: --%s=%s (sysbench 1.0.20 has no such option; it is the YugabyteDB fork's, the default --compat=yb)", dashed(d.name), maskVal(d.name, v)))
		default:
			errs = append(errs, fmt.Errorf("invalid option: --%s=%s (an option of sysbench 1.0.20 only: use --compat=1.0.20)", dashed(d.name), maskVal(d.name, v)))
		}
	}
	return errs
}

// landOptions reads every option, given or the mode's default, by its
// row, in the table's order, into o. A default is read too, as sysbench
// reads it, so that every field has its value; an option with no default
// and not given lands nothing (a start time, a file to write).
func (o *Options) landOptions(vals map[string]string) []error {
	var errs []error
	for i := range optionDefs {
		d := &optionDefs[i]
		raw, given := vals[d.name]
		if !given {
			if raw = d.defaultIn(o.Mode); raw == "" {
				continue
			}
		}
		if err := d.value.land(o, d.name, raw); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// dropForkOnly clears, in 1.0.20 mode, what the fork's options would
// change: they do not exist in 1.0.20 (given ones were refused by
// notInMode), and their fork defaults must not leak into its behaviour.
// It runs before validate, so that the checks judge what 1.0.20 runs.
func (o *Options) dropForkOnly() {
	if o.Mode == Mode1020 {
		o.Warmup, o.Reconnect, o.SerialCacheSize, o.CreateTableOptions = 0, 0, 0, ""
		o.RangeKeyPartitioning = false
	}
}

// secret reports whether an option's value must never be echoed.
func secret(name string) bool { return name == "pgsql_password" }

func maskVal(name, v string) string {
	if secret(name) {
		return "****"
	}
	return v
}

// maskArg masks the value of what looks like a password option that no
// row names (a misspelling), since it is echoed in the error.
func maskArg(a string) string {
	if k, _, ok := strings.Cut(a, "="); ok && strings.Contains(strings.ToLower(k), "passw") {
		return k + "=****"
	}
	return a
}
