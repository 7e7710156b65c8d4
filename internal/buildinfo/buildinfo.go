// Package buildinfo says which build a binary is, for both ybbench and
// ybload's --version: the release, the commit and Go's version.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Describe is "<version> (commit <sha>[ (modified)], <go version>)". The
// commit is the one the build was given (make build passes it with
// -ldflags -X, since GOFLAGS may hold -buildvcs=false), else the one Go
// stamped into the binary, else "unknown commit".
func Describe(version, commit string) string {
	if commit != "" {
		return fmt.Sprintf("%s (commit %s, %s)", version, commit, runtime.Version())
	}
	commit = "unknown commit"
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			commit = "commit " + rev
			if modified == "true" {
				commit += " (modified)"
			}
		}
	}
	return fmt.Sprintf("%s (%s, %s)", version, commit, runtime.Version())
}
