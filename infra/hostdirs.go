package infra

import (
	"path"
	"regexp"
	"strings"
)

// SystemTrees are the directories a run never writes under: neither they
// nor anything below them may be a host's base or data directory (/lib
// stands for every /lib* tree: /lib, /lib32, /lib64, /libx32).
var SystemTrees = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/proc", "/run", "/sbin", "/sys", "/usr"}

// SystemDirs are directories that hold other people's things: they may
// not be a base or data directory themselves (a directory below them may).
var SystemDirs = []string{"/", "/home", "/root", "/var", "/var/lib", "/opt", "/srv", "/tmp", "/mnt", "/media"}

// safeDir is a directory a run writes under: absolute, with letters,
// digits and ._+- between the slashes (so no comma, which would split
// YugabyteDB's --fs_data_dirs, and nothing a shell would read).
var safeDir = regexp.MustCompile(`^(/[A-Za-z0-9._+-]+)+$`)

// CheckHostDir says what is wrong with d as a host's base or data
// directory ("" when nothing): it must be absolute, clean, of safe
// characters, and neither a system directory nor inside a system tree. The
// same rules are applied again on the host to the resolved path, since a
// symbolic link passes any check of the text.
func CheckHostDir(d string) string {
	switch {
	case d == "":
		return "empty"
	case !path.IsAbs(d):
		return "not an absolute path"
	case path.Clean(d) != d:
		return "not clean (want " + path.Clean(d) + ")"
	}
	if why := SystemPath(d); why != "" {
		return why
	}
	if !safeDir.MatchString(d) {
		return "want letters, digits and ._+- between the slashes"
	}
	return ""
}

// SystemPath says why a clean absolute path is a system directory or lies
// in a system tree ("" when it is neither).
func SystemPath(d string) string {
	for _, s := range SystemDirs {
		if d == s {
			return "a system directory (" + s + "): give a directory of its own below it"
		}
	}
	for _, t := range SystemTrees {
		if t == "/lib" {
			if strings.HasPrefix(d, "/lib") {
				first, _, _ := strings.Cut(d[1:], "/")
				return "inside the system tree /" + first
			}
			continue
		}
		if d == t || strings.HasPrefix(d, t+"/") {
			return "inside the system tree " + t
		}
	}
	return ""
}

// SystemPathPatterns are SystemDirs and SystemTrees as the patterns of a
// shell case statement, for the check a host repeats on resolved paths.
func SystemPathPatterns() string {
	var p []string
	p = append(p, SystemDirs...)
	for _, t := range SystemTrees {
		if t == "/lib" {
			p = append(p, "/lib*")
			continue
		}
		p = append(p, t, t+"/*")
	}
	return strings.Join(p, " | ")
}
