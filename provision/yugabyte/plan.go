package yugabyte

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
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

// source is where the tarball comes from.
type source struct {
	url string // downloaded on each host with curl (may hold a token)
	// shaURL is where the release server publishes the checksum (url's
	// path + ".sha", the query kept): fetched only for an https url
	// without FlavorSpec.SHA256.
	shaURL string
	local  string // or uploaded from the orchestrator
	name   string // its file name
	// sha256 is the expected digest ("" when unknown: a URL without
	// FlavorSpec.SHA256); shaFrom says where it came from.
	sha256  string
	shaFrom string
}

var (
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// planInstall checks the spec and the cluster, reporting every problem at
// once (exit code 2: bad configuration). It hashes a local tarball.
func planInstall(c *infra.Cluster, s provision.FlavorSpec, allowUnknown bool) (plan, error) {
	var p plan
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if c == nil {
		return p, exitcode.Errorf(exitcode.Config, "yugabyte: no cluster")
	}
	p.db = c.ByRole(infra.RoleDB)
	p.rf = s.RF
	if p.rf == 0 {
		p.rf = DefaultRF
	}
	switch {
	case len(p.db) == 0:
		bad("the cluster has no db hosts")
	case p.rf < 1:
		bad("replication factor %d: must be at least 1", p.rf)
	case p.rf > len(p.db):
		bad("replication factor %d needs at least %d db hosts (one master each, specs/yugabyte-deploy.md §1); the cluster has %d", p.rf, p.rf, len(p.db))
	default:
		p.masters = p.db[:p.rf]
	}
	problems = append(problems, provision.CheckDBHosts(p.db)...)

	p.auth = !s.NoAuth
	settings, err := parseSettings(s.Settings, allowUnknown, p.auth)
	if err != nil {
		bad("%v", err)
	}
	p.settings = settings
	if p.auth && s.SecretsDir == "" {
		bad("no secrets directory (FlavorSpec.SecretsDir) for the generated passwords; the cluster is authenticated unless --db-auth=off")
	}
	p.secrets = s.SecretsDir
	// Wipe knows the run only as the cluster's name (the pipeline names
	// every cluster after its run): Install must mark with the same id.
	p.mark = provision.Mark{RunID: s.RunID, Version: orDefault(s.ToolVersion, "unknown")}
	switch {
	case s.RunID == "" && c.Name == "":
		bad("no run id (FlavorSpec.RunID, or the cluster's name) to mark the run's directories with")
	case s.RunID == "":
		p.mark.RunID = c.Name
	case c.Name != "" && c.Name != s.RunID:
		bad("FlavorSpec.RunID %q is not the cluster's name %q: Wipe, which knows only the cluster, could not remove what Install made", s.RunID, c.Name)
	}

	if s.SHA256 != "" && !sha256Hex.MatchString(strings.ToLower(s.SHA256)) {
		bad("sha256 %q: not 64 hex digits", s.SHA256)
	}
	switch {
	case s.Source == "":
		bad("no source: give a release tarball URL or a local tarball path")
	case strings.HasPrefix(s.Source, "http://") || strings.HasPrefix(s.Source, "https://"):
		shown := provision.RedactURL(s.Source)
		u, err := url.Parse(s.Source)
		if err != nil || u.Host == "" || strings.ContainsFunc(s.Source, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			bad("source %q: not a URL", shown)
			break
		}
		// Over plain http anyone on the way can swap the tarball, whose
		// post_install.sh then runs as root, and the .sha beside it:
		// only a checksum given by the user makes it safe.
		if u.Scheme == "http" && s.SHA256 == "" {
			bad("source %s: a tarball over plain http:// needs its sha256 (--yb-sha256); the .sha file from the same server proves nothing", shown)
			break
		}
		p.src = source{url: s.Source, name: path.Base(u.Path)}
		if s.SHA256 != "" {
			p.src.sha256, p.src.shaFrom = strings.ToLower(s.SHA256), "FlavorSpec.SHA256"
		} else {
			su := *u
			su.Path += ".sha"
			su.RawPath = ""
			if u.RawPath != "" {
				su.RawPath = u.RawPath + ".sha"
			}
			p.src.shaURL = su.String()
		}
	case strings.Contains(s.Source, "://"):
		bad("source %q: only http and https URLs, or a local path", provision.RedactURL(s.Source))
	default:
		p.src = source{local: s.Source, name: path.Base(s.Source)}
	}
	if p.src.name != "" && !strings.HasSuffix(p.src.name, ".tar.gz") && !strings.HasSuffix(p.src.name, ".tgz") {
		bad("source %q: not a .tar.gz release tarball", provision.RedactURL(s.Source))
	}
	if len(problems) > 0 {
		return p, exitcode.Errorf(exitcode.Config, "yugabyte: cannot install:\n  %s", strings.Join(problems, "\n  "))
	}

	// Only now, with everything else right, read the tarball.
	if p.src.local != "" {
		sum, err := provision.FileSHA256(p.src.local)
		if err != nil {
			return p, exitcode.Errorf(exitcode.Config, "yugabyte: source: %v", err)
		}
		p.src.sha256, p.src.shaFrom = sum, "computed on the orchestrator"
		if s.SHA256 != "" {
			if want := strings.ToLower(s.SHA256); want != sum {
				return p, exitcode.Errorf(exitcode.Config, "yugabyte: source %s: sha256 is %s, FlavorSpec.SHA256 says %s", p.src.local, sum, want)
			}
			p.src.shaFrom = "FlavorSpec.SHA256 (checked on the orchestrator)"
		}
	}
	return p, nil
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
