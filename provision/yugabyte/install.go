package yugabyte

import (
	"context"
	"errors"
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
	"github.com/ybbench/ybbench/internal/shellquote"
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
	if err := f.stopServers(ctx, r, p.mark.RunID, p.db, log.With("stage", "stop-previous")); err != nil {
		return nil, err
	}
	t := p.topology()
	software := map[string]string{}
	for _, h := range hosts {
		software[h.host.Name] = h.software
	}
	startAll := func(srv server, on []infra.Host) error {
		res, err := provision.Parallel(ctx, on, par, func(ctx context.Context, h infra.Host) (records, error) {
			return f.startServer(ctx, r, h, srv, software[h.Name], serverFlags(srv, h, t))
		})
		for i, h := range on {
			recordStart(dep, h, srv, res[i], serverFlags(srv, h, t), log)
		}
		if err != nil {
			return fmt.Errorf("yugabyte: starting %s: %w", srv, err)
		}
		return nil
	}
	api := f.api(r)
	progress := func(stage string) func(string) {
		return func(p string) { log.Info("waiting", "stage", stage, "for", p) }
	}
	if err := startAll(master, p.masters); err != nil {
		return nil, err
	}
	if _, err := api.waitReady(ctx, p.masters, nil, p.rf, false, f.cfg.readyTimeout, f.cfg.pollInterval, progress("leader")); err != nil {
		return nil, f.diagnose(ctx, r, p.db, err)
	}
	if err := startAll(tserver, p.db); err != nil {
		return nil, err
	}
	obs, err := api.waitReady(ctx, p.masters, p.db, p.rf, true, f.cfg.readyTimeout, f.cfg.pollInterval, progress("cluster"))
	if err != nil {
		return nil, f.diagnose(ctx, r, p.db, err)
	}
	dep.Settings["ready.leader"] = obs.leaders[0].PrivateIP
	dep.Settings["ready.seen"] = obs.summary()
	if obs.version != "" {
		dep.Settings["version.api"] = obs.version
	}
	log.Info("ready", "leader", obs.leaders[0].Name, "elapsed", time.Since(start).Round(time.Millisecond))

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
	return dep, nil
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
// character: planInstall refuses them).
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

// startServer starts one server on one host.
func (f *Flavor) startServer(ctx context.Context, r provision.Runner, h infra.Host, srv server, software string, fl []serverFlag) (records, error) {
	l := layoutOf(h)
	script, err := renderStart(startData{Host: h.Name, User: h.ServiceUser, Software: software, Flags: flagStrings(fl), Limits: ulimits, proc: procOf(l, srv), layout: l})
	if err != nil {
		return nil, err
	}
	return runScript(ctx, r, h, "yugabyte-start-"+string(srv), script)
}

// recordStart puts one started server's flags, pid and limits into the
// deployment.
func recordStart(dep *provision.Deployment, h infra.Host, srv server, recs records, fl []serverFlag, log *slog.Logger) {
	set := dep.Settings
	key := string(srv) + ".%s@" + h.Name
	set[fmt.Sprintf(key, "flags")] = shellquote.Join(flagStrings(fl))
	if pid, ok := recs.Last("pid"); ok {
		log.Info("started", "stage", "start", "host", h.Name, "server", srv, "pid", pid)
	}
	if lines := recs.All("limits"); len(lines) > 0 {
		sum, off := summarizeLimits(lines)
		set[fmt.Sprintf(key, "limits")] = sum
		if len(off) > 0 {
			set[fmt.Sprintf(key, "limits_off_spec")] = strings.Join(off, " ")
			log.Warn("limits differ from specs/yugabyte-deploy.md §2.2", "host", h.Name, "server", srv, "items", strings.Join(off, " "))
		}
	} else if v, ok := recs.Last("limits_unavailable"); ok {
		set[fmt.Sprintf(key, "limits")] = "unavailable: " + v
	}
	if failed := recs.All("ulimit_failed"); len(failed) > 0 {
		set[fmt.Sprintf(key, "ulimit_failed")] = strings.Join(failed, " ")
	}
}

// diagnose adds to a readiness failure what the hosts say of their
// servers (running or exited, with the end of their output). It is best
// effort and bounded.
func (f *Flavor) diagnose(ctx context.Context, r provision.Runner, hosts []infra.Host, err error) error {
	var re *ReadyError
	if !errors.As(err, &re) {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	res, _ := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (string, error) {
		l := layoutOf(h)
		script, err := renderStatus(stopData{Host: h.Name, Procs: []proc{procOf(l, master), procOf(l, tserver)}, layout: l})
		if err != nil {
			return "", err
		}
		recs, err := runScript(ctx, r, h, "yugabyte-status", script)
		if err != nil {
			return h.Name + ": status unknown (" + err.Error() + ")", nil
		}
		parts := recs.All("status")
		for _, srv := range []server{master, tserver} {
			if tail := recs.All("tail_" + string(srv)); len(tail) > 0 {
				parts = append(parts, string(srv)+" output ends: "+strings.Join(tail, " | "))
			}
		}
		return h.Name + ": " + strings.Join(parts, ", "), nil
	})
	re.Hosts = strings.Join(res, "; ")
	return re
}
