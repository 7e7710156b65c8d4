package sysbench

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/bench/agentutil"
)

// helpRequest reports whether args ask for help: sysbench's --help (also
// --help=on), -h, `ybload sysbench help`, or `<workload> help`; and for
// which mode (--compat), since the two list different options. A --compat
// value that names no mode is an error, as it is on any other command line.
func helpRequest(args []string) (m Mode, asked bool, err error) {
	compat := ""
	var positional []string
	for _, a := range args {
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case agentutil.IsHelpFlag(a):
			asked = true
		case name == "--help" && hasVal:
			on, ok := parseBool(val)
			asked = asked || (ok && on)
		case canonical(strings.TrimPrefix(name, "--")) == "compat" && hasVal:
			compat = val
		case !strings.HasPrefix(a, "-"):
			positional = append(positional, a)
		}
	}
	// `help` as the first word (sysbench's general help) or as the
	// workload's command.
	for i, p := range positional {
		asked = asked || (p == "help" && i < 2)
	}
	if !asked {
		return ModeFork, false, nil
	}
	m, err = parseMode(compat)
	return m, true, err
}

// Help lists the options of a mode, for `ybload sysbench --help` and
// `ybload sysbench <workload> help`.
func Help(m Mode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: ybload sysbench <workload> [--option=value]... prepare|run|cleanup|help\n"+
		"  sysbench's OLTP workloads, with sysbench replaced by ybload sysbench (here --compat=%s)\n\n"+
		"workloads: %s\n\noptions, with their defaults:\n", m, strings.Join(Workloads, ", "))
	for _, d := range optionDefs {
		if d.lines.in(m) {
			fmt.Fprintf(&b, "  --%-28s %s [%s]\n", dashed(d.name)+"=", d.help, d.defaultIn(m))
		}
	}
	b.WriteString("  --help, -h                     this help (--compat=1.0.20 --help: stock sysbench's options)\n\n" +
		"The report goes to standard output in sysbench's format; errors to standard error.\n" +
		"Exit codes: 0 ok, 1 tool error, 2 bad input, 5 database or workload error.\n")
	return b.String()
}
