package sysbench

import (
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
