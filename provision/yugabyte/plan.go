package yugabyte

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// DefaultRF is the replication factor when FlavorSpec.RF is 0.
const DefaultRF = 3

// plan is a checked FlavorSpec on a checked cluster.
type plan struct {
	db       []infra.Host // every db host: a tserver each
	masters  []infra.Host // the first RF db hosts: a master each
	rf       int
	settings flagSettings
	src      source
	// auth: passwords on (not FlavorSpec.NoAuth); secrets is where the
	// generated ones are kept on the orchestrator.
	auth    bool
	secrets string
	// mark is the run's mark on its own directories.
	mark provision.Mark
}

func (p plan) topology() topology {
	return topology{masters: p.masters, rf: p.rf, settings: p.settings, auth: p.auth}
}

// problems gathers what is wrong with a spec, so that planInstall says it
// all at once rather than one mistake per attempt.
type problems []string

func (ps *problems) add(format string, args ...any) { *ps = append(*ps, fmt.Sprintf(format, args...)) }

// planInstall checks the spec and the cluster, reporting every problem at
// once (exit code 2: bad configuration). It hashes a local tarball.
func planInstall(c *infra.Cluster, s provision.FlavorSpec, allowUnknown bool) (plan, error) {
	var p plan
	if c == nil {
		return p, exitcode.Errorf(exitcode.Config, "yugabyte: no cluster")
	}
	var bad problems
	p.planTopology(c, s.RF, &bad)
	p.planAuth(s, allowUnknown, &bad)
	p.planMark(c, s, &bad)
	p.src = planSource(s, &bad)
	if len(bad) > 0 {
		return p, exitcode.Errorf(exitcode.Config, "yugabyte: cannot install:\n  %s", strings.Join(bad, "\n  "))
	}
	// Only now, with everything else right, read the tarball.
	if err := p.src.hashLocal(s.SHA256); err != nil {
		return p, err
	}
	return p, nil
}

// planTopology places the servers: a tserver on every db host, a master
// on each of the first rf (0: DefaultRF), whose paths must be safe to
// write and remove.
func (p *plan) planTopology(c *infra.Cluster, rf int, bad *problems) {
	p.db = c.ByRole(infra.RoleDB)
	p.rf = rf
	if p.rf == 0 {
		p.rf = DefaultRF
	}
	switch {
	case len(p.db) == 0:
		bad.add("the cluster has no db hosts")
	case p.rf < 1:
		bad.add("replication factor %d: must be at least 1", p.rf)
	case p.rf > len(p.db):
		bad.add("replication factor %d needs at least %d db hosts (one master each, specs/yugabyte-deploy.md §1); the cluster has %d", p.rf, p.rf, len(p.db))
	default:
		p.masters = p.db[:p.rf]
	}
	*bad = append(*bad, provision.CheckDBHosts(p.db)...)
}

// planAuth checks the flags asked for and, with passwords on, that there
// is somewhere to keep the generated ones.
func (p *plan) planAuth(s provision.FlavorSpec, allowUnknown bool, bad *problems) {
	p.auth = !s.NoAuth
	settings, err := parseSettings(s.Settings, allowUnknown, p.auth)
	if err != nil {
		bad.add("%v", err)
	}
	p.settings = settings
	if p.auth && s.SecretsDir == "" {
		bad.add("no secrets directory (FlavorSpec.SecretsDir) for the generated passwords; the cluster is authenticated unless --db-auth=off")
	}
	p.secrets = s.SecretsDir
}

// planMark picks the run id the run's directories are marked with. Wipe
// knows the run only as the cluster's name (the pipeline names every
// cluster after its run): Install must mark with the same id.
func (p *plan) planMark(c *infra.Cluster, s provision.FlavorSpec, bad *problems) {
	p.mark = provision.Mark{RunID: s.RunID, Version: orDefault(s.ToolVersion, "unknown")}
	switch {
	case s.RunID == "" && c.Name == "":
		bad.add("no run id (FlavorSpec.RunID, or the cluster's name) to mark the run's directories with")
	case s.RunID == "":
		p.mark.RunID = c.Name
	case c.Name != "" && c.Name != s.RunID:
		bad.add("FlavorSpec.RunID %q is not the cluster's name %q: Wipe, which knows only the cluster, could not remove what Install made", s.RunID, c.Name)
	}
}

// dbHostsForStop are the db hosts whose paths are safe to stop and wipe.
func dbHostsForStop(c *infra.Cluster) ([]infra.Host, error) {
	if c == nil {
		return nil, fmt.Errorf("yugabyte: no cluster")
	}
	hosts := c.ByRole(infra.RoleDB)
	var problems []string
	for _, h := range hosts {
		if msg := provision.CheckDir(h.Base); msg != "" {
			problems = append(problems, fmt.Sprintf("db host %q: base %q: %s", h.Name, h.Base, msg))
		}
		for _, d := range h.DataDirs {
			if msg := provision.CheckDir(d); msg != "" {
				problems = append(problems, fmt.Sprintf("db host %q: data dir %q: %s", h.Name, d, msg))
			}
		}
	}
	if len(problems) > 0 {
		return nil, exitcode.Errorf(exitcode.Config, "yugabyte: refusing to touch the hosts:\n  %s", strings.Join(problems, "\n  "))
	}
	return hosts, nil
}
