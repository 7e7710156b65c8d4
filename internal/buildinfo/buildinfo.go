// Package buildinfo says which build a binary is, for both ybbench and
// ybload's --version: the release, the commit and Go's version.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Describe is "<version> (commit <sha>[ (modified)], <go version>)"; the
// commit is "unknown commit" when the build recorded none (a build outside
// a git checkout, or with -buildvcs=false).
func Describe(version string) string {
	commit := "unknown commit"
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
