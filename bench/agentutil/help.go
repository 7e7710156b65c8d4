package agentutil

// IsHelpFlag reports whether arg asks for a command's help: -h, -help or
// --help. Every ybload command answers these the same way (its usage on
// standard output, exit 0), whatever spelling its reference tool's own
// flags use (YCSB's -p, sysbench's --name=value, yb-sample-apps' --name
// value), so that a user's first try works everywhere.
func IsHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}
