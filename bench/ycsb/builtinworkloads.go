package ycsb

import (
	"embed"
	"io/fs"
)

// The seeds' command lines name YCSB's workload files by their path in a
// YCSB checkout (-P workloads/workloada); ybload carries copies so that
// such a line runs where no checkout is.
//
//go:embed workloads
var builtinWorkloads embed.FS

// BuiltinWorkload returns the built-in copy of YCSB's workload file name
// (workloada … workloadf).
func BuiltinWorkload(name string) ([]byte, bool) {
	b, err := fs.ReadFile(builtinWorkloads, "workloads/"+name)
	return b, err == nil
}
