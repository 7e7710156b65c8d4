// Package postgres is the "postgres" database flavor: Debian's PostgreSQL,
// a primary on the first db host and streaming replicas on the others,
// with commits acknowledged by a quorum of standbys (ANY n/2), the closest
// analogue of YugabyteDB's RF=3 on one primary. The primary is the YSQL
// endpoint. It stands in for YugabyteDB where its tarball cannot be had.
package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
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
)

//go:embed scripts/*.tmpl
var scripts embed.FS

// Defaults of the flavor.
const (
	DefaultPort     = 5433 // YSQL's port: clear of a distribution's cluster on 5432
	DefaultDBUser   = "ybbench"
	DefaultDatabase = "ycsb"
)

// Flavor installs the postgres flavor.
type Flavor struct {
	// ReadyTimeout bounds the wait for the replicas to stream.
	ReadyTimeout time.Duration
}

var _ provision.Flavor = (*Flavor)(nil)

// Name is "postgres".
func (f *Flavor) Name() string { return "postgres" }

// node is the data of one host's scripts.
type node struct {
	Host, User, Dir, Bin, Primary string
	Sock                          string // Unix socket directory: short, as socket paths are limited to 107 bytes
	Quorum                        string // synchronous_standby_names, e.g. ANY 1 ("db-2", "db-3")
	Port                          int
	Shared                        bool
	DBUser, Database              string
	Conf                          []string
}

var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

func render(name string, n node) (string, error) {
	text, err := scripts.ReadFile("scripts/" + name + ".sh.tmpl")
	if err != nil {
		return "", err
	}
	return provision.RenderWith(name, string(text), n, template.FuncMap{
		"sqllit": func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" },
	})
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
func ConfLines(h infra.Host, dir string, port int, replicas int, overrides map[string]string) []string {
	c := map[string]string{
		"listen_addresses":        "'" + h.PrivateIP + "'",
		"port":                    strconv.Itoa(port),
		"unix_socket_directories": "'" + sockDir(dir) + "'",
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

// sockDir is a short directory for the server's Unix socket, unique per
// data directory (local hosts share /tmp).
func sockDir(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return "/tmp/ybbpg-" + hex.EncodeToString(sum[:5])
}

// dir is where the flavor keeps everything on a host.
func dir(h infra.Host) string {
	if len(h.DataDirs) > 0 {
		return filepath.Join(h.DataDirs[0], "postgres")
	}
	return filepath.Join(h.Base, "postgres")
}

// Install prepares every db host, starts the primary, then the replicas,
// and waits until every replica streams.
func (f *Flavor) Install(ctx context.Context, r provision.Runner, c *infra.Cluster, s provision.FlavorSpec) (*provision.Deployment, error) {
	dep, err := f.install(ctx, r, c, s)
	return dep, exitcode.Wrap(exitcode.Provision, err)
}

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
	pw, err := secret(s.SecretsDir, "db-password")
	if err != nil {
		return nil, err
	}
	rpw, err := secret(s.SecretsDir, "replication-password")
	if err != nil {
		return nil, err
	}
	env := map[string]string{"YB_DB_PASSWORD": pw, "YB_REPL_PASSWORD": rpw}
	popts := provision.ParallelOptions{Limit: s.Parallel, FailFast: true}

	// 1. Every db host: binaries, service user, directories.
	bins, err := provision.Parallel(ctx, dbs, popts, func(ctx context.Context, h infra.Host) (string, error) {
		script, err := render("node", node{Host: h.Name, User: h.ServiceUser, Dir: dir(h), Sock: sockDir(dir(h)), Shared: h.Shared})
		if err != nil {
			return "", err
		}
		res, err := r.Run(ctx, h, script, provision.Step("postgres-node"))
		if err != nil {
			return "", err
		}
		if err := res.Err(); err != nil {
			return "", err
		}
		for _, l := range strings.Split(string(res.Stdout), "\n") {
			if b, ok := strings.CutPrefix(l, "bin="); ok {
				return b, nil
			}
		}
		return "", fmt.Errorf("postgres: could not find the PostgreSQL binaries")
	})
	if err != nil {
		return nil, err
	}
	primary := dbs[0]
	var replicas []string
	for _, h := range dbs[1:] {
		replicas = append(replicas, h.Name)
	}
	// 2. The primary.
	log.Info("starting the primary", "host", primary.Name)
	pn := node{Host: primary.Name, User: primary.ServiceUser, Dir: dir(primary), Sock: sockDir(dir(primary)), Bin: bins[0], Port: port,
		DBUser: dbUser, Database: database, Conf: ConfLines(primary, dir(primary), port, len(replicas), overrides), Quorum: Quorum(replicas)}
	if err := runScript(ctx, r, primary, "primary", pn, env); err != nil {
		return nil, err
	}
	// 3. The replicas, from a base backup of the primary.
	if len(dbs) > 1 {
		_, err := provision.Parallel(ctx, dbs[1:], popts, func(ctx context.Context, h infra.Host) (struct{}, error) {
			i := indexOf(dbs, h.Name)
			n := node{Host: h.Name, User: h.ServiceUser, Dir: dir(h), Sock: sockDir(dir(h)), Bin: bins[i], Port: port, Primary: primary.PrivateIP,
				Conf: ConfLines(h, dir(h), port, len(replicas), overrides)}
			return struct{}{}, runScript(ctx, r, h, "replica", n, map[string]string{"YB_REPL_PASSWORD": rpw})
		})
		if err != nil {
			return nil, err
		}
		if err := runScript(ctx, r, primary, "quorum", pn, nil); err != nil {
			return nil, err
		}
		if err := f.waitStreaming(ctx, r, primary, pn, replicas); err != nil {
			return nil, err
		}
	}
	dep := &provision.Deployment{Flavor: "postgres", User: dbUser, PasswordFile: filepath.Join(s.SecretsDir, "db-password"),
		Database: database, Settings: map[string]string{}}
	dep.YSQL = []provision.Endpoint{{Host: primary.Name, Addr: primary.PrivateIP, Port: port}}
	st, err := settingsOf(ctx, r, primary, pn)
	if err != nil {
		return nil, err
	}
	for k, v := range st {
		dep.Settings[k] = v
	}
	dep.Version = st["server_version"]
	dep.Settings["topology"] = fmt.Sprintf("primary %s, streaming replicas %s, synchronous commit to a quorum", primary.Name, strings.Join(replicas, ", "))
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

func runScript(ctx context.Context, r provision.Runner, h infra.Host, name string, n node, env map[string]string) error {
	script, err := render(name, n)
	if err != nil {
		return err
	}
	res, err := r.Run(ctx, h, script, provision.Step("postgres-"+name), provision.Env(env))
	if err != nil {
		return err
	}
	return res.Err()
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

// secret returns a password kept in a 0600 file, creating it once.
func secret(dir, name string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("postgres: no secrets directory")
	}
	path := filepath.Join(dir, name)
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	buf := make([]byte, 18)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	pw := hex.EncodeToString(buf)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return pw, os.WriteFile(path, []byte(pw+"\n"), 0o600)
}

// Stop stops every db host's server (idempotent).
func (f *Flavor) Stop(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	return f.each(ctx, r, c, "stop")
}

// Wipe stops the servers and removes everything the flavor wrote.
func (f *Flavor) Wipe(ctx context.Context, r provision.Runner, c *infra.Cluster) error {
	if err := f.each(ctx, r, c, "stop"); err != nil {
		return err
	}
	return f.each(ctx, r, c, "wipe")
}

func (f *Flavor) each(ctx context.Context, r provision.Runner, c *infra.Cluster, name string) error {
	_, err := provision.Parallel(ctx, c.ByRole(infra.RoleDB), provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		return struct{}{}, runScript(ctx, r, h, name, node{Host: h.Name, User: h.ServiceUser, Dir: dir(h), Sock: sockDir(dir(h))}, nil)
	})
	return exitcode.Wrap(exitcode.Provision, err)
}
