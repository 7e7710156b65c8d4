//go:build integration

package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
)

const serviceUser = testenv.ServiceUser

// needs skips the test when something it needs is missing, or fails it
// when the test environment is required (make test).
func needs(t *testing.T, ok bool, what string) {
	t.Helper()
	testenv.Need(t, ok, what)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// setup checks the machine and makes the test's directory, which the
// service user can pass through (t.TempDir makes it and its parent 0700).
func setup(t *testing.T) string {
	t.Helper()
	needs(t, os.Geteuid() == 0, "needs root (the servers run as the service user)")
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	needs(t, len(bins) > 0, "needs Debian's postgresql (scripts/setup.sh installs it)")
	testenv.EnsureServiceUser(t)
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// freePort is a TCP port free on every address given (bound and released:
// the servers bind it a moment later).
func freePort(t *testing.T, addrs ...string) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", addrs[0]+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		ok := true
		var ls []net.Listener
		for _, a := range addrs[1:] {
			l2, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			ls = append(ls, l2)
		}
		for _, l2 := range ls {
			l2.Close()
		}
		l.Close()
		if ok {
			return port
		}
	}
	t.Fatal("no port free on all of", addrs)
	return 0
}

// snapshot is every entry under root: path → mode, owner and, for files,
// a digest of the content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		v := fmt.Sprintf("%v uid=%d gid=%d", fi.Mode(), st.Uid, st.Gid)
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			v += " sha256=" + hex.EncodeToString(sum[:])
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, when string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s changed: %q, was %q", when, p, after[p], v)
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared (%s)", when, p, v)
		}
	}
}

// userData makes a user's files in a data directory: a PostgreSQL data
// directory of theirs (postgres/ with a PG_VERSION) and a file.
func userData(t *testing.T, d string) {
	t.Helper()
	for p, content := range map[string]string{
		"postgres/PG_VERSION":      "15\n",
		"postgres/base/1/16384":    "the user's table\n",
		"postgres/postgresql.conf": "port = 5432\n",
		"notes.txt":                "keep me\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(d, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, p), []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(d, "postgres"), 0o700); err != nil {
		t.Fatal(err)
	}
}

// processLeaks names every process whose environment or command line holds
// one of the secrets.
func processLeaks(t *testing.T, secrets ...string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var leaks []string
	checked := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		for _, f := range []string{"environ", "cmdline"} {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), f))
			if err != nil {
				continue // gone since the listing
			}
			checked++
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
					leaks = append(leaks, fmt.Sprintf("pid %s (%s): %s", e.Name(), strings.TrimSpace(string(comm)), f))
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no process could be read in /proc")
	}
	return leaks
}

// connect connects to the bench database over TCP, from local (when not
// empty) as the source address.
func connect(ctx context.Context, addr string, port int, user, password, database, local string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=10", addr, port, user, database))
	if err != nil {
		return nil, err
	}
	cfg.Password = password
	if local != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
		cfg.DialFunc = d.DialContext
	}
	return pgx.ConnectConfig(ctx, cfg)
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestIntegrationPrimaryAndReplicaClosedAndOwned installs a primary
// (127.0.0.1, on a data directory that already holds a user's postgres/
// and a file) and a streaming replica (127.0.0.2) on this machine, and
// checks: the user's files are untouched through install and Wipe; the
// flavor's files are in the run's own directory, the socket in a 0700
// directory there; another OS user is refused over the socket and over
// TCP without the password; the bench role's password works over TCP
// from an address in pg_hba.conf and not from one outside it; the bench
// role is not a superuser and can create tables in its database; no
// process has a password in its environment or command line; after Wipe
// no PG_VERSION of the run, no socket under /tmp and no own directory
// remains.
func TestIntegrationPrimaryAndReplicaClosedAndOwned(t *testing.T) {
	dir := setup(t)
	disk := filepath.Join(dir, "disks", "db1-d0")
	userData(t, disk)
	userBefore := snapshot(t, disk)
	port := freePort(t, "127.0.0.1", "127.0.0.2")
	run := fmt.Sprintf("it-pg-%d", os.Getpid())
	c := &infra.Cluster{Name: run, Provider: "test", Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "127.0.0.1", PublicIP: "127.0.0.1",
			Base: filepath.Join(dir, "hosts", "db1"), DataDirs: []string{disk}, ServiceUser: serviceUser, Shared: true},
		{Name: "db2", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "127.0.0.2", PublicIP: "127.0.0.2",
			Base: filepath.Join(dir, "hosts", "db2"), ServiceUser: serviceUser, Shared: true},
		{Name: "c1", Roles: []infra.Role{infra.RoleClient}, PrivateIP: "127.0.0.9", PublicIP: "127.0.0.9",
			Base: filepath.Join(dir, "hosts", "c1"), ServiceUser: serviceUser, Shared: true},
	}}
	for _, h := range c.Hosts {
		if err := os.MkdirAll(h.Base, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := localexec.New(localexec.WithLogDir(filepath.Join(dir, "logs")))
	f := &Flavor{ReadyTimeout: 2 * time.Minute}
	wiped := false
	t.Cleanup(func() {
		if !wiped {
			if err := f.Wipe(context.Background(), r, c); err != nil {
				t.Errorf("cleanup wipe: %v", err)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	secrets := filepath.Join(dir, "secrets")
	dep, err := f.Install(ctx, r, c, provision.FlavorSpec{SecretsDir: secrets, RunID: run, ToolVersion: "test",
		Settings: map[string]string{"port": strconv.Itoa(port)}, Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	if err != nil {
		t.Fatalf("install: %v (logs in %s)", err, filepath.Join(dir, "logs"))
	}
	pwb, err := os.ReadFile(filepath.Join(secrets, "db-password"))
	if err != nil {
		t.Fatal(err)
	}
	rpwb, err := os.ReadFile(filepath.Join(secrets, "replication-password"))
	if err != nil {
		t.Fatal(err)
	}
	pw, rpw := strings.TrimSpace(string(pwb)), strings.TrimSpace(string(rpwb))
	if dep.Settings["auth"] != "scram-sha-256" || len(dep.HostChanges) != 0 {
		t.Errorf("auth %q, host changes %v (shared hosts: none)", dep.Settings["auth"], dep.HostChanges)
	}

	// The user's files, untouched; the flavor's, in the run's own directory.
	sameTree(t, "after install", userBefore, filterOut(snapshot(t, disk), filepath.Join(disk, provision.OwnDirName)))
	own := provision.OwnDir(disk)
	marker, err := os.ReadFile(filepath.Join(own, provision.OwnerMarker))
	if err != nil || !strings.Contains(string(marker), "run="+run+"\n") {
		t.Errorf("%s: marker %q, %v", own, marker, err)
	}
	for _, p := range []string{filepath.Join(own, "postgres", "data", "PG_VERSION"), filepath.Join(c.Hosts[1].Base, "ybbench", "postgres", "data", "standby.signal")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the run's data is not where it belongs: %v", err)
		}
	}
	svc, _ := user.Lookup(serviceUser)
	for _, h := range c.Hosts[:2] {
		sock := sockDir(h)
		fi, err := os.Stat(sock)
		if err != nil {
			t.Fatalf("socket directory: %v", err)
		}
		if fi.Mode().Perm() != 0o700 || strconv.Itoa(int(fi.Sys().(*syscall.Stat_t).Uid)) != svc.Uid {
			t.Errorf("%s: mode %v uid %d, want 0700 and the service user's (%s)", sock, fi.Mode().Perm(), fi.Sys().(*syscall.Stat_t).Uid, svc.Uid)
		}
		if _, err := os.Stat(filepath.Join(sock, ".s.PGSQL."+strconv.Itoa(port))); err != nil {
			t.Errorf("%s: the server's socket is not there: %v", h.Name, err)
		}
	}

	// Another OS user gets nowhere: not over the socket (its directory is
	// the service user's alone), not over TCP without the password, as
	// postgres or as the bench role. Each refusal is the one that protects
	// (not psql missing or the server down): the socket's permissions, the
	// server's authentication refusal. The controls: the same command over
	// TCP with the bench role's password, and the socket as its owner.
	bin := filepath.Dir(mustGlob(t, "/usr/lib/postgresql/*/bin/psql"))
	psqlAs := func(osUser string, env []string, args ...string) (string, error) {
		cmd := exec.Command("runuser", append(append([]string{"-u", osUser, "--", "env", "-i"}, env...),
			append([]string{bin + "/psql", "-X", "-w", "-tA", "-p", strconv.Itoa(port), "-c", "SELECT 1"}, args...)...)...)
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	socketRefusal := regexp.MustCompile(`connection to server on socket .*failed: Permission denied`)
	authRefusal := regexp.MustCompile(`fe_sendauth: no password supplied|password authentication failed for user|no pg_hba\.conf entry for`)
	for _, c := range []struct {
		args    []string
		refusal *regexp.Regexp
	}{
		{[]string{"-h", sockDir(c.Hosts[0]), "-U", "postgres", "-d", "postgres"}, socketRefusal},
		{[]string{"-h", sockDir(c.Hosts[0]), "-U", "ybbench", "-d", "ycsb"}, socketRefusal},
		{[]string{"-h", "127.0.0.1", "-U", "postgres", "-d", "postgres"}, authRefusal},
		{[]string{"-h", "127.0.0.1", "-U", "ybbench", "-d", "ycsb"}, authRefusal},
	} {
		for _, osUser := range []string{"nobody", "postgres"} {
			if _, err := user.Lookup(osUser); err != nil {
				continue
			}
			out, err := psqlAs(osUser, nil, c.args...)
			switch {
			case err == nil:
				t.Errorf("as %s, psql %v got in: %s", osUser, c.args, out)
			case !c.refusal.MatchString(out):
				t.Errorf("as %s, psql %v failed, but not with %s:\n%s", osUser, c.args, c.refusal, out)
			}
		}
	}
	withPassword := []string{"PGPASSWORD=" + pw}
	if out, err := psqlAs("nobody", withPassword, "-h", "127.0.0.1", "-U", "ybbench", "-d", "ycsb"); err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("the control: as nobody over TCP with the bench role's password: %v\n%s", err, out)
	}
	// The socket admits its owner, the service user, whom the server knows
	// as the superuser by peer authentication (the flavor's own way in).
	if out, err := psqlAs(serviceUser, nil, "-h", sockDir(c.Hosts[0]), "-U", "postgres", "-d", "postgres"); err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("the control: as the service user over the socket: %v\n%s", err, out)
	}

	// The bench role over TCP: with its password from an address of the
	// cluster (127.0.0.1 is db1), not without it, and not from elsewhere.
	conn, err := connect(ctx, "127.0.0.1", port, dep.User, pw, dep.Database, "")
	if err != nil {
		t.Fatalf("the bench role with its password from db1's address: %v", err)
	}
	defer conn.Close(context.Background())
	var super, createRole bool
	if err := conn.QueryRow(ctx, "SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user").Scan(&super, &createRole); err != nil || super || createRole {
		t.Errorf("bench role: superuser %v, createrole %v, %v", super, createRole, err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE usertable (ycsb_key text PRIMARY KEY, field0 text)"); err != nil {
		t.Errorf("the bench role cannot create a table in its database: %v", err)
	}
	// remote_apply: the commit returns once the quorum (the one standby)
	// has applied it, so the replica's read below needs no waiting.
	if _, err := conn.Exec(ctx, "SET synchronous_commit = remote_apply"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO usertable VALUES ('k1', 'v1')"); err != nil {
		t.Errorf("insert: %v", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE other"); sqlState(err) != "42501" {
		t.Errorf("the bench role may create databases: %v", err)
	}
	// The agents look their database up in the maintenance database.
	if mc, err := connect(ctx, "127.0.0.1", port, dep.User, pw, "postgres", ""); err != nil {
		t.Errorf("the bench role into the maintenance database postgres: %v", err)
	} else {
		mc.Close(context.Background())
	}
	if _, err := connect(ctx, "127.0.0.1", port, dep.User, "wrong", dep.Database, ""); sqlState(err) != "28P01" {
		t.Errorf("a wrong password: %v, want 28P01 (password authentication failed)", err)
	}
	if _, err := connect(ctx, "127.0.0.1", port, dep.User, pw, dep.Database, "127.0.0.5"); sqlState(err) != "28000" {
		t.Errorf("from 127.0.0.5, outside the cluster: %v, want 28000 (no pg_hba.conf entry)", err)
	}
	if _, err := connect(ctx, "127.0.0.1", port, "repl", rpw, dep.Database, ""); sqlState(err) != "28000" {
		t.Errorf("the replication role into the bench database: %v, want 28000", err)
	}
	// The replica has the row (it streams from the primary).
	rc, err := connect(ctx, "127.0.0.2", port, dep.User, pw, dep.Database, "")
	if err != nil {
		t.Fatalf("the replica: %v", err)
	}
	defer rc.Close(context.Background())
	var inRecovery bool
	if err := rc.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil || !inRecovery {
		t.Errorf("db2 is not a standby: %v %v", inRecovery, err)
	}
	var v string
	if err := rc.QueryRow(ctx, "SELECT field0 FROM usertable WHERE ycsb_key = 'k1'").Scan(&v); err != nil || v != "v1" {
		t.Errorf("the replica has not the primary's row: %q %v", v, err)
	}

	// No process has a password in its environment or command line.
	if leaks := processLeaks(t, pw, rpw); len(leaks) > 0 {
		t.Errorf("passwords visible in processes:\n  %s", strings.Join(leaks, "\n  "))
	}

	// Wipe: the user's files as they were, nothing of the run left.
	conn.Close(context.Background())
	rc.Close(context.Background())
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatalf("wipe: %v", err)
	}
	wiped = true
	sameTree(t, "after wipe", userBefore, snapshot(t, disk))
	for _, h := range c.Hosts {
		if _, err := os.Stat(provision.OwnDir(h.Base)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %s remains: %v", h.Name, provision.OwnDir(h.Base), err)
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "PG_VERSION" && p != filepath.Join(disk, "postgres", "PG_VERSION") {
			t.Errorf("after wipe, %s remains", p)
		}
		return nil
	})
	if m, _ := filepath.Glob("/tmp/.s.PGSQL." + strconv.Itoa(port) + "*"); len(m) > 0 {
		t.Errorf("sockets under /tmp: %v", m)
	}
	for _, h := range c.Hosts[:2] {
		// Where the flavor used to put the socket: /tmp/ybbpg-<hash of the data directory>.
		for _, old := range []string{filepath.Join(parent(h), "postgres"), dir} {
			sum := sha256.Sum256([]byte(old))
			if _, err := os.Stat("/tmp/ybbpg-" + hex.EncodeToString(sum[:5])); err == nil {
				t.Errorf("a socket directory of the run remains under /tmp for %s", old)
			}
		}
	}
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Errorf("a second wipe: %v", err)
	}
}

// TestIntegrationForeignDirectoriesRefused: a data directory holding a
// ybbench/ without a marker, or one another run marked, stops the install
// with exit 4 naming it (and the run), and is left byte-identical, as is
// everything else in the data directory; nothing is started.
func TestIntegrationForeignDirectoriesRefused(t *testing.T) {
	dir := setup(t)
	r := localexec.New(localexec.WithLogDir(filepath.Join(dir, "logs")))
	port := freePort(t, "127.0.0.1")
	for _, tc := range []struct {
		name, marker, want string
	}{
		{"unmarked", "", "has no .ybbench-owner"},
		{"other-run", "run=someone-else\nversion=0.1\n", "belongs to run someone-else"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disk := filepath.Join(dir, "disks", tc.name)
			userData(t, disk)
			foreign := filepath.Join(disk, "ybbench")
			if err := os.MkdirAll(filepath.Join(foreign, "postgres", "data"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(foreign, "postgres", "data", "PG_VERSION"), []byte("15\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.marker != "" {
				if err := os.WriteFile(filepath.Join(foreign, provision.OwnerMarker), []byte(tc.marker), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, disk)
			c := &infra.Cluster{Name: "it-pg-" + tc.name, Provider: "test", Hosts: []infra.Host{
				{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "127.0.0.1", PublicIP: "127.0.0.1",
					Base: filepath.Join(dir, "hosts", tc.name), DataDirs: []string{disk}, ServiceUser: serviceUser, Shared: true},
			}}
			if err := os.MkdirAll(c.Hosts[0].Base, 0o755); err != nil {
				t.Fatal(err)
			}
			f := &Flavor{}
			_, err := f.Install(context.Background(), r, c, provision.FlavorSpec{SecretsDir: filepath.Join(dir, "secrets-"+tc.name),
				RunID: c.Name, ToolVersion: "test", Settings: map[string]string{"port": strconv.Itoa(port)}})
			if exitcode.Of(err) != exitcode.Provision || err == nil || !strings.Contains(err.Error(), foreign) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("install over %s: %v (exit %d), want exit 4 naming it and %q", foreign, err, exitcode.Of(err), tc.want)
			}
			sameTree(t, "after the refused install", before, snapshot(t, disk))
			// Stop and Wipe of this run leave the other's directory alone too,
			// and that is no failure of this run's teardown (nothing of it is
			// there): an install refused with exit 4 must not end in exit 6.
			if err := f.Wipe(context.Background(), r, c); err != nil {
				t.Errorf("wipe beside %s: %v, want it left alone without failing", foreign, err)
			}
			sameTree(t, "after wipe", before, snapshot(t, disk))
			if m, _ := filepath.Glob(filepath.Join(c.Hosts[0].Base, "*")); len(m) != 0 {
				t.Errorf("the refused install wrote in the base: %v", m)
			}
		})
	}
}

func filterOut(m map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for p, v := range m {
		if p != prefix && !strings.HasPrefix(p, prefix+"/") {
			out[p] = v
		}
	}
	return out
}

func mustGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		t.Fatalf("nothing matches %s", pattern)
	}
	return m[len(m)-1]
}

// TestIntegrationNoAuthIsMarkedAndStillLocal: with NoAuth (--db-auth=off)
// the bench role needs no password from the cluster's addresses, the
// deployment says auth=off, and still nothing else gets in: not from an
// address outside the cluster, not through the socket as another user.
func TestIntegrationNoAuthIsMarkedAndStillLocal(t *testing.T) {
	dir := setup(t)
	port := freePort(t, "127.0.0.1")
	c := &infra.Cluster{Name: fmt.Sprintf("it-pg-noauth-%d", os.Getpid()), Provider: "test", Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "127.0.0.1", PublicIP: "127.0.0.1",
			Base: filepath.Join(dir, "hosts", "db1"), ServiceUser: serviceUser, Shared: true},
	}}
	if err := os.MkdirAll(c.Hosts[0].Base, 0o755); err != nil {
		t.Fatal(err)
	}
	r := localexec.New(localexec.WithLogDir(filepath.Join(dir, "logs")))
	f := &Flavor{}
	t.Cleanup(func() {
		if err := f.Wipe(context.Background(), r, c); err != nil {
			t.Errorf("cleanup wipe: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dep, err := f.Install(ctx, r, c, provision.FlavorSpec{SecretsDir: filepath.Join(dir, "secrets"), RunID: c.Name, ToolVersion: "test",
		NoAuth: true, Settings: map[string]string{"port": strconv.Itoa(port)}})
	if err != nil {
		t.Fatalf("install: %v (logs in %s)", err, filepath.Join(dir, "logs"))
	}
	if dep.Settings["auth"] != "off" {
		t.Errorf("auth %q, want off", dep.Settings["auth"])
	}
	conn, err := connect(ctx, "127.0.0.1", port, dep.User, "", dep.Database, "")
	if err != nil {
		t.Fatalf("NoAuth: the bench role without a password from the cluster: %v", err)
	}
	conn.Close(context.Background())
	if _, err := connect(ctx, "127.0.0.1", port, dep.User, "", dep.Database, "127.0.0.5"); sqlState(err) != "28000" {
		t.Errorf("NoAuth, from 127.0.0.5 outside the cluster: %v, want 28000 (no pg_hba.conf entry)", err)
	}
	bin := filepath.Dir(mustGlob(t, "/usr/lib/postgresql/*/bin/psql"))
	cmd := exec.Command("runuser", "-u", "nobody", "--", "env", "-i", bin+"/psql", "-X", "-w", "-h", sockDir(c.Hosts[0]), "-p", strconv.Itoa(port), "-U", "postgres", "-d", "postgres", "-c", "SELECT 1")
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("NoAuth: nobody got in over the socket: %s", out)
	}
}
