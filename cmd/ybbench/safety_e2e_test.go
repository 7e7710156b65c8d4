//go:build e2e

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// The hostile-inventory suite: an on-prem user lends us their machines, whose
// base and data directories already hold their own files, some with the very
// names flavors use. Every user directory is a tree the test builds under a
// temporary directory of its own (local hosts share this machine's
// filesystem), and every file and directory in it, and every ancestor of a
// base or data dir, must be exactly as it was after the run.
func TestE2EHostileInventory(t *testing.T) {
	runs := runsDir(t)
	subnet := "10.213.131"
	cleanupRuns(t, runs)
	up := ybbench(t, "up", "--local", "--db-hosts=3", "--client-hosts=1", "--runs-dir="+runs, "--subnet="+subnet+".0/24")
	hostsDir := runDirIn(t, runs, 0)
	if up.code != 0 {
		t.Fatalf("up: exit %d\n%s", up.code, up.stderr)
	}
	c := readCluster(t, hostsDir)
	t.Cleanup(func() {
		if r := ybbench(t, "down", "--run", hostsDir); r.code != 0 {
			t.Errorf("down of the hosts: exit %d\n%s", r.code, r.stderr)
		}
		assertNothingRemains(t, hostsDir, subnet+".")
	})

	users := runsDir(t) // the users' own trees: searchable, like a real /data
	base := func(h infra.Host) string { return filepath.Join(users, h.Name, "base") }
	data := func(h infra.Host) string { return filepath.Join(users, h.Name, "data") }
	for _, h := range c.Hosts {
		for rel, content := range map[string]string{
			"base/bin/their-tool":              "#!/bin/sh\necho theirs\n",
			"base/agent/notes.txt":             "the user's agent notes",
			"base/yugabyte/bin/yb-tserver":     "their own YugabyteDB",
			"data/postgres/PG_VERSION":         "15\n",
			"data/postgres/base/1/1259":        "their PostgreSQL data",
			"data/postgres/postgresql.conf":    "port = 5432\n",
			"data/cassandra/data/ks/t/file.db": "their Cassandra data",
			"data/yugabyte/yb-data/tserver/x":  "their yb-data",
			"data/bin/keep":                    "keep",
			"data/agent/keep":                  "keep",
		} {
			p := filepath.Join(users, h.Name, rel)
			// 0755 like a real data disk: the database's service user
			// must pass through the user's directories (ybbench opens none).
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		os.Chmod(filepath.Join(users, h.Name, "data", "postgres"), 0o700)
		os.Chmod(filepath.Join(users, h.Name, "base", "bin", "their-tool"), 0o755)
		os.Chown(filepath.Join(users, h.Name, "data", "cassandra"), 4242, 4242)
	}
	inventory := func(edit func(h infra.Host, e map[string]any)) string {
		return writeInventory(t, c, func(i int, e map[string]any) {
			h := c.Hosts[i]
			e["base"], e["data_dirs"] = base(h), []string{data(h)}
			if edit != nil {
				edit(h, e)
			}
		})
	}
	var roots []string
	for _, h := range c.Hosts {
		roots = append(roots, base(h), data(h))
	}
	before := fileStates(t, users, roots)
	unchanged := func(t *testing.T) {
		t.Helper()
		after := fileStates(t, users, roots)
		for p, s := range before {
			if after[p] != s {
				t.Errorf("%s changed: %s → %s", p, s, after[p])
			}
		}
		for p, s := range after {
			if _, ok := before[p]; !ok {
				t.Errorf("%s was left behind (%s)", p, s)
			}
		}
	}
	db1, db2 := c.ByRole(infra.RoleDB)[0], c.ByRole(infra.RoleDB)[1]

	t.Run("system directories are refused before any command", func(t *testing.T) {
		invRuns := runsDir(t)
		cleanupRuns(t, invRuns)
		inv := inventory(func(h infra.Host, e map[string]any) {
			if h.Has(infra.RoleClient) {
				e["base"] = "/usr/local"
			}
			if h.Name == db2.Name {
				e["data_dirs"] = []string{"/var/lib"}
			}
		})
		r := ybbench(t, "run", "--inventory="+inv, "--workloads=workloada", "--runs-dir="+invRuns)
		if r.code != 2 || !strings.Contains(r.stderr, `.base: "/usr/local": inside the system tree /usr`) ||
			!strings.Contains(r.stderr, `.data_dirs[0]: "/var/lib": a system directory`) {
			t.Errorf("exit %d; want 2 naming both directories with file:line:\n%s", r.code, tail(r.stderr, 20))
		}
		for _, m := range mustGlob(t, filepath.Join(invRuns, "*", "logs", "*")) {
			t.Errorf("a step ran on a host: %s", m)
		}
		unchanged(t)
	})

	t.Run("a data dir through a link to a system directory is refused on the host", func(t *testing.T) {
		link := filepath.Join(users, db1.Name, "fastdisk")
		if err := os.Symlink("/usr", link); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(link)
		invRuns := runsDir(t)
		cleanupRuns(t, invRuns)
		inv := inventory(func(h infra.Host, e map[string]any) {
			if h.Name == db1.Name {
				e["data_dirs"] = []string{link}
			}
		})
		r := ybbench(t, "run", "--inventory="+inv, "--workloads=workloada", "--runs-dir="+invRuns)
		if r.code != 2 || !strings.Contains(r.stderr, "resolves to /usr") {
			t.Errorf("exit %d; want 2 naming the link:\n%s", r.code, tail(r.stderr, 20))
		}
		if _, err := os.Lstat("/usr/ybbench"); err == nil {
			t.Error("/usr/ybbench was made")
		}
		os.Remove(link)
		unchanged(t)
	})

	t.Run("an unmarked ybbench directory stops install and stays", func(t *testing.T) {
		theirs := filepath.Join(data(db2), "ybbench")
		os.MkdirAll(filepath.Join(theirs, "cache"), 0o755)
		os.WriteFile(filepath.Join(theirs, "cache", "blob"), []byte("their own ybbench directory"), 0o644)
		defer os.RemoveAll(theirs)
		mine := fileStates(t, users, roots)
		invRuns := runsDir(t)
		cleanupRuns(t, invRuns)
		r := ybbench(t, "run", "--inventory="+inventory(nil), "--workloads=workloada", "--runs-dir="+invRuns)
		if r.code != 4 || !strings.Contains(r.stderr, theirs+" exists and has no .ybbench-owner") {
			t.Errorf("exit %d; want 4 naming %s:\n%s", r.code, theirs, tail(r.stderr, 20))
		}
		after := fileStates(t, users, roots)
		for p, s := range mine {
			if after[p] != s {
				t.Errorf("%s changed: %s → %s", p, s, after[p])
			}
		}
		os.RemoveAll(theirs)
		unchanged(t)
	})

	t.Run("another run's ybbench directory stops install naming that run", func(t *testing.T) {
		theirs := filepath.Join(data(db1), "ybbench")
		os.MkdirAll(theirs, 0o755)
		os.WriteFile(filepath.Join(theirs, ".ybbench-owner"), []byte("run=ycsb-ysql-20261130-101010-deadbeef\nversion=old\n"), 0o644)
		defer os.RemoveAll(theirs)
		invRuns := runsDir(t)
		cleanupRuns(t, invRuns)
		r := ybbench(t, "run", "--inventory="+inventory(nil), "--workloads=workloada", "--runs-dir="+invRuns)
		if r.code != 4 || !strings.Contains(r.stderr, "ybbench down --run ycsb-ysql-20261130-101010-deadbeef") {
			t.Errorf("exit %d; want 4 naming the other run:\n%s", r.code, tail(r.stderr, 20))
		}
		if b, _ := os.ReadFile(filepath.Join(theirs, ".ybbench-owner")); !strings.Contains(string(b), "deadbeef") {
			t.Errorf("the other run's marker changed: %q", b)
		}
		os.RemoveAll(theirs)
		unchanged(t)
	})

	t.Run("host keys: unknown refused before any command, known_hosts and accept-new run", func(t *testing.T) {
		home := t.TempDir() // an empty ~/.ssh: this machine's own known_hosts must not decide
		env := append(ybbenchEnv(t), "HOME="+home)
		known := filepath.Join(t.TempDir(), "known_hosts")
		var lines strings.Builder
		for _, h := range c.Hosts {
			fmt.Fprintf(&lines, "%s %s\n", h.PublicIP, strings.TrimSpace(h.SSH.HostKey))
		}
		if err := os.WriteFile(known, []byte(lines.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		unpinned := func(extra map[string]any) string {
			return inventory(func(h infra.Host, e map[string]any) {
				ssh := e["ssh"].(map[string]any)
				delete(ssh, "host_key")
				for k, v := range extra {
					ssh[k] = v
				}
			})
		}

		invRuns := runsDir(t)
		cleanupRuns(t, invRuns)
		r := ybbenchWith(t, env, "up", "--inventory="+unpinned(nil), "--runs-dir="+invRuns)
		if r.code != 2 || !strings.Contains(r.stderr, "ssh-keyscan") {
			t.Errorf("unknown keys: exit %d, want 2 with the ssh-keyscan line:\n%s", r.code, tail(r.stderr, 20))
		}
		for _, m := range mustGlob(t, filepath.Join(invRuns, "*", "logs", "*")) {
			t.Errorf("a step ran on a host whose key is unknown: %s", m)
		}

		invRuns = runsDir(t)
		cleanupRuns(t, invRuns)
		if r := ybbenchWith(t, env, "up", "--inventory="+unpinned(map[string]any{"known_hosts": known}), "--runs-dir="+invRuns); r.code != 0 {
			t.Errorf("keys in a known_hosts file: exit %d\n%s", r.code, tail(r.stderr, 20))
		} else if r := ybbench(t, "down", "--run", runDirIn(t, invRuns, 0)); r.code != 0 {
			t.Errorf("down: exit %d\n%s", r.code, r.stderr)
		}

		invRuns = runsDir(t)
		cleanupRuns(t, invRuns)
		if r := ybbenchWith(t, env, "up", "--inventory="+unpinned(nil), "--accept-new-host-keys", "--runs-dir="+invRuns); r.code != 0 {
			t.Errorf("--accept-new-host-keys: exit %d\n%s", r.code, tail(r.stderr, 20))
		} else {
			dir := runDirIn(t, invRuns, 0)
			if b, _ := os.ReadFile(filepath.Join(dir, "run.json")); strings.Count(string(b), "accepted-on-first-use") < len(c.Hosts) {
				t.Errorf("run.json does not record every host's key as accepted on first use:\n%s", b)
			}
			if r := ybbench(t, "down", "--run", dir); r.code != 0 {
				t.Errorf("down: exit %d\n%s", r.code, r.stderr)
			}
		}
		unchanged(t)
	})

	t.Run("a whole run beside the users' files, locked down, leaves them identical", func(t *testing.T) {
		invRuns := runsDir(t)
		cleanupRuns(t, invRuns)
		inv := inventory(nil)
		if r := ybbench(t, "up", "--inventory="+inv, "--workloads=workloada", "--records=1000", "--operations=2000", "--runs-dir="+invRuns); r.code != 0 {
			t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
		}
		dir := runDirIn(t, invRuns, 0)
		if r := ybbench(t, "install", "--run", dir); r.code != 0 {
			t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
		}
		pw := secretOf(t, dir)
		closedToOthers(t, db1, dir, users)

		cmd, out := start(t, "bench", "--run", dir)
		waitStep(t, dir, "bench/workloada/run", 3*time.Minute)
		leaks := passwordInProcesses(pw)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("bench: %v\n%s", err, tail(out.String(), 30))
		}
		for _, l := range leaks {
			t.Errorf("during the bench, the database password is in %s", l)
		}
		for _, st := range []string{"collect", "report", "down"} {
			if r := ybbench(t, st, "--run", dir); r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", st, r.code, r.stderr)
			}
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				if d != nil && d.IsDir() && d.Name() == "secrets" {
					return filepath.SkipDir
				}
				return nil
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), pw) {
				t.Errorf("%s holds the database password", p)
			}
			return nil
		})
		unchanged(t)
	})
}

// fileStates records every file and directory under root (mode, owner,
// and a regular file's sha256) and every ancestor of each path in also
// (mode and owner).
func fileStates(t *testing.T, root string, also []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	state := func(p string, fi os.FileInfo) string {
		st := fi.Sys().(*syscall.Stat_t)
		s := fmt.Sprintf("%v %d:%d", fi.Mode(), st.Uid, st.Gid)
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			s += " " + hex.EncodeToString(sum[:8])
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			s += " -> " + l
		}
		return s
	}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		out[p] = state(p, fi)
		return nil
	})
	for _, p := range also {
		for a := p; a != "/"; a = filepath.Dir(a) {
			if fi, err := os.Lstat(a); err == nil {
				out[a] = state(a, fi)
			}
		}
	}
	return out
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// secretOf is the run's database password, from its secrets.
func secretOf(t *testing.T, dir string) string {
	t.Helper()
	var dep struct {
		PasswordFile string `json:"password_file"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "deployment.json"))
	if err := json.Unmarshal(b, &dep); err != nil || dep.PasswordFile == "" {
		t.Fatalf("deployment.json names no password file: %v %s", err, b)
	}
	pw, err := os.ReadFile(dep.PasswordFile)
	if err != nil || len(strings.TrimSpace(string(pw))) < 12 {
		t.Fatalf("password file: %v", err)
	}
	return strings.TrimSpace(string(pw))
}

// passwordInProcesses lists every process whose command line or
// environment holds pw.
func passwordInProcesses(pw string) []string {
	var out []string
	m, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range m {
		for _, f := range []string{"cmdline", "environ"} {
			if b, err := os.ReadFile(filepath.Join(p, f)); err == nil && strings.Contains(string(b), pw) {
				comm, _ := os.ReadFile(filepath.Join(p, "comm"))
				out = append(out, fmt.Sprintf("%s/%s (%s)", p, f, strings.TrimSpace(string(comm))))
			}
		}
	}
	return out
}

// closedToOthers: a local user other than the database's (nobody) gets
// no connection without the password, over TCP or the server's Unix
// sockets, as the bench user or the superuser; each refusal is the one
// that protects (the server's authentication refusal over TCP, the socket
// directory's permissions), not psql missing, a wrong socket directory or
// a server down; and the controls connect.
func closedToOthers(t *testing.T, h infra.Host, dir, dataRoot string) {
	t.Helper()
	var dep struct {
		YSQL []struct {
			Addr string
			Port int
		}
		User, Database string
		PasswordFile   string `json:"password_file"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "deployment.json"))
	json.Unmarshal(b, &dep)
	psql := mustGlob(t, "/usr/lib/postgresql/*/bin/psql")
	if len(psql) == 0 || len(dep.YSQL) == 0 {
		t.Fatalf("no psql (%v) or no endpoint (%s)", psql, b)
	}
	pw, err := os.ReadFile(dep.PasswordFile)
	if err != nil || len(strings.TrimSpace(string(pw))) == 0 {
		t.Fatalf("the bench user's password (%s): %v", dep.PasswordFile, err)
	}
	var sockets []string
	filepath.WalkDir(dataRoot, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type()&fs.ModeSocket != 0 && strings.HasPrefix(e.Name(), ".s.PGSQL.") {
			sockets = append(sockets, filepath.Dir(p))
		}
		return nil
	})
	if len(sockets) == 0 {
		t.Errorf("no server socket under %s: the test would try TCP only", dataRoot)
	}
	port := fmt.Sprint(dep.YSQL[0].Port)
	// runuser by its path: `ip netns exec` runs it with the environment
	// below, whose PATH need not hold it (a psql that never ran is no
	// refusal).
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		t.Fatalf("no runuser: %v", err)
	}
	psqlAs := func(osUser string, env []string, args ...string) (string, error) {
		cmd := exec.Command("ip", append([]string{"netns", "exec", h.ProviderID, runuser, "-u", osUser, "--", psql[0], "-X", "-w", "-tA", "-c", "select 1"}, args...)...)
		cmd.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/nonexistent"}, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// Over TCP the server refuses a client without the password; its Unix
	// sockets are in a directory only the service user may enter.
	places := []struct {
		host    string
		refusal *regexp.Regexp
	}{{dep.YSQL[0].Addr, authRefusal}}
	for _, s := range sockets {
		places = append(places, struct {
			host    string
			refusal *regexp.Regexp
		}{s, socketRefusal})
	}
	for _, place := range places {
		for _, who := range [][2]string{{dep.User, dep.Database}, {"postgres", "postgres"}} {
			args := []string{"-h", place.host, "-p", port, "-U", who[0], "-d", who[1]}
			out, err := psqlAs("nobody", nil, args...)
			switch {
			case err == nil:
				t.Errorf("as nobody, psql %s connected without a password:\n%s", strings.Join(args, " "), out)
			case !place.refusal.MatchString(out):
				t.Errorf("as nobody, psql %s failed, but not with %s:\n%s", strings.Join(args, " "), place.refusal, out)
			}
		}
	}
	// The controls: over TCP the bench user with its password; over a
	// socket its owner, the service user, whom the server knows as the
	// superuser by peer authentication (the flavor's own way in).
	args := []string{"-h", dep.YSQL[0].Addr, "-p", port, "-U", dep.User, "-d", dep.Database}
	if out, err := psqlAs("nobody", []string{"PGPASSWORD=" + strings.TrimSpace(string(pw))}, args...); err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("the control: psql %s with the bench user's password: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, s := range sockets {
		args := []string{"-h", s, "-p", port, "-U", "postgres", "-d", "postgres"}
		if out, err := psqlAs(h.ServiceUser, nil, args...); err != nil || strings.TrimSpace(out) != "1" {
			t.Errorf("the control: as %s, psql %s: %v\n%s", h.ServiceUser, strings.Join(args, " "), err, out)
		}
	}
}

// socketRefusal is what psql says when a socket's directory will not let
// it in.
var socketRefusal = regexp.MustCompile(`connection to server on socket .*failed: Permission denied`)

// authRefusal is what a PostgreSQL server answers a client that gives no
// password (psql -w never prompts) or is not let in at all.
var authRefusal = regexp.MustCompile(`fe_sendauth: no password supplied|password authentication failed for user|no pg_hba\.conf entry for`)
