package sysbench

import (
	"fmt"
	"strings"
)

// validate checks the values against each other and against what ybload
// supports: the rules no single option's row can apply.
func (o *Options) validate() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if o.Histogram && o.Percentile == 0 {
		// sysbench keeps no histogram at all then, and says so.
		bad("--histogram cannot be used with --percentile=0")
	}
	switch o.SSLMode {
	case "", "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
	default:
		bad("--pgsql-sslmode=%s: want disable, allow, prefer, require, verify-ca or verify-full", o.SSLMode)
	}
	if len(o.Hosts) == 0 {
		bad("--pgsql-host is empty")
	}
	if len(o.Hosts) > 1 && o.Mode == Mode1020 {
		bad("--pgsql-host=%s: sysbench 1.0.20 takes one host; a comma-separated list is the YugabyteDB fork's (--compat=yb)", strings.Join(o.Hosts, ","))
	}
	if o.RangeKeyPartitioning && o.ManualRangeSplitting && o.NumTableSplits < 2 {
		bad("--num_table_splits=%d: the split clause needs at least 2 tablets", o.NumTableSplits)
	}
	if o.PSMode != "auto" && o.PSMode != "disable" {
		bad("--db-ps-mode=%s: want auto or disable", o.PSMode)
	}
	switch o.RandType {
	case "uniform", "pareto":
	case "zipfian":
		if o.Mode == Mode1020 {
			bad("--rand-type=zipfian: sysbench 1.0.20 has no zipfian distribution (uniform, gaussian, special, pareto)")
		}
	case "special":
		if o.Mode == ModeFork {
			bad("--rand-type=special: the YugabyteDB fork has no special distribution (uniform, gaussian, pareto, zipfian); it is 1.0.20's default (--compat=1.0.20)")
		}
	case "gaussian":
		if o.Mode == ModeFork {
			bad("--rand-type=gaussian: refused in fork mode: the YugabyteDB fork's gaussian always returns the lowest id (its iteration count option was removed with special; sysbench#455), which would benchmark one row; use --compat=1.0.20 for a working gaussian")
		}
	default:
		bad("--rand-type=%s: want uniform, gaussian, special, pareto or zipfian", o.RandType)
	}
	if o.RandParetoH <= 0 || o.RandParetoH >= 1 {
		bad("--rand-pareto-h=%g: want a value between 0 and 1", o.RandParetoH)
	}
	if o.RandZipfianExp < 0 {
		bad("--rand-zipfian-exp=%g: must not be negative", o.RandZipfianExp)
	}
	if o.RandSpecIter < 1 {
		bad("--rand-spec-iter=%d: must be at least 1", o.RandSpecIter)
	}
	if o.RandSpecPct < 0 || o.RandSpecPct > 100 || o.RandSpecRes < 0 || o.RandSpecRes >= 100 {
		bad("--rand-spec-pct and --rand-spec-res are percentages (res below 100)")
	}
	if o.Records != "" && o.Records == o.Summary {
		bad("--ybload-records and --ybload-summary name the same file")
	}
	return errs
}
