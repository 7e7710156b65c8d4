package yugabyte

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Install installs YugabyteDB on the cluster's db hosts and starts it:
//
//  1. prepare every db host: the run's own directories claimed
//     (provision.OwnDir of Base and of each data dir, marked with the run
//     id before anything is written; a directory the run did not make
//     stops the install with exit 4), the service user, directories inside
//     them, transparent hugepages, clock and kernel checks;
//  2. bring the tarball there: downloaded with curl for a URL, or uploaded
//     through the Runner for a local path, skipped when the host already
//     has it with the right sha256; check the sha256, extract it once, run
//     bin/post_install.sh once;
//  3. stop servers of an earlier Install, start yb-master on the first RF
//     db hosts, wait for a master leader, start yb-tserver on every db
//     host, wait until the cluster is whole (readiness: see ready.go);
//  4. unless FlavorSpec.NoAuth: the tservers run with --ysql_enable_auth
//     and --use_cassandra_authentication, and the default passwords are
//     replaced by generated ones, kept only in FlavorSpec.SecretsDir
//     (auth.sh; every tserver then checks a login with them).
//
// The Deployment lists the YSQL and YCQL endpoints of every tserver, every
// flag passed and every check recorded (Settings), and the server
// processes with their pid files. Errors carry exit code 2 (bad spec or
// cluster) or 4 (provisioning). Servers started before a failure keep
// running, for inspection; Stop or Wipe removes them.
func (f *Flavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep, err := f.install(ctx, r, c, s)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Provision, err)
	}
	return dep, nil
}

// hostInstall is what preparing and installing one host found.
type hostInstall struct {
	host     infra.Host
	prepare  records
	install  records
	uploaded bool
	software string
}

func (f *Flavor) install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	log := f.cfg.logger
	if s.Logger != nil {
		log = s.Logger
	}
	log = log.With("flavor", Name)
	p, err := planInstall(c, s, f.cfg.allowUnknown)
	if err != nil {
		return nil, err
	}
	par := provision.ParallelOptions{Limit: s.Parallel, FailFast: true}
	start := time.Now()

	// 1 and 2: prepare, bring the tarball, install.
	hosts, err := provision.Parallel(ctx, p.db, par, func(ctx context.Context, h infra.Host) (hostInstall, error) {
		return f.installHost(ctx, r, h, p, log.With("host", h.Name))
	})
	if err != nil {
		return nil, fmt.Errorf("yugabyte: install: %w", err)
	}
	dep := &provision.Deployment{
		Flavor:   Name,
		Database: "yugabyte",
		Settings: map[string]string{},
	}
	if err := recordInstall(dep, p, hosts, s.Version); err != nil {
		return nil, err
	}
	log.Info("installed", "stage", "install", "version", dep.Version, "elapsed", time.Since(start).Round(time.Millisecond))

	// 3: stop what an earlier Install left running, masters, leader,
	// tservers, readiness.
	software := map[string]string{}
	for _, h := range hosts {
		software[h.host.Name] = h.software
	}
	leader, err := f.startCluster(ctx, r, p, par, software, dep, log)
	if err != nil {
		return nil, err
	}
	log.Info("ready", "leader", leader.Name, "elapsed", time.Since(start).Round(time.Millisecond))

	// 4: the passwords.
	if p.auth {
		if err := f.setPasswords(ctx, r, p, software, dep, log.With("stage", "auth")); err != nil {
			return nil, err
		}
	} else {
		// The seeds' setup: no passwords on either API; the report marks it.
		dep.User = "yugabyte"
		dep.Settings["auth"] = "off"
	}
	recordServers(dep, p)
	return dep, nil
}

// recordServers lists the cluster's endpoints (YSQL when enabled, YCQL on
// every tserver) and its server processes with their pid files, which
// Stop and the collectors find them by.
func recordServers(dep *provision.Deployment, p plan) {
	for _, h := range p.db {
		if p.settings.ysqlEnabled() {
			dep.YSQL = append(dep.YSQL, provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: ysqlPort})
		}
		dep.YCQL = append(dep.YCQL, provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: ycqlPort})
	}
	for _, h := range p.masters {
		dep.Processes = append(dep.Processes, provision.Process{Host: h.Name, Name: string(master), PIDFile: procOf(layoutOf(h), master).PIDFile})
	}
	for _, h := range p.db {
		dep.Processes = append(dep.Processes, provision.Process{Host: h.Name, Name: string(tserver), PIDFile: procOf(layoutOf(h), tserver).PIDFile})
	}
}

// installHost prepares one host and installs the tarball there.
func (f *Flavor) installHost(ctx context.Context, r provision.Runner, h infra.Host, p plan, log *slog.Logger) (hostInstall, error) {
	out := hostInstall{host: h}
	src := p.src
	l := layoutOf(h)
	tarball := path.Join(l.Download, src.name)
	script, err := renderPrepare(prepareData{Host: h.Name, User: h.ServiceUser, Shared: h.Shared, THPDir: f.cfg.thpDir, Tarball: tarball,
		RunID: p.mark.RunID, Version: p.mark.Version, layout: l})
	if err != nil {
		return out, err
	}
	if out.prepare, err = runScript(ctx, r, h, "yugabyte-prepare", script); err != nil {
		return out, err
	}
	if src.local != "" {
		if have, _ := out.prepare.Last("have_sha256"); have == src.sha256 {
			log.Info("upload skipped: the host has the tarball", "stage", "upload", "sha256", have)
		} else {
			start := time.Now()
			if err := provision.PutFile(ctx, r, h, src.local, tarball, 0o644); err != nil {
				return out, err
			}
			out.uploaded = true
			log.Info("uploaded", "stage", "upload", "dst", tarball, "elapsed", time.Since(start).Round(time.Millisecond))
		}
	}
	d := installData{Host: h.Name, User: h.ServiceUser, Tarball: tarball, SHA256: src.sha256, layout: l}
	var stdin io.Reader
	if src.url != "" {
		d.Download, d.URL, d.Proto = true, provision.RedactURL(src.url), "=https"
		if strings.HasPrefix(src.url, "http://") {
			d.Proto = "=http,https" // the sha256 was given: any copy will do
		}
		cfg := curlURL(src.url) + "\n"
		if src.shaURL != "" {
			cfg += curlURL(src.shaURL)
		}
		stdin = strings.NewReader(cfg + "\n")
	}
	if script, err = renderInstall(d); err != nil {
		return out, err
	}
	if out.install, err = runScriptIn(ctx, r, h, "yugabyte-install", script, stdin); err != nil {
		return out, err
	}
	out.software, _ = out.install.Last("software")
	if out.software == "" {
		return out, fmt.Errorf("yugabyte-install on %s: the script did not say where the software is", h.Name)
	}
	for _, k := range []string{"download", "extract", "post_install"} {
		if v, ok := out.install.Last(k); ok {
			log.Info(k, "stage", "install", "result", v)
		}
	}
	return out, nil
}

// curlURL is the line of a curl configuration file that names u: double
// quoted, with backslash and double quote escaped (u holds no control
// character: urlSource refuses them).
func curlURL(u string) string {
	return `url = "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(u) + `"`
}

// recordInstall puts what the hosts said into the deployment, and checks
// that they all have the same tarball, of the version asked for.
func recordInstall(dep *provision.Deployment, p plan, hosts []hostInstall, version string) error {
	set := dep.Settings
	set["rf"] = strconv.Itoa(p.rf)
	// The URL as recorded: a token in it stays out of deployment.json.
	set["source"] = provision.RedactURL(p.src.url) + p.src.local
	if len(p.settings.unknown) > 0 {
		set["unknown_flags_allowed"] = strings.Join(p.settings.unknown, ",")
	}
	shas := map[string][]string{}
	for _, h := range hosts {
		n := h.host.Name
		sha, _ := h.install.Last("sha256")
		shas[sha] = append(shas[sha], n)
		set["software@"+n] = h.software
		if _, ok := h.install.Last("sha256_expected_from"); ok && p.src.sha256 == "" {
			set["source.sha256_from@"+n] = provision.RedactURL(p.src.shaURL)
		}
		up := "downloaded on the host"
		if p.src.local != "" {
			up = "skipped (the host had it)"
			if h.uploaded {
				up = "uploaded"
			}
		}
		set["source.transfer@"+n] = up
		for _, k := range []string{"thp", "thp_before", "thp_action", "sysctl", "user_created"} {
			if v, ok := h.prepare.Last(k); ok {
				set["os."+k+"@"+n] = v
			}
		}
		// What was changed outside the run's own directories, for the
		// ledger: a user added, the kernel's hugepage settings.
		for _, k := range []string{"host_change", "user_created", "thp_changed"} {
			if v, ok := h.prepare.Last(k); ok {
				if dep.HostChanges == nil {
					dep.HostChanges = map[string][]string{}
				}
				dep.HostChanges[n] = append(dep.HostChanges[n], v)
			}
		}
		if lines := h.prepare.All("chrony"); len(lines) > 0 {
			set["os.clock@"+n] = parseChrony(lines).String()
		} else if v, ok := h.prepare.Last("clock"); ok {
			set["os.clock@"+n] = v
		}
	}
	if len(shas) != 1 {
		var parts []string
		for sha, names := range shas {
			parts = append(parts, fmt.Sprintf("%s on %s", sha, strings.Join(names, ",")))
		}
		sort.Strings(parts)
		return fmt.Errorf("yugabyte: the hosts have different tarballs: %s", strings.Join(parts, "; "))
	}
	for sha := range shas {
		set["source.sha256"] = sha
	}
	shaFrom := p.src.shaFrom
	if shaFrom == "" {
		for _, h := range hosts {
			if _, ok := h.install.Last("sha256_expected_from"); ok {
				shaFrom = "the release server's .sha over https (" + provision.RedactURL(p.src.shaURL) + ")"
			}
		}
	}
	set["source.sha256_checked_against"] = orDefault(shaFrom, "nothing (https URL without FlavorSpec.SHA256 and no .sha published; recorded as computed)")

	top := path.Base(hosts[0].software)
	dirVersion := strings.TrimPrefix(top, "yugabyte-")
	switch {
	case version == "":
		dep.Version = dirVersion
	case version == dirVersion || strings.HasPrefix(version, dirVersion+"-"):
		dep.Version = version
	default:
		return exitcode.Errorf(exitcode.Config, "yugabyte: FlavorSpec.Version is %s, but the tarball holds %s/", version, top)
	}
	return nil
}
