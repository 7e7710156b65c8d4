// Package postgres is the "postgres" database flavor: Debian's PostgreSQL,
// a primary on the first db host and streaming replicas on the others,
// with commits acknowledged by a quorum of standbys (ANY n/2), the closest
// analogue of YugabyteDB's RF=3 on one primary. The primary is the YSQL
// endpoint. It stands in for YugabyteDB where its tarball cannot be had.
//
// Everything the flavor writes on a host lives in the run's own directory
// under the host's first data directory (or its base when it has none):
// OwnDir(parent)/postgres (data, run, log, pgpass) and OwnDir(parent)/pgs,
// the server's socket directory, 0700 and the service user's. The server
// is closed by default: no trust, the flavor's own scripts reach it as
// postgres only over that socket (peer authentication mapped from the
// service user), and over TCP only the cluster's hosts, each by its /32,
// with SCRAM passwords the orchestrator generated.
package postgres

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/scripts"
)

//go:embed scripts/*.tmpl
var templates embed.FS

// Defaults of the flavor.
const (
	DefaultPort     = 5433 // YSQL's port: clear of a distribution's cluster on 5432
	DefaultDBUser   = "ybbench"
	DefaultDatabase = "ycsb"
)

// Flavor installs the postgres flavor. Wipe and Stop take the run id from
// the cluster's Name: the pipeline names every cluster after its run.
type Flavor struct {
	// ReadyTimeout bounds the wait for the replicas to stream.
	ReadyTimeout time.Duration
}

var _ provision.Flavor = (*Flavor)(nil)

// Name is the flavor's name in specs and deployment.json.
const Name = "postgres"

// Name is "postgres".
func (f *Flavor) Name() string { return Name }

// FlavorTraits: a PostgreSQL primary with streaming replicas serves YSQL
// clients (the PostgreSQL wire protocol), from the hosts' packages.
func FlavorTraits() provision.FlavorTraits {
	return provision.FlavorTraits{APIs: []provision.API{provision.YSQL}}
}

// Describe: PostgreSQL comes from the db hosts' packages.
func (f *Flavor) Describe(provision.FlavorSpec) string { return "(the db hosts' PostgreSQL packages)" }

// node is the data of one host's scripts.
type node struct {
	Host, User, Bin, Primary string
	// Parent is the directory the run's own directory Own is made in;
	// Dir (Own/postgres) holds data, run, log and pgpass.
	Parent, Own, Dir string
	Sock             string // Unix socket directory (Own/pgs): short, as socket paths are limited to 107 bytes
	Run, Version     string // the run owning Own, and ybbench's version (its marker)
	Quorum           string // synchronous_standby_names, e.g. ANY 1 ("db-2", "db-3")
	Port             int
	Shared           bool
	DBUser, Database string
	Conf             []string
	HBA              []string // pg_hba.conf lines
}

var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// render renders one of the flavor's scripts; the shared own library
// (own_claim, own_check, own_release) is defined for every one of them.
func render(name string, n node) (string, error) {
	text, err := templates.ReadFile("scripts/" + name + ".sh.tmpl")
	if err != nil {
		return "", err
	}
	funcs := template.FuncMap{
		"sqllit": func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" },
	}
	maps.Copy(funcs, provision.OwnFuncs)
	return provision.RenderWith(name, scripts.Own+string(text), n, funcs)
}

// Settings a run may give (FlavorSpec.Settings): port, database, user,
// and any postgresql.conf parameter as "conf.<name>".
func settings(s provision.FlavorSpec) (port int, database, user string, conf map[string]string, err error) {
	port, database, user = DefaultPort, DefaultDatabase, DefaultDBUser
	conf = map[string]string{}
	for k, v := range s.Settings {
		switch {
		case k == "port":
			port, err = strconv.Atoi(v)
			if err != nil || port < 1 || port > 65535 {
				return 0, "", "", nil, fmt.Errorf("postgres: port %q is not a port", v)
			}
		case k == "database":
			database = v
		case k == "user":
			user = v
		case strings.HasPrefix(k, "conf."):
			name := strings.TrimPrefix(k, "conf.")
			if !ident.MatchString(name) || strings.ContainsAny(v, "'\n\\") {
				return 0, "", "", nil, fmt.Errorf("postgres: setting %s=%q is not a safe postgresql.conf line", name, v)
			}
			conf[name] = v
		default:
			return 0, "", "", nil, fmt.Errorf("postgres: unknown setting %q (want port, database, user or conf.<parameter>)", k)
		}
	}
	if !ident.MatchString(database) || !ident.MatchString(user) {
		return 0, "", "", nil, fmt.Errorf("postgres: database %q and user %q must be plain lower-case names", database, user)
	}
	return port, database, user, conf, nil
}

// Quorum is synchronous_standby_names for replicas: a commit waits for a
// majority of the nodes, the primary and n/2 standbys ("" without replicas).
func Quorum(replicas []string) string {
	if len(replicas) == 0 {
		return ""
	}
	quoted := make([]string, len(replicas))
	for i, r := range replicas {
		quoted[i] = `"` + r + `"` // names like db-2 are not plain identifiers
	}
	return fmt.Sprintf("ANY %d (%s)", (len(replicas)+1)/2, strings.Join(quoted, ", "))
}

// ConfLines is the postgresql.conf of one node: the flavor's fixed settings
// and the run's overrides (the quorum is set apart, once the replicas
// stream). It is a pure function.
func ConfLines(h infra.Host, sock string, port int, replicas int, overrides map[string]string) []string {
	c := map[string]string{
		"listen_addresses":        "'" + h.PrivateIP + "'",
		"port":                    strconv.Itoa(port),
		"unix_socket_directories": "'" + sock + "'",
		// The directory is the service user's, 0700: the mode of the
		// socket itself is then no way in for anyone else.
		"unix_socket_permissions": "0700",
		"password_encryption":     "'scram-sha-256'",
		"max_connections":         "1100", // 256 threads × 2 clients × 2, with headroom
		"shared_buffers":          "'256MB'",
		"wal_level":               "replica",
		// Each replica's base backup takes two WAL senders (-X stream) and
		// its streaming one more; replicas are built at the same time.
		"max_wal_senders": strconv.Itoa(max(10, 3*replicas+2)),
		// Keep the WAL a concurrent base backup still needs: several fast
		// checkpoints at once otherwise recycle segments it has not
		// streamed yet ("requested WAL segment has already been removed").
		"wal_keep_size":      "'512MB'",
		"hot_standby":        "on",
		"synchronous_commit": "on",
		"logging_collector":  "off",
	}
	for k, v := range overrides {
		c[k] = v
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + " = " + c[k]
	}
	return lines
}

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

// newNode is the data common to a host's scripts.
func newNode(h infra.Host, run, version string) node {
	return node{Host: h.Name, User: h.ServiceUser, Parent: parent(h), Own: provision.OwnDir(parent(h)), Dir: dir(h), Sock: sockDir(h),
		Run: run, Version: version, Shared: h.Shared}
}

// HBA is the primary's pg_hba.conf: the flavor's own scripts as postgres
// over the Unix socket (peer, mapped from the service user only, see
// pg_ident.conf), replication from the db hosts and the bench database
// (and the maintenance database postgres) from the cluster's db and client
// hosts, each by its own address, with
// SCRAM passwords; with noAuth the seeds' open setup (trust) for the same
// addresses. Nothing for any other address. It is a pure function.
func HBA(c *infra.Cluster, database, user string, noAuth bool) ([]string, error) {
	method := "scram-sha-256"
	if noAuth {
		method = "trust"
	}
	lines := []string{"local all postgres peer map=ybbench"}
	// The agents look their database up in the maintenance database
	// (postgres) before using it (ysql.createdatabase): the bench role may
	// connect there too, where it can read the catalogs and change nothing.
	dbs := database
	if database != "postgres" {
		dbs += ",postgres"
	}
	var repl, bench []string
	seen := map[string]bool{}
	for i := range c.Hosts {
		h := &c.Hosts[i]
		isDB, isClient := h.Has(infra.RoleDB), h.Has(infra.RoleClient)
		if !isDB && !isClient {
			continue
		}
		a, err := netip.ParseAddr(h.PrivateIP)
		if err != nil {
			return nil, exitcode.Errorf(exitcode.Config, "postgres: host %q: private IP %q is not an IP address", h.Name, h.PrivateIP)
		}
		cidr := netip.PrefixFrom(a, a.BitLen()).String()
		if isDB {
			repl = append(repl, fmt.Sprintf("host replication repl %s %s", cidr, method))
		}
		if !seen[cidr] {
			seen[cidr] = true
			bench = append(bench, fmt.Sprintf("host %s %s %s %s", dbs, user, cidr, method))
		}
	}
	return append(append(lines, repl...), bench...), nil
}

// Install prepares every db host, starts the primary, then the replicas,
// and waits until every replica streams.
func (f *Flavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep, err := f.install(ctx, r, c, s)
	return dep, exitcode.Wrap(exitcode.Provision, err)
}

// record prefixes of the node script's output.
const (
	binRecord    = "bin="
	changeRecord = "YBCHANGE "
)

func (f *Flavor) install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dbs := c.ByRole(infra.RoleDB)
	if len(dbs) == 0 {
		return nil, exitcode.Errorf(exitcode.Config, "postgres: the cluster has no db host")
	}
	port, database, dbUser, overrides, err := settings(s)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	if problems := provision.CheckDBHosts(dbs); len(problems) > 0 {
		return nil, exitcode.Errorf(exitcode.Config, "postgres: refusing the db hosts:\n  %s", strings.Join(problems, "\n  "))
	}
	for _, h := range dbs {
		if err := checkSocketPath(h, port); err != nil {
			return nil, err
		}
	}
	run := s.RunID
	if run == "" {
		run = c.Name // the pipeline names every cluster after its run
	}
	version := s.ToolVersion
	if version == "" {
		version = "unknown"
	}
	hba, err := HBA(c, database, dbUser, s.NoAuth)
	if err != nil {
		return nil, err
	}
	pw, _, err := provision.Secret(s.SecretsDir, "db-password")
	if err != nil {
		return nil, err
	}
	rpw, _, err := provision.Secret(s.SecretsDir, "replication-password")
	if err != nil {
		return nil, err
	}
	// The primary gets SCRAM verifiers, never the passwords: they reach no
	// file, environment or command line on it.
	pwv, err := scramVerifier(pw)
	if err != nil {
		return nil, err
	}
	rpwv, err := scramVerifier(rpw)
	if err != nil {
		return nil, err
	}
	popts := provision.ParallelOptions{Limit: s.Parallel, FailFast: true}

	// 1. Every db host: binaries, service user, the run's own directory.
	type prepared struct {
		bin     string
		changes []string
	}
	preps, err := provision.Parallel(ctx, dbs, popts, func(ctx context.Context, h infra.Host) (prepared, error) {
		script, err := render("node", newNode(h, run, version))
		if err != nil {
			return prepared{}, err
		}
		res, err := r.Run(ctx, h, script, provision.Step("postgres-node"))
		if err != nil {
			return prepared{}, err
		}
		var p prepared
		for _, l := range strings.Split(string(res.Stdout), "\n") {
			if b, ok := strings.CutPrefix(l, binRecord); ok {
				p.bin = b
			} else if ch, ok := strings.CutPrefix(l, changeRecord); ok {
				p.changes = append(p.changes, ch)
			}
		}
		p.changes = append(p.changes, provision.CreatedParents(res.Stdout)...)
		if err := provision.OwnError(h, res); err != nil {
			// What the host changed before the failure is still said.
			for _, ch := range p.changes {
				log.Warn("changed on the host before the failure", "host", h.Name, "change", ch)
			}
			return p, err
		}
		if p.bin == "" {
			return p, fmt.Errorf("postgres: %s: could not find the PostgreSQL binaries", h.Name)
		}
		return p, nil
	})
	changes := map[string][]string{}
	for i, h := range dbs {
		if i < len(preps) && len(preps[i].changes) > 0 {
			changes[h.Name] = preps[i].changes
		}
	}
	// fail keeps what the hosts changed (a package, a user) in the result
	// of a failed install, so that the run's ledger records it all the same.
	fail := func(err error) (*provision.Deployment, error) {
		if len(changes) == 0 {
			return nil, err
		}
		return &provision.Deployment{Flavor: "postgres", HostChanges: changes}, err
	}
	if err != nil {
		return fail(err)
	}
	primary := dbs[0]
	var replicas []string
	for _, h := range dbs[1:] {
		replicas = append(replicas, h.Name)
	}
	// 2. The primary.
	log.Info("starting the primary", "host", primary.Name)
	pn := newNode(primary, run, version)
	pn.Bin, pn.Port, pn.DBUser, pn.Database, pn.Quorum, pn.HBA = preps[0].bin, port, dbUser, database, Quorum(replicas), hba
	pn.Conf = ConfLines(primary, pn.Sock, port, len(replicas), overrides)
	if err := runScript(ctx, r, primary, "primary", pn, pwv+"\n"+rpwv+"\n"); err != nil {
		return fail(err)
	}
	// 3. The replicas, from a base backup of the primary.
	if len(dbs) > 1 {
		_, err := provision.Parallel(ctx, dbs[1:], popts, func(ctx context.Context, h infra.Host) (struct{}, error) {
			n := newNode(h, run, version)
			n.Bin, n.Port, n.Primary = preps[indexOf(dbs, h.Name)].bin, port, primary.PrivateIP
			n.Conf = ConfLines(h, n.Sock, port, len(replicas), overrides)
			// The replication password goes to the replica's pgpass
			// (0600, the service user's) through the script's stdin.
			return struct{}{}, runScript(ctx, r, h, "replica", n, rpw+"\n")
		})
		if err != nil {
			return fail(err)
		}
		if err := runScript(ctx, r, primary, "quorum", pn, ""); err != nil {
			return fail(err)
		}
		if err := f.waitStreaming(ctx, r, primary, pn, replicas); err != nil {
			return fail(err)
		}
	}
	dep := &provision.Deployment{Flavor: "postgres", User: dbUser, PasswordFile: filepath.Join(s.SecretsDir, "db-password"),
		Database: database, Settings: map[string]string{}}
	if len(changes) > 0 {
		dep.HostChanges = changes
	}
	dep.YSQL = []provision.Endpoint{{Host: primary.Name, Addr: primary.PrivateIP, Port: port}}
	st, err := settingsOf(ctx, r, primary, pn)
	if err != nil {
		return fail(err)
	}
	for k, v := range st {
		dep.Settings[k] = v
	}
	dep.Version = st["server_version"]
	dep.Settings["topology"] = fmt.Sprintf("primary %s, streaming replicas %s, synchronous commit to a quorum", primary.Name, strings.Join(replicas, ", "))
	if s.NoAuth {
		dep.Settings["auth"] = "off"
	} else {
		dep.Settings["auth"] = "scram-sha-256"
	}
	dep.Settings["pg_hba"] = strings.Join(hba, "; ")
	for _, h := range dbs {
		dep.Processes = append(dep.Processes, provision.Process{Host: h.Name, Name: "postgres", PIDFile: filepath.Join(dir(h), "run", "postgres.pid")})
	}
	return dep, nil
}

func indexOf(hosts []infra.Host, name string) int {
	for i, h := range hosts {
		if h.Name == name {
			return i
		}
	}
	return 0
}

// runScript runs one of the flavor's scripts; stdin, when not empty, is
// the script's standard input (how secrets reach it: never its
// environment, which every process it starts would inherit).
func runScript(ctx context.Context, r provision.Runner, h infra.Host, name string, n node, stdin string) error {
	script, err := render(name, n)
	if err != nil {
		return err
	}
	opts := []provision.RunOption{provision.Step("postgres-" + name)}
	if stdin != "" {
		opts = append(opts, provision.Stdin(strings.NewReader(stdin)))
	}
	res, err := r.Run(ctx, h, script, opts...)
	if err != nil {
		return err
	}
	if err := provision.OwnError(h, res); err != nil {
		return fmt.Errorf("postgres %s on %s: %w", name, h.Name, err)
	}
	return nil
}

// waitStreaming polls the primary until every replica streams (a real
// readiness check, bounded).
func (f *Flavor) waitStreaming(ctx context.Context, r provision.Runner, primary infra.Host, n node, replicas []string) error {
	timeout := f.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	deadline := time.Now().Add(timeout)
	script, err := render("status", n)
	if err != nil {
		return err
	}
	last := ""
	for {
		res, err := r.Run(ctx, primary, script, provision.Step("postgres-status"))
		if err != nil {
			return err
		}
		if res.ExitCode == 0 {
			last = strings.TrimSpace(string(res.Stdout))
			streaming := 0
			for _, l := range strings.Split(last, "\n") {
				if f := strings.Fields(l); len(f) == 3 && f[1] == "streaming" && (f[2] == "quorum" || f[2] == "sync") {
					streaming++
				}
			}
			if streaming == len(replicas) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres: replicas not streaming after %v (primary reports: %q)", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func settingsOf(ctx context.Context, r provision.Runner, h infra.Host, n node) (map[string]string, error) {
	script, err := render("settings", n)
	if err != nil {
		return nil, err
	}
	res, err := r.Run(ctx, h, script, provision.Step("postgres-settings"))
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			out[k] = v
		}
	}
	return out, nil
}

// scramIterations is PostgreSQL's default scram_iterations.
const scramIterations = 4096

// scramVerifier is the SCRAM-SHA-256 verifier PostgreSQL stores for a
// password (RFC 5802 / 7677, in pg_authid's format). Given as a role's
// PASSWORD, the server stores it as it is, so the password itself never
// reaches the host. The password is ASCII (hex), which SASLprep leaves as
// it is.
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("postgres: SCRAM verifier: %w", err)
	}
	mac := func(key []byte, msg string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key"))), nil
}

// Stop stops every db host's server (idempotent); a run directory another
// run made is refused, not stopped.
func (f *Flavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	if err := checkHosts(c); err != nil {
		return err
	}
	return f.each(ctx, r, c, func(ctx context.Context, h infra.Host) error {
		return runScript(ctx, r, h, "stop", newNode(h, c.Name, ""), "")
	})
}

// Wipe stops the servers and removes the run's own directory on each db
// host (the one the flavor claimed), nothing else: a directory another
// run or a user made stays, and is reported.
func (f *Flavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	if err := f.Stop(ctx, r, c); err != nil {
		return err
	}
	return f.each(ctx, r, c, func(ctx context.Context, h infra.Host) error {
		return provision.Release(ctx, r, h, c.Name, []string{parent(h)})
	})
}

func checkHosts(c *infra.Cluster) error {
	if problems := provision.CheckDBHosts(c.ByRole(infra.RoleDB)); len(problems) > 0 {
		return exitcode.Errorf(exitcode.Config, "postgres: refusing the db hosts:\n  %s", strings.Join(problems, "\n  "))
	}
	if c.Name == "" {
		return exitcode.Errorf(exitcode.Tool, "postgres: the cluster has no name (its run's id)")
	}
	return nil
}

func (f *Flavor) each(ctx context.Context, r provision.Runner, c *infra.Cluster, fn func(context.Context, infra.Host) error) error {
	_, err := provision.Parallel(ctx, c.ByRole(infra.RoleDB), provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		return struct{}{}, fn(ctx, h)
	})
	return exitcode.Wrap(exitcode.Provision, err)
}
