package cassandra

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// Authentication (on unless the run asks for --db-auth=off):
//
//   - every node runs PasswordAuthenticator, with no authorizer (see
//     cassandra.yaml.tmpl): a login needs a password, and a role that logs
//     in may do what the workloads do without permission checks;
//   - two roles, each with a generated password kept only in a 0600 file
//     of FlavorSpec.SecretsDir on the orchestrator: BenchUser (LOGIN, not a
//     superuser), which the agents use, and AdminUser (a superuser), which
//     only the flavor uses;
//   - system_auth replicated to every node, so a login does not depend on
//     one node;
//   - Cassandra's default role cassandra/cassandra dropped.
//
// All of it goes over CQL from the orchestrator (the gocql driver): no
// password is ever on a command line, in a script or in an environment on
// a host.
const (
	BenchUser = "ybbench"
	AdminUser = "ybbench_admin"
	// defaultUser is the superuser Cassandra makes on a fresh cluster,
	// with the password "cassandra".
	defaultUser = "cassandra"
)

// Files of the secrets directory.
const (
	benchPasswordFile = "db-password"
	adminPasswordFile = "db-admin-password"
)

// login is one set of credentials; an empty User logs in with none.
type login struct{ User, Password string }

// loginList is the credentials the probe tries, in order; Install changes
// it while the probe may run.
type loginList struct {
	mu   sync.Mutex
	list []login
}

func (l *loginList) get() []login {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) == 0 {
		return []login{{}}
	}
	return append([]login(nil), l.list...)
}

func (l *loginList) set(list ...login) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = list
}

// credentials are the run's two roles.
type credentials struct {
	bench, admin         login
	benchFile, adminFile string
}

func loadCredentials(dir string) (credentials, error) {
	var c credentials
	var err error
	c.bench.User, c.admin.User = BenchUser, AdminUser
	if c.bench.Password, c.benchFile, err = provision.Secret(dir, benchPasswordFile); err != nil {
		return c, err
	}
	if c.admin.Password, c.adminFile, err = provision.Secret(dir, adminPasswordFile); err != nil {
		return c, err
	}
	return c, nil
}

// authRefused reports whether err is a node refusing a login (wrong
// credentials, or none where a password is needed), as opposed to a node
// that cannot be reached. gocql passes the server's message on as text.
func authRefused(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "password are incorrect") || strings.Contains(s, "authentication required")
}

// setupRoles makes the run's roles on a cluster whose nodes have all
// joined, and returns what it did. On a fresh cluster, logged in as the
// default role: both roles made (system_auth still has one replica per
// row, each on the node that owns it), then, as the admin, system_auth
// replicated to every node and its tables read at ALL, which makes every
// replica hold every row (a blocking read repair: a repair of this small
// keyspace without nodetool), checked by reading the roles at ONE through
// every node, and the default role dropped. On a cluster that already has
// the roles (an install again), the same steps find nothing to do.
func (f *Flavor) setupRoles(ctx context.Context, db []infra.Host, cr credentials, deadline time.Time) ([]string, error) {
	seed := db[0]
	var did []string
	s, err := f.session(seed, cr.admin)
	if authRefused(err) {
		// A fresh cluster: only the default role logs in.
		def, derr := f.session(seed, login{defaultUser, defaultUser})
		if derr != nil {
			return nil, fmt.Errorf("cassandra: %s accepts neither the run's admin role (%v) nor Cassandra's default role (%v): its roles were set by another installation; Wipe it first", seed.Name, err, derr)
		}
		for _, r := range []struct {
			l     login
			super bool
		}{{cr.admin, true}, {cr.bench, false}} {
			q := fmt.Sprintf("CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = %t", r.l.User, r.l.Password, r.super)
			if err := def.Query(q).WithContext(ctx).Exec(); err != nil {
				def.Close()
				return nil, fmt.Errorf("cassandra: create role %s: %w", r.l.User, err)
			}
			did = append(did, "role "+r.l.User+" created")
		}
		def.Close()
		s, err = f.pollSession(ctx, seed, cr.admin, deadline)
	}
	if err != nil {
		return nil, fmt.Errorf("cassandra: log in to %s as %s: %w", seed.Name, AdminUser, err)
	}
	defer s.Close()

	// system_auth on every node.
	want := strconv.Itoa(len(db))
	var repl map[string]string
	if err := s.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'system_auth'`).WithContext(ctx).Scan(&repl); err != nil {
		return nil, fmt.Errorf("cassandra: read the replication of system_auth: %w", err)
	}
	if !strings.HasSuffix(repl["class"], "SimpleStrategy") || repl["replication_factor"] != want {
		q := fmt.Sprintf("ALTER KEYSPACE system_auth WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %s}", want)
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			return nil, fmt.Errorf("cassandra: replicate system_auth to %s nodes: %w", want, err)
		}
		did = append(did, "system_auth replicated to "+want+" nodes (was "+repl["class"]+" "+repl["replication_factor"]+")")
	}
	if err := f.spreadAuth(ctx, s, db, cr, deadline); err != nil {
		return nil, err
	}

	// The default role goes (a superuser that everyone knows the password
	// of): the admin is the superuser now.
	var n int
	if err := s.Query(`SELECT count(*) FROM system_auth.roles WHERE role = ?`, defaultUser).WithContext(ctx).Consistency(gocql.All).Scan(&n); err != nil {
		return nil, fmt.Errorf("cassandra: look for the default role: %w", err)
	}
	if n > 0 {
		if err := s.Query(`DROP ROLE IF EXISTS ` + defaultUser).WithContext(ctx).Exec(); err != nil {
			return nil, fmt.Errorf("cassandra: drop the default role: %w", err)
		}
		did = append(did, "default role "+defaultUser+" dropped")
	}
	return did, nil
}

// spreadAuth makes every node hold every row of system_auth: each table
// read at ALL (a read that finds replicas disagreeing repairs them before
// it answers), until every node, asked at ONE as coordinator and replica,
// lists both of the run's roles.
func (f *Flavor) spreadAuth(ctx context.Context, s *gocql.Session, db []infra.Host, cr credentials, deadline time.Time) error {
	var tables []string
	it := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'system_auth'`).WithContext(ctx).Iter()
	var name string
	for it.Scan(&name) {
		tables = append(tables, name)
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("cassandra: list system_auth's tables: %w", err)
	}
	for {
		for _, t := range tables {
			it := s.Query(`SELECT * FROM system_auth.` + t).WithContext(ctx).Consistency(gocql.All).Iter()
			for it.MapScan(map[string]any{}) {
			}
			if err := it.Close(); err != nil {
				return fmt.Errorf("cassandra: read system_auth.%s at ALL: %w", t, err)
			}
		}
		missing := f.rolesMissing(ctx, db, cr)
		if len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cassandra: system_auth is not on every node: %s", strings.Join(missing, "; "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(f.cfg.pollInterval):
		}
	}
}

// rolesMissing says which nodes do not hold both of the run's roles
// themselves: each node is asked at ONE (it is a replica of every row, so
// it answers from its own data).
func (f *Flavor) rolesMissing(ctx context.Context, db []infra.Host, cr credentials) []string {
	var out []string
	for _, h := range db {
		s, err := f.session(h, cr.admin)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", h.Name, err))
			continue
		}
		for _, role := range []string{cr.admin.User, cr.bench.User} {
			var n int
			err := s.Query(`SELECT count(*) FROM system_auth.roles WHERE role = ?`, role).WithContext(ctx).Consistency(gocql.One).Scan(&n)
			if err != nil || n != 1 {
				out = append(out, fmt.Sprintf("%s does not hold role %s (%v)", h.Name, role, err))
			}
		}
		s.Close()
	}
	return out
}

// verifyAuth waits until every node refuses a login without credentials
// and as the default role, and accepts the bench role (a node keeps a
// login it checked in its credentials cache for a while: the refusal
// shows once that has passed).
func (f *Flavor) verifyAuth(ctx context.Context, db []infra.Host, cr credentials, deadline time.Time) error {
	for {
		var problems []string
		for _, h := range db {
			for _, l := range []login{{}, {defaultUser, defaultUser}} {
				s, err := f.session(h, l)
				if err == nil {
					s.Close()
					problems = append(problems, fmt.Sprintf("%s accepts a login %s", h.Name, describeLogin(l)))
				} else if !authRefused(err) {
					problems = append(problems, fmt.Sprintf("%s: %v", h.Name, err))
				}
			}
			s, err := f.session(h, cr.bench)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s refuses the bench role: %v", h.Name, err))
			} else {
				s.Close()
			}
		}
		if len(problems) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cassandra: authentication is not in force: %s", strings.Join(problems, "; "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(f.cfg.pollInterval):
		}
	}
}

func describeLogin(l login) string {
	if l.User == "" {
		return "without credentials"
	}
	return "as " + l.User + "/" + l.Password
}

// session opens a session to one node as l.
func (f *Flavor) session(h infra.Host, l login) (*gocql.Session, error) {
	return nodeSession(f.target, h, 20*time.Second, l)
}

// pollSession opens a session to one node as l, trying again until the
// deadline while the node refuses the login (a role just made may not be
// readable at once everywhere).
func (f *Flavor) pollSession(ctx context.Context, h infra.Host, l login, deadline time.Time) (*gocql.Session, error) {
	for {
		s, err := f.session(h, l)
		if err == nil || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(f.cfg.pollInterval):
		}
	}
}

// useCredentials loads the run's roles before anything is installed (a
// run that cannot keep them installs nothing) and gives the probe the
// logins that work before the roles are made.
func (f *Flavor) useCredentials(p plan, secrets string) (credentials, error) {
	if p.noAuth {
		f.logins.set(login{})
		return credentials{}, nil
	}
	cr, err := loadCredentials(secrets)
	if err != nil {
		return cr, err
	}
	// The bench role on a cluster this run set up already, else the
	// default role of a fresh one (until the run's roles are made).
	f.logins.set(cr.bench, login{defaultUser, defaultUser})
	return cr, nil
}

// enableAuth, on a cluster whose nodes have all joined, makes the run's
// roles, drops the default one and checks that every node refuses what it
// should; the deployment records how the cluster is secured (or that it
// is open: --db-auth=off) and which role the agents log in as.
func (f *Flavor) enableAuth(ctx context.Context, p plan, cr credentials, dep *provision.Deployment, log *slog.Logger) error {
	set := dep.Settings
	if p.noAuth {
		set["auth"] = "off"
		set["auth.detail"] = "AllowAllAuthenticator: any client connects without credentials (--db-auth=off)"
		return nil
	}
	t0 := time.Now()
	deadline := t0.Add(f.cfg.readyTimeout)
	did, err := f.setupRoles(ctx, p.db, cr, deadline)
	if err != nil {
		return err
	}
	// From here on the probe logs in as the bench role only.
	f.logins.set(cr.bench)
	if err := f.verifyAuth(ctx, p.db, cr, deadline); err != nil {
		return err
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
	return nil
}
