//go:build integration

package cassandra

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	"github.com/ybbench/ybbench/provision/localexec"
	ybssh "github.com/ybbench/ybbench/provision/ssh"
)

// needs skips the test when something it needs is missing, or fails it
// when YBBENCH_TESTENV_REQUIRED=1 (make test).
func needs(t *testing.T, ok bool, what string) {
	t.Helper()
	testenv.Need(t, ok, what)
}

// countingRunner counts uploads.
type countingRunner struct {
	provision.Runner
	puts atomic.Int32
}

func (c *countingRunner) Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	c.puts.Add(1)
	return c.Runner.Put(ctx, h, dst, src, mode)
}

// TestIntegrationThreeNodeCluster installs a 3-node cluster on three
// "hosts" of this machine (127.0.0.2–4, Bases under a temporary
// directory), checks it over CQL (three nodes up, one schema version, a
// keyspace with RF 3 written and read at QUORUM), installs again (nothing
// uploaded, nodes kept), and stops and wipes it twice each.
func TestIntegrationThreeNodeCluster(t *testing.T) {
	needs(t, os.Geteuid() == 0, "needs root (the nodes run as the service user ybbench)")
	testenv.EnsureServiceUser(t)
	_, err := readSource(DefaultSource())
	needs(t, err == nil, fmt.Sprintf("needs the artifact cache: %v", err))

	dir := t.TempDir()
	// t.TempDir makes two directories, both 0700: the service user must
	// pass through them.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := &infra.Cluster{Name: "it-" + strconv.Itoa(os.Getpid()), Provider: "test"}
	for i := 1; i <= 3; i++ {
		c.Hosts = append(c.Hosts, infra.Host{
			Name: fmt.Sprintf("db%d", i), Roles: []infra.Role{infra.RoleDB},
			PublicIP: fmt.Sprintf("127.0.0.%d", i+1), PrivateIP: fmt.Sprintf("127.0.0.%d", i+1),
			Base: filepath.Join(dir, fmt.Sprintf("db%d", i)), ServiceUser: "ybbench", Shared: true,
		})
	}
	// db2 and db3 keep their data in data dirs that already hold a user's
	// own cassandra/ (as /var/lib/cassandra of a distribution's package
	// would), and every base holds one too (where older versions of the
	// flavor wrote): the run must leave them byte for byte, mode and owner.
	c.Hosts[1].DataDirs = []string{filepath.Join(dir, "disk1")}
	c.Hosts[2].DataDirs = []string{filepath.Join(dir, "disk2"), filepath.Join(dir, "disk3")}
	var userDirs []string
	for _, h := range c.Hosts {
		userDirs = append(userDirs, filepath.Join(h.Base, "cassandra"))
		for _, d := range h.DataDirs {
			userDirs = append(userDirs, filepath.Join(d, "cassandra"))
		}
	}
	for _, d := range userDirs {
		userCassandraDir(t, d)
	}
	before := snapshotDirs(t, userDirs)
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	r := &countingRunner{Runner: localexec.New(localexec.WithLogDir(filepath.Join(dir, "logs")))}
	f := New(WithLogger(log), WithStopGrace(60*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if err := f.Wipe(context.Background(), r, c); err != nil {
			t.Errorf("cleanup wipe: %v", err)
		}
	})
	secrets := filepath.Join(dir, "secrets")
	spec := provision.FlavorSpec{RF: 3, Logger: log, RunID: c.Name, ToolVersion: "it", SecretsDir: secrets}

	t0 := time.Now()
	dep, err := f.Install(ctx, r, c, spec)
	if err != nil {
		t.Fatalf("install: %v\nlogs: %s", err, dir)
	}
	if got := snapshotDirs(t, userDirs); got != before {
		t.Errorf("install changed the user's cassandra directories:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	bench := checkAuth(t, dep, secrets)
	t.Logf("first install (3 nodes, cold): %s; uploads %d", time.Since(t0).Round(time.Second), r.puts.Load())
	if r.puts.Load() != 3 {
		t.Errorf("%d uploads, want one per host", r.puts.Load())
	}
	if dep.Flavor != "cassandra" || dep.Version != DefaultVersion || len(dep.YCQL) != 3 || len(dep.Processes) != 3 {
		t.Fatalf("deployment: %+v", dep)
	}
	for _, k := range []string{"yaml.num_tokens", "yaml.auto_bootstrap", "yaml.initial_token@db2", "yaml.listen_address@db3", "heap", "java.version@db1", "yaml.seed_provider"} {
		if dep.Settings[k] == "" {
			t.Errorf("deployment settings lack %s: %v", k, dep.Settings)
		}
	}
	if dep.Settings["yaml.seed_provider"] != "127.0.0.2:7000" || dep.Settings["heap"] != "512M" {
		t.Errorf("seed %q, heap %q", dep.Settings["yaml.seed_provider"], dep.Settings["heap"])
	}
	for k, v := range dep.Settings {
		if strings.HasPrefix(k, "join_seconds@") || strings.HasPrefix(k, "start@") {
			t.Logf("%s = %s", k, v)
		}
	}
	pids := livePIDs(t, dep)
	for h, pid := range pids {
		t.Logf("%s: pid %d, RSS %s", h, pid, rss(pid))
	}

	checkCluster(t, ctx, f, c, dep, bench)
	checkNoPasswordInProcesses(t, secrets)

	// Again: nothing uploaded, the nodes kept.
	t1 := time.Now()
	dep2, err := f.Install(ctx, r, c, spec)
	if err != nil {
		t.Fatalf("second install: %v", err)
	}
	t.Logf("second install: %s; uploads %d", time.Since(t1).Round(time.Millisecond), r.puts.Load())
	if r.puts.Load() != 3 {
		t.Errorf("the second install uploaded again (%d uploads in all)", r.puts.Load())
	}
	for _, h := range c.Hosts {
		if s := dep2.Settings["start@"+h.Name]; !strings.HasPrefix(s, "skipped") {
			t.Errorf("%s: second install: %q, want the node kept", h.Name, s)
		}
		if s := dep2.Settings["source.transfer@"+h.Name]; !strings.HasPrefix(s, "skipped") {
			t.Errorf("%s: second install transfer: %q", h.Name, s)
		}
	}
	if got := livePIDs(t, dep2); fmt.Sprint(got) != fmt.Sprint(pids) {
		t.Errorf("pids after the second install %v, before %v", got, pids)
	}

	// Stop twice, then nothing of ours runs.
	for i := range 2 {
		t2 := time.Now()
		if err := f.Stop(ctx, r, c); err != nil {
			t.Fatalf("stop %d: %v", i+1, err)
		}
		t.Logf("stop %d: %s", i+1, time.Since(t2).Round(time.Millisecond))
	}
	for h, pid := range pids {
		if alive(pid) {
			t.Errorf("%s: pid %d still runs after Stop", h, pid)
		}
		if _, err := os.Stat(layoutOf(hostOf(c, h)).PIDFile); err == nil {
			t.Errorf("%s: pid file left after Stop", h)
		}
	}
	// Wipe twice, then nothing of ours is left.
	for i := range 2 {
		if err := f.Wipe(ctx, r, c); err != nil {
			t.Fatalf("wipe %d: %v", i+1, err)
		}
	}
	for _, h := range c.Hosts {
		l := layoutOf(h)
		for _, d := range append([]string{l.Root}, l.DataRoots...) {
			if _, err := os.Stat(d); err == nil {
				t.Errorf("%s: %s left after Wipe", h.Name, d)
			}
		}
		for _, p := range l.Parents {
			if _, err := os.Stat(provision.OwnDir(p)); err == nil {
				t.Errorf("%s: %s left after Wipe", h.Name, provision.OwnDir(p))
			}
		}
		// No Cassandra data anywhere under the base but the user's own
		// (checked byte for byte below): no sstable, no commit log.
		filepath.WalkDir(h.Base, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !strings.HasPrefix(p, filepath.Join(h.Base, "cassandra")) &&
				(strings.HasSuffix(p, "-Data.db") || strings.HasPrefix(e.Name(), "CommitLog-") || e.Name() == "commitlog") {
				t.Errorf("%s: Cassandra data left after Wipe: %s", h.Name, p)
			}
			return nil
		})
	}
	if got := snapshotDirs(t, userDirs); got != before {
		t.Errorf("Wipe changed the user's cassandra directories:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}

// userCassandraDir makes a user's own cassandra directory at d: files,
// a subdirectory and modes of its own, owned by root.
func userCassandraDir(t *testing.T, d string) {
	t.Helper()
	// The parent (a base or a data dir) is searchable, as a disk's mount
	// point is; the user's directory itself is not for others.
	if err := os.MkdirAll(filepath.Dir(d), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(d, "data", "ks"), 0o750); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"data/ks/nb-1-big-Data.db": "the user's sstable", "cassandra.yaml": "cluster_name: theirs\n"} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotDirs lists every entry under the directories, and the
// directories themselves, with mode, owner and content hash.
func snapshotDirs(t *testing.T, dirs []string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := os.Lstat(p)
			if err != nil {
				return err
			}
			st := info.Sys().(*syscall.Stat_t)
			sum := ""
			if info.Mode().IsRegular() {
				c, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum = fmt.Sprintf("%x", sha256.Sum256(c))
			}
			fmt.Fprintf(&b, "%s %v %d:%d %s %s\n", p, info.Mode(), st.Uid, st.Gid, info.ModTime().UTC().Format(time.RFC3339Nano), sum)
			return nil
		})
		if err != nil {
			t.Fatalf("snapshot %s: %v", d, err)
		}
	}
	// The parents' own modes and owners too: nothing above is changed.
	for _, d := range dirs {
		info, err := os.Stat(filepath.Dir(d))
		if err != nil {
			t.Fatal(err)
		}
		st := info.Sys().(*syscall.Stat_t)
		fmt.Fprintf(&b, "parent %s %v %d:%d\n", filepath.Dir(d), info.Mode(), st.Uid, st.Gid)
	}
	return b.String()
}

// checkAuth checks authentication from outside the flavor: every node
// refuses a session without credentials and as cassandra/cassandra, and
// accepts the bench role with the password of the deployment's 0600 file.
func checkAuth(t *testing.T, dep *provision.Deployment, secrets string) login {
	t.Helper()
	if dep.User != BenchUser || dep.Settings["auth"] != "on" {
		t.Fatalf("deployment user %q, auth %q", dep.User, dep.Settings["auth"])
	}
	st, err := os.Stat(dep.PasswordFile)
	if err != nil || st.Mode().Perm() != 0o600 || filepath.Dir(dep.PasswordFile) != secrets {
		t.Fatalf("password file %s: %v %v", dep.PasswordFile, st, err)
	}
	b, _ := os.ReadFile(dep.PasswordFile)
	bench := login{dep.User, strings.TrimSpace(string(b))}
	for _, e := range dep.YCQL {
		addr := fmt.Sprintf("%s:%d", e.Addr, e.Port)
		for _, l := range []login{{}, {"cassandra", "cassandra"}, {BenchUser, "wrong-password-0000"}} {
			s, err := testSession(addr, l)
			if err == nil {
				s.Close()
				t.Errorf("%s accepts a session %s", e.Host, describeLogin(l))
			} else if !authRefused(err) {
				t.Errorf("%s: a session %s failed otherwise than refused: %v", e.Host, describeLogin(l), err)
			}
		}
		s, err := testSession(addr, bench)
		if err != nil {
			t.Fatalf("%s refuses the bench role: %v", e.Host, err)
		}
		// The bench role is not a superuser (it needs not be).
		var super bool
		if err := s.Query(`SELECT is_superuser FROM system_auth.roles WHERE role = ?`, BenchUser).Scan(&super); err != nil || super {
			t.Errorf("%s: the bench role is_superuser=%v (%v)", e.Host, super, err)
		}
		// system_auth is on every node.
		var repl map[string]string
		if err := s.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'system_auth'`).Scan(&repl); err != nil || repl["replication_factor"] != strconv.Itoa(len(dep.YCQL)) {
			t.Errorf("%s: system_auth replication %v (%v)", e.Host, repl, err)
		}
		s.Close()
	}
	return bench
}

func testSession(addr string, l login) (*gocql.Session, error) {
	cl := gocql.NewCluster(addr)
	cl.ProtoVersion = 4
	cl.Timeout = 20 * time.Second
	cl.DisableInitialHostLookup = true
	cl.Logger = quietLogger{}
	if l.User != "" {
		cl.Authenticator = gocql.PasswordAuthenticator{Username: l.User, Password: l.Password}
	}
	return cl.CreateSession()
}

// checkNoPasswordInProcesses reads every process's command line and
// environment on this machine: no generated password may be in any.
func checkNoPasswordInProcesses(t *testing.T, secrets string) {
	t.Helper()
	var pws []string
	entries, err := os.ReadDir(secrets)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(secrets, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pws = append(pws, strings.TrimSpace(string(b)))
	}
	if len(pws) < 2 {
		t.Fatalf("secrets %v: want the bench and the admin password", entries)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	seen := 0
	for _, p := range procs {
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile(filepath.Join(p, f))
			if err != nil {
				continue // gone, or a kernel thread
			}
			seen++
			for _, pw := range pws {
				if bytes.Contains(b, []byte(pw)) {
					t.Errorf("%s/%s holds a generated password", p, f)
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("read only %d process files", seen)
	}
}

// checkCluster checks the running cluster over CQL.
func checkCluster(t *testing.T, ctx context.Context, f *Flavor, c *infra.Cluster, dep *provision.Deployment, l login) {
	t.Helper()
	o := probeAll(ctx, f.cfg.probe, c.Hosts)
	if p := o.problems(c.Hosts); len(p) > 0 {
		t.Fatalf("cluster not whole: %v", p)
	}
	tokens := Tokens(3)
	for i, st := range o.states {
		if len(st.Peers) != 2 || st.SchemaVersion != o.states[0].SchemaVersion || st.Gossip == nil {
			t.Errorf("%s: %+v", c.Hosts[i].Name, st)
		}
		if got := dep.Settings["yaml.initial_token@"+c.Hosts[i].Name]; got != tokens[i] {
			t.Errorf("%s: initial_token %s, want %s", c.Hosts[i].Name, got, tokens[i])
		}
	}
	t.Logf("seen: %s", o.summary())

	var hosts []string
	for _, e := range dep.YCQL {
		hosts = append(hosts, fmt.Sprintf("%s:%d", e.Addr, e.Port))
	}
	cl := gocql.NewCluster(hosts...)
	cl.ProtoVersion = 4
	cl.Timeout = 20 * time.Second
	cl.ConnectTimeout = 10 * time.Second
	cl.Consistency = gocql.Quorum
	cl.Logger = quietLogger{}
	if l.User != "" {
		cl.Authenticator = gocql.PasswordAuthenticator{Username: l.User, Password: l.Password}
	}
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	defer s.Close()
	for _, q := range []string{
		`CREATE KEYSPACE IF NOT EXISTS it WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}`,
		`CREATE TABLE IF NOT EXISTS it.kv (k int PRIMARY KEY, v text)`,
	} {
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const rows = 200
	for k := range rows {
		if err := s.Query(`INSERT INTO it.kv (k, v) VALUES (?, ?)`, k, "v"+strconv.Itoa(k)).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("insert %d at QUORUM: %v", k, err)
		}
	}
	// Read every row back at QUORUM through each node as coordinator.
	for _, h := range hosts {
		one := gocql.NewCluster(h)
		one.ProtoVersion = 4
		one.Consistency = gocql.Quorum
		one.Timeout = 20 * time.Second
		one.DisableInitialHostLookup = true
		one.Logger = quietLogger{}
		if l.User != "" {
			one.Authenticator = gocql.PasswordAuthenticator{Username: l.User, Password: l.Password}
		}
		s1, err := one.CreateSession()
		if err != nil {
			t.Fatalf("session to %s: %v", h, err)
		}
		n := 0
		for k := range rows {
			var v string
			if err := s1.Query(`SELECT v FROM it.kv WHERE k = ?`, k).WithContext(ctx).Scan(&v); err != nil {
				t.Fatalf("read %d at QUORUM via %s: %v", k, h, err)
			}
			if v == "v"+strconv.Itoa(k) {
				n++
			}
		}
		s1.Close()
		if n != rows {
			t.Errorf("via %s: %d of %d rows read back", h, n, rows)
		}
	}
	var repl map[string]string
	if err := s.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'it'`).WithContext(ctx).Scan(&repl); err != nil || repl["replication_factor"] != "3" {
		t.Errorf("keyspace it: replication %v, %v", repl, err)
	}
}

func hostOf(c *infra.Cluster, name string) infra.Host {
	h, _ := c.Host(name)
	return *h
}

// livePIDs reads the deployment's pid files and checks each process runs.
func livePIDs(t *testing.T, dep *provision.Deployment) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, p := range dep.Processes {
		b, err := os.ReadFile(p.PIDFile)
		if err != nil {
			t.Fatalf("%s: %v", p.Host, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || !alive(pid) {
			t.Fatalf("%s: pid file %s holds %q, not a live process", p.Host, p.PIDFile, b)
		}
		// The pipeline reads each node's CPU time from /proc/<pid>/stat.
		if _, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err != nil {
			t.Errorf("%s: %v", p.Host, err)
		}
		out[p.Host] = pid
	}
	return out
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func rss(pid int) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// testWriter sends log lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// TestIntegrationOneNodeOverSSH installs a one-node cluster through the
// SSH runner and an sshd of the test's own (as the pipeline reaches its
// hosts): the upload goes over SFTP, and the start script's session ends
// while the node it started keeps running.
func TestIntegrationOneNodeOverSSH(t *testing.T) {
	sshdtest.Require(t)
	testenv.EnsureServiceUser(t)
	_, err := readSource(DefaultSource())
	needs(t, err == nil, fmt.Sprintf("needs the artifact cache: %v", err))

	srv := sshdtest.Start(t, sshdtest.Options{})
	h := srv.Host("db1")
	h.PrivateIP = "127.0.0.5"
	h.ServiceUser = "ybbench"
	h.Shared = true
	for _, d := range []string{srv.Dir, filepath.Dir(srv.Dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := &infra.Cluster{Name: "it-ssh", Hosts: []infra.Host{h}}
	dir := t.TempDir()
	r, err := ybssh.New(ybssh.WithKnownHosts(filepath.Join(dir, "known_hosts")), ybssh.WithLogDir(filepath.Join(dir, "logs")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() }) // after the wipe below (cleanups run last first)
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	f := New(WithLogger(log))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if err := f.Wipe(context.Background(), r, c); err != nil {
			t.Errorf("cleanup wipe: %v", err)
		}
	})
	t0 := time.Now()
	dep, err := f.Install(ctx, r, c, provision.FlavorSpec{Logger: log, Settings: map[string]string{"heap": "256M"},
		RunID: c.Name, SecretsDir: filepath.Join(dir, "secrets")})
	if err != nil {
		t.Fatalf("install over SSH: %v", err)
	}
	t.Logf("one node over SSH: %s", time.Since(t0).Round(time.Second))
	if dep.Version != DefaultVersion || dep.Settings["yaml.initial_token"] != "0" || dep.Settings["yaml.seed_provider"] != "127.0.0.5:7000" {
		t.Errorf("deployment %+v", dep)
	}
	pid := livePIDs(t, dep)["db1"]
	t.Logf("db1: pid %d, RSS %s (heap 256M)", pid, rss(pid))
	if err := f.Stop(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("pid %d still runs after Stop", pid)
	}
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(provision.OwnDir(h.Base)); err == nil {
		t.Errorf("%s left after Wipe", provision.OwnDir(h.Base))
	}
}

// TestIntegrationRefusesDirectoriesNotTheRuns runs the real prepare script
// on this machine over a base whose ybbench/ has no marker (a user's), then
// one marked by another run: Install stops with exit 4 naming it (and the
// other run), before any JVM or upload, and leaves the directory as it was;
// Wipe leaves it too.
func TestIntegrationRefusesDirectoriesNotTheRuns(t *testing.T) {
	needs(t, os.Geteuid() == 0, "needs root (the flavor's scripts run as root)")
	testenv.EnsureServiceUser(t)

	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(dir, "db1")
	own := provision.OwnDir(base)
	if err := os.MkdirAll(filepath.Join(own, "cassandra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, "cassandra", "notes"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &infra.Cluster{Name: "it-own", Hosts: []infra.Host{{Name: "db1", Roles: []infra.Role{infra.RoleDB},
		PrivateIP: "127.0.0.6", Base: base, ServiceUser: "ybbench", Shared: true}}}
	r := &countingRunner{Runner: localexec.New(localexec.WithLogDir(filepath.Join(dir, "logs")))}
	f := New(WithTarballDir(filepath.Join(dir, "dist")))
	spec := provision.FlavorSpec{Source: fakeSource(t), RunID: c.Name, SecretsDir: filepath.Join(dir, "secrets")}
	before := snapshotDirs(t, []string{own})

	for _, marker := range []string{"", "run=other-run\nversion=x\n"} {
		if marker != "" {
			if err := os.WriteFile(filepath.Join(own, provision.OwnerMarker), []byte(marker), 0o644); err != nil {
				t.Fatal(err)
			}
			before = snapshotDirs(t, []string{own})
		}
		_, err := f.Install(context.Background(), r, c, spec)
		want := own + " exists and has no " + provision.OwnerMarker
		if marker != "" {
			want = own + " belongs to run other-run: ybbench down --run other-run"
		}
		if err == nil || exitcode.Of(err) != exitcode.Provision || !strings.Contains(err.Error(), want) {
			t.Errorf("install over %s (marker %q): %v (exit %d), want exit 4 saying %q", own, marker, err, exitcode.Of(err), want)
		}
		if r.puts.Load() != 0 {
			t.Errorf("uploaded %d times before the directory was claimed", r.puts.Load())
		}
		if err := f.Wipe(context.Background(), r, c); err != nil {
			t.Errorf("wipe: %v", err)
		}
		if got := snapshotDirs(t, []string{own}); got != before {
			t.Errorf("the directory not the run's changed:\nbefore:\n%s\nafter:\n%s", before, got)
		}
	}
}
