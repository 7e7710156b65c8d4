package cassandra

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

// Install installs Cassandra on the cluster's db hosts and starts it:
//
//  1. check the spec, the hosts and the artifact cache (FlavorSpec.Source,
//     default DefaultSource()); build the tarball once on the
//     orchestrator (or reuse it);
//  2. on every db host at once: tools, service user, Java 11 or 17,
//     directories; upload the tarball unless the host already has it,
//     check its sha256, extract it under Base/cassandra/home;
//  3. one host at a time, the seed (the first db host) first: write the
//     node's cassandra.yaml and start it (a node already running with the
//     same configuration is kept), then wait until it has joined.
//
// The Deployment lists a YCQL endpoint per node, the server processes
// with their pid files, and in Settings the yaml keys written, the heap,
// the JVM and what each host did. Errors carry exit code 2 (bad spec,
// hosts or artifact cache) or 4 (provisioning). Nodes started before a
// failure keep running, for inspection; Stop or Wipe removes them.
func (f *Flavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep, err := f.install(ctx, r, c, s)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Provision, err)
	}
	return dep, nil
}

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

// command is a node's JVM command line: the cache's JVM options, the
// heap, the jamm agent, and the node's own directories and properties.
func command(java string, l layout, a artifacts, heap string, ringDelay time.Duration) []string {
	cmd := append([]string{java}, a.Options...)
	return append(cmd,
		"-Xms"+heap, "-Xmx"+heap,
		"-javaagent:"+path.Join(l.Home, a.Jamm),
		"-Djava.io.tmpdir="+l.Tmp,
		"-Djna.tmpdir="+l.Tmp,
		"-Dcassandra.config=file://"+path.Join(l.Conf, "cassandra.yaml"),
		"-Dlogback.configurationFile=file://"+path.Join(l.Conf, "logback.xml"),
		"-Dcassandra.logdir="+l.Logs,
		"-Dcassandra.storagedir="+l.DataRoots[0],
		"-Dcassandra-foreground=yes",
		"-Dcassandra.skip_wait_for_gossip_to_settle=0",
		"-Dcassandra.ring_delay_ms="+strconv.FormatInt(ringDelay.Milliseconds(), 10),
		"-Dcassandra.triggers_dir="+path.Join(l.Conf, "triggers"),
		"-XX:HeapDumpPath="+l.Tmp,
		"-XX:ErrorFile="+path.Join(l.Logs, "hs_err_%p.log"),
		"-cp", l.Conf+":"+path.Join(l.Home, "lib")+"/*",
		"org.apache.cassandra.service.CassandraDaemon",
	)
}

// hostInstall is what preparing and installing one host found.
type hostInstall struct {
	java, javaVersion string
	transfer          string // uploaded, or skipped
	installed         string // openjdk-17-jre-headless when the flavor installed it
	userCreated       bool
	// changes are what the host's scripts changed outside the run's own
	// directories (Deployment.HostChanges).
	changes []string
}

func (f *Flavor) install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	f.via.set(r)
	log := f.cfg.logger
	if s.Logger != nil {
		log = s.Logger
	}
	log = log.With("flavor", Name)
	start := time.Now()
	p, err := planInstall(c, s)
	if err != nil {
		return nil, err
	}
	// Credentials first: a run that cannot keep them installs nothing.
	var cr credentials
	if p.noAuth {
		f.logins.set(login{})
	} else {
		if cr, err = loadCredentials(s.SecretsDir); err != nil {
			return nil, err
		}
		// The bench role on a cluster this run set up already, else the
		// default role of a fresh one (until the run's roles are made).
		f.logins.set(cr.bench, login{defaultUser, defaultUser})
	}
	tarDir := f.cfg.tarballDir
	if tarDir == "" {
		tarDir = filepath.Join(filepath.Dir(p.src.Dir), "dist")
	}
	tb, err := ensureTarball(p.src, tarDir)
	if err != nil {
		return nil, err
	}
	log.Info("artifacts", "stage", "tarball", "path", tb.Path, "sha256", tb.SHA256, "bytes", tb.Size, "built", tb.Built)

	// 2. Every db host at once.
	par := provision.ParallelOptions{Limit: s.Parallel, FailFast: true}
	hosts, err := provision.Parallel(ctx, p.db, par, func(ctx context.Context, h infra.Host) (hostInstall, error) {
		return f.installHost(ctx, r, h, p, tb, log.With("host", h.Name))
	})
	if err != nil {
		return nil, fmt.Errorf("cassandra: install: %w", err)
	}
	log.Info("installed", "stage", "install", "elapsed", time.Since(start).Round(time.Millisecond))

	// 3. The seed, then the others one by one.
	dep := &provision.Deployment{Flavor: Name, Settings: map[string]string{}}
	set := dep.Settings
	seed := p.db[0]
	var obs observation
	yamls := map[string]map[string]string{}
	for i, h := range p.db {
		l := layoutOf(h)
		yd := nodeYAML(h, p.clusterName, p.tokens[i], seed.PrivateIP, p.noAuth, p.set.yaml)
		y, err := renderYAML(yd)
		if err != nil {
			return nil, err
		}
		if yamls[h.Name], err = flattenYAML(y); err != nil {
			return nil, err
		}
		cmd := command(hosts[i].java, l, p.src, p.set.heap, f.cfg.ringDelay)
		script, err := renderStart(startData{Host: h.Name, User: h.ServiceUser, Address: h.PrivateIP, NativePort: NativePort,
			StoragePort: StoragePort, Grace: f.graceSeconds(), YAML: y, Command: cmd, layout: l})
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		recs, err := runScript(ctx, r, h, "cassandra-start", script)
		if err != nil {
			return nil, err
		}
		what, _ := recs.Last("start")
		if v, ok := recs.Last("restart"); ok {
			what = "restarted: " + v
		}
		pid, _ := recs.Last("pid")
		set["start@"+h.Name] = what
		log.Info("start", "stage", "start", "host", h.Name, "result", what, "pid", pid, "token", p.tokens[i])
		obs, err = f.waitJoined(ctx, r, p.db[:i+1], p.db, log)
		if err != nil {
			return nil, err
		}
		// A node keeps the tokens it first started with: data left by a
		// cluster of another size would leave the ring uneven.
		if got := obs.states[i].Tokens; obs.states[i].Tokens != nil && (len(got) != 1 || got[0] != p.tokens[i]) {
			return nil, fmt.Errorf("cassandra: %s owns tokens %v, not %s: its data is from an earlier cluster of another layout; Wipe it first", h.Name, got, p.tokens[i])
		}
		took := time.Since(t0).Round(100 * time.Millisecond)
		set["join_seconds@"+h.Name] = strconv.FormatFloat(took.Seconds(), 'f', 1, 64)
		log.Info("joined", "stage", "start", "host", h.Name, "elapsed", took, "nodes", i+1)
		if i == 0 {
			set["cmdline@"+h.Name] = strings.Join(cmd, " ")
		}
	}
	log.Info("ready", "elapsed", time.Since(start).Round(time.Millisecond), "seen", obs.summary())

	if p.noAuth {
		set["auth"] = "off"
		set["auth.detail"] = "AllowAllAuthenticator: any client connects without credentials (--db-auth=off)"
	} else {
		t0 := time.Now()
		deadline := t0.Add(f.cfg.readyTimeout)
		did, err := f.setupRoles(ctx, p.db, cr, deadline)
		if err != nil {
			return nil, err
		}
		// From here on the probe logs in as the bench role only.
		f.logins.set(cr.bench)
		if err := f.verifyAuth(ctx, p.db, cr, deadline); err != nil {
			return nil, err
		}
		if len(did) == 0 {
			did = []string{"roles and system_auth as a previous install left them"}
		}
		log.Info("authentication", "stage", "auth", "did", strings.Join(did, "; "), "elapsed", time.Since(t0).Round(time.Millisecond))
		set["auth"] = "on"
		set["auth.detail"] = fmt.Sprintf("PasswordAuthenticator, no authorizer; bench role %s (LOGIN, not a superuser), admin role %s (superuser, used by the flavor only), "+
			"system_auth replicated to %d nodes, default role %s dropped; refused without credentials and as %s/%s on every node",
			BenchUser, AdminUser, len(p.db), defaultUser, defaultUser, defaultUser)
		set["auth.setup"] = strings.Join(did, "; ")
		dep.User = BenchUser
		dep.PasswordFile = cr.benchFile
		set["auth.admin_password_file"] = cr.adminFile
	}

	dep.Version = obs.states[0].ReleaseVersion
	for i, h := range p.db {
		dep.YCQL = append(dep.YCQL, provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: NativePort})
		dep.Processes = append(dep.Processes, provision.Process{Host: h.Name, Name: Name, PIDFile: layoutOf(h).PIDFile})
		set["java@"+h.Name] = hosts[i].java
		set["java.version@"+h.Name] = hosts[i].javaVersion
		set["source.transfer@"+h.Name] = hosts[i].transfer
		if hosts[i].installed != "" {
			set["java.installed@"+h.Name] = hosts[i].installed
		}
		set["host_id@"+h.Name] = obs.states[i].HostID
		if len(hosts[i].changes) > 0 {
			if dep.HostChanges == nil {
				dep.HostChanges = map[string][]string{}
			}
			dep.HostChanges[h.Name] = hosts[i].changes
		}
	}
	recordYAML(set, p.db, yamls)
	set["heap"] = p.set.heap
	set["jvm.options"] = strings.Join(p.src.Options, " ")
	set["ring_delay_ms"] = strconv.FormatInt(f.cfg.ringDelay.Milliseconds(), 10)
	set["gossip_settle"] = "skipped (-Dcassandra.skip_wait_for_gossip_to_settle=0)"
	set["source"] = p.src.Dir
	set["source.jar"] = p.src.Jar
	set["source.tarball"] = tb.Name
	set["source.sha256"] = tb.SHA256
	set["schema_version"] = obs.states[0].SchemaVersion
	set["ready.seen"] = obs.summary()
	set["topology"] = fmt.Sprintf("%d nodes, num_tokens 1 each, seed %s; replication is per keyspace (the agents create theirs)", len(p.db), seed.Name)
	if s.RF > 0 {
		set["rf"] = strconv.Itoa(s.RF)
	}
	return dep, nil
}

// installHost prepares one host and installs the artifacts there.
func (f *Flavor) installHost(ctx context.Context, r provision.Runner, h infra.Host, p plan, tb tarball, log *slog.Logger) (hostInstall, error) {
	var out hostInstall
	l := layoutOf(h)
	script, err := renderPrepare(prepareData{Host: h.Name, User: h.ServiceUser, Shared: h.Shared, Java: p.set.java,
		RunID: p.runID, Version: p.version, layout: l})
	if err != nil {
		return out, err
	}
	recs, err := runScript(ctx, r, h, "cassandra-prepare", script)
	if err != nil {
		return out, err
	}
	out.java, _ = recs.Last("java")
	out.javaVersion, _ = recs.Last("java_version")
	out.installed, _ = recs.Last("java_installed")
	out.changes = recs.All("host_change")
	if out.java == "" {
		return out, fmt.Errorf("cassandra-prepare on %s: the script did not say which java to use", h.Name)
	}
	if u, ok := recs.Last("user_created"); ok {
		log.Info("service user created", "stage", "prepare", "user", u)
	}
	log.Info("java", "stage", "prepare", "java", out.java, "version", out.javaVersion, "installed", out.installed)
	remote := path.Join(l.Dist, tb.Name)
	if have, _ := recs.Last("have_sha256"); have == tb.SHA256 {
		out.transfer = "skipped (the host has it)"
		log.Info("upload skipped: the host has the artifacts", "stage", "upload", "sha256", have)
	} else {
		t0 := time.Now()
		if err := provision.PutFile(ctx, r, h, tb.Path, remote, 0o644); err != nil {
			return out, err
		}
		out.transfer = "uploaded"
		log.Info("uploaded", "stage", "upload", "dst", remote, "bytes", tb.Size, "elapsed", time.Since(t0).Round(time.Millisecond))
	}
	script, err = renderInstall(installData{Host: h.Name, User: h.ServiceUser, Tarball: remote, SHA256: tb.SHA256,
		Jar: p.src.Jar, JavaBin: out.java, layout: l})
	if err != nil {
		return out, err
	}
	recs, err = runScript(ctx, r, h, "cassandra-install", script)
	if err != nil {
		return out, err
	}
	if v, ok := recs.Last("extract"); ok {
		log.Info("extract", "stage", "install", "result", v)
	}
	return out, nil
}

// waitJoined polls the started nodes until they form one cluster, at most
// the ready timeout; the last started node's process is checked every few
// polls, so a node that died fails the wait at once.
func (f *Flavor) waitJoined(ctx context.Context, r provision.Runner, started, all []infra.Host, log *slog.Logger) (observation, error) {
	node := started[len(started)-1]
	t0 := time.Now()
	wctx, cancel := context.WithTimeout(ctx, f.cfg.readyTimeout)
	defer cancel()
	var last observation
	var problems []string
	for poll := 1; ; poll++ {
		last = probeAll(wctx, f.cfg.probe, started)
		if problems = last.problems(all); len(problems) == 0 {
			return last, nil
		}
		if poll%5 == 0 {
			log.Info("waiting", "stage", "join", "host", node.Name, "for", problems[0])
			if st, tail := f.status(ctx, r, node); strings.HasPrefix(st, "exited") {
				return last, &ReadyError{Waited: time.Since(t0), Node: node.Name, Problems: append(problems, node.Name+"'s node "+st), Seen: last.summary(), Hosts: node.Name + ": " + tail}
			}
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-wctx.Done():
			return last, f.diagnose(ctx, r, started, &ReadyError{Waited: time.Since(t0), Node: node.Name, Problems: problems, Seen: last.summary()})
		case <-time.After(f.cfg.pollInterval):
		}
	}
}

// status says whether a host's node runs, and the end of its output.
func (f *Flavor) status(ctx context.Context, r provision.Runner, h infra.Host) (string, string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	script, err := renderStatus(stopData{Host: h.Name, layout: layoutOf(h)})
	if err != nil {
		return "unknown", err.Error()
	}
	recs, err := runScript(ctx, r, h, "cassandra-status", script)
	if err != nil {
		return "unknown", shortErr(err)
	}
	st, _ := recs.Last("status")
	tail := append(recs.All("out"), recs.All("error")...)
	return st, st + "; output ends: " + strings.Join(tail, " | ")
}

// diagnose adds to a readiness failure what the hosts say of their nodes.
func (f *Flavor) diagnose(ctx context.Context, r provision.Runner, hosts []infra.Host, err error) error {
	var re *ReadyError
	if !errors.As(err, &re) {
		return err
	}
	var parts []string
	for _, h := range hosts {
		_, tail := f.status(ctx, r, h)
		parts = append(parts, h.Name+": "+tail)
	}
	re.Hosts = strings.Join(parts, "; ")
	return re
}

// flattenYAML turns a rendered cassandra.yaml into key → value: scalars as
// written, lists joined with ",", the seed provider as its seeds.
func flattenYAML(text string) (map[string]string, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("cassandra: the rendered cassandra.yaml is not YAML: %w", err)
	}
	out := map[string]string{}
	for k, v := range doc {
		switch v := v.(type) {
		case []any:
			var items []string
			for _, it := range v {
				if m, ok := it.(map[string]any); ok && k == "seed_provider" {
					if ps, ok := m["parameters"].([]any); ok && len(ps) > 0 {
						if pm, ok := ps[0].(map[string]any); ok {
							items = append(items, fmt.Sprint(pm["seeds"]))
						}
					}
					continue
				}
				items = append(items, fmt.Sprint(it))
			}
			out[k] = strings.Join(items, ",")
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	return out, nil
}

// recordYAML puts the yaml keys into the settings: "yaml.<key>" when every
// node has the same value, else "yaml.<key>@<host>" per node.
func recordYAML(set map[string]string, hosts []infra.Host, yamls map[string]map[string]string) {
	keys := map[string]bool{}
	for _, y := range yamls {
		for k := range y {
			keys[k] = true
		}
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		same := true
		first := yamls[hosts[0].Name][k]
		for _, h := range hosts[1:] {
			if yamls[h.Name][k] != first {
				same = false
			}
		}
		if same {
			set["yaml."+k] = first
			continue
		}
		for _, h := range hosts {
			set["yaml."+k+"@"+h.Name] = yamls[h.Name][k]
		}
	}
}
