package postgres

import (
	"path/filepath"
	"strconv"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// parent is the directory the run's own directory is made in on a host:
// its first data directory, or its base when it has none.
func parent(h infra.Host) string {
	if len(h.DataDirs) > 0 {
		return h.DataDirs[0]
	}
	return h.Base
}

// dir is where the flavor keeps its data, run, log and pgpass on a host.
func dir(h infra.Host) string { return filepath.Join(provision.OwnDir(parent(h)), "postgres") }

// sockDir is the server's Unix socket directory: inside the run's own
// directory (so Wipe removes it and no other user shares it), with a name
// kept short because a socket's path is limited to 107 bytes.
func sockDir(h infra.Host) string { return filepath.Join(provision.OwnDir(parent(h)), "pgs") }

// MaxSocketPath is the longest Unix socket path the kernel takes
// (sun_path is 108 bytes with the terminating NUL).
const MaxSocketPath = 107

// checkSocketPath refuses a host whose socket path would be too long for
// the server to listen on (it would fail only after everything is written).
func checkSocketPath(h infra.Host, port int) error {
	p := filepath.Join(sockDir(h), ".s.PGSQL."+strconv.Itoa(port))
	if len(p) > MaxSocketPath {
		return exitcode.Errorf(exitcode.Config, "postgres: db host %q: the server's socket %s would be %d bytes, more than the %d a Unix socket path may have: give the host a shorter data directory or base", h.Name, p, len(p), MaxSocketPath)
	}
	return nil
}
