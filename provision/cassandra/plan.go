package cassandra

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// plan is a checked spec.
type plan struct {
	db          []infra.Host
	set         settings
	src         artifacts
	clusterName string
	tokens      []string
	runID       string // marks the own directories
	version     string // ybbench's, in the marker
	noAuth      bool
}

// planInstall checks the spec, the hosts and the artifact cache before any
// host is touched (exit code 2: bad configuration).
func planInstall(c *infra.Cluster, s provision.FlavorSpec) (plan, error) {
	var p plan
	p.db = c.ByRole(infra.RoleDB)
	if len(p.db) == 0 {
		return p, exitcode.Errorf(exitcode.Config, "cassandra: the cluster has no db host")
	}
	if err := checkHosts(p.db); err != nil {
		return p, exitcode.Wrap(exitcode.Config, err)
	}
	var err error
	if p.set, err = parseSettings(s.Settings); err != nil {
		return p, exitcode.Wrap(exitcode.Config, err)
	}
	if s.SHA256 != "" {
		return p, exitcode.Errorf(exitcode.Config, "cassandra: a SHA256 does not apply: the source is an artifact directory, whose tarball the flavor builds and checks itself")
	}
	dir := s.Source
	if dir == "" {
		dir = DefaultSource()
	}
	if p.src, err = readSource(dir); err != nil {
		return p, exitcode.Wrap(exitcode.Config, err)
	}
	if s.Version != "" && s.Version != p.src.Version {
		return p, exitcode.Errorf(exitcode.Config, "cassandra: version %s was asked for, but %s holds %s", s.Version, dir, p.src.Jar)
	}
	p.clusterName = clusterName(c.Name)
	p.tokens = Tokens(len(p.db))
	// The run marks the directories it owns; Wipe knows it by the
	// cluster's name, so both must name the same run.
	p.runID = s.RunID
	if p.runID == "" {
		p.runID = c.Name
	}
	if p.runID == "" || (s.RunID != "" && c.Name != "" && s.RunID != c.Name) {
		return p, exitcode.Errorf(exitcode.Config, "cassandra: the run id %q and the cluster's name %q must be one run's (Wipe releases the directories of the cluster's name)", s.RunID, c.Name)
	}
	p.version = s.ToolVersion
	if p.version == "" {
		p.version = "unknown"
	}
	p.noAuth = s.NoAuth
	return p, nil
}

var (
	nameRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// checkHosts refuses hosts whose names, addresses, user or directories
// the scripts cannot take safely (they remove directories by these paths).
func checkHosts(hosts []infra.Host) error {
	if problems := provision.CheckDBHosts(hosts); len(problems) > 0 {
		return fmt.Errorf("cassandra: refusing the db hosts:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// clusterName is the cluster_name of a run's cluster.
func clusterName(run string) string {
	n := strings.Trim(nameRE.ReplaceAllString(run, "-"), "-")
	if n == "" {
		return "ybbench"
	}
	if len(n) > 40 {
		n = n[:40]
	}
	return "ybbench-" + n
}
