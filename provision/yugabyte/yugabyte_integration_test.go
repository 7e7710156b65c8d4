//go:build integration

package yugabyte

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/provision"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// TestIntegrationStandInInstall runs the installer's own code paths on
// four local "hosts" (127.0.0.1–4, each with its own Base) against the
// stand-in tarball and a fake master API: upload once, sha256, extract,
// post_install.sh once, masters (RF 3) strictly before tservers (on all
// four), the rendered flags as the servers received them, readiness
// polling, a second Install that uploads nothing, Stop (twice) and Wipe.
func TestIntegrationStandInInstall(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	c := &infra.Cluster{Name: "standin", Provider: "test", Hosts: []infra.Host{
		env.dbHost(t, 1, filepath.Join(env.dir, "disks", "db1-d0"), filepath.Join(env.dir, "disks", "db1-d1")),
		env.dbHost(t, 2), env.dbHost(t, 3), env.dbHost(t, 4),
		{Name: "client1", Roles: []infra.Role{infra.RoleClient}, PrivateIP: "127.0.0.9", Base: filepath.Join(env.dir, "hosts", "client1"), ServiceUser: env.user, Shared: true},
	}}
	db := c.ByRole(infra.RoleDB)
	masters := db[:3]
	api, srv := newFakeMasterAPI(standinAPI(masters, db, nil))
	defer srv.Close()
	r := newLocalRunner()
	f := New(
		WithMasterURL(func(h infra.Host) string { return srv.URL + "/" + h.Name }),
		WithReadyTimeout(30*time.Second), WithPollInterval(50*time.Millisecond), WithStopGrace(5*time.Second),
		WithLogger(testLogger(t)),
	)
	t.Cleanup(func() {
		if err := f.Stop(context.Background(), r, c); err != nil {
			t.Errorf("cleanup stop: %v", err)
		}
	})
	settings := map[string]string{
		"yb_num_shards_per_tserver": "8",
		"ysql_hba_conf_csv":         "host all all 0.0.0.0/0 md5,local all all md5",
		"tserver.ysql_pg_conf_csv":  "log_min_duration_statement=100,timezone='UTC'",
		"master.durable_wal_write":  "true",
	}
	secrets := t.TempDir()
	spec := provision.FlavorSpec{Version: standinVersion, Source: env.tarball, SHA256: env.sha, Settings: settings, Logger: testLogger(t),
		SecretsDir: secrets, RunID: "standin", ToolVersion: "test"}
	// What the data dirs and bases are before: nothing of them may change.
	outside := snapshotModes(t, append([]string{env.dir + "/disks/db1-d0", env.dir + "/disks/db1-d1"}, baseDirs(db)...))

	dep, err := f.Install(ctx, r, c, spec)
	if err != nil {
		t.Fatal(err)
	}

	// The deployment.
	if b, err := json.MarshalIndent(dep, "", "  "); err == nil {
		t.Logf("deployment.json:\n%s", b)
	}
	if dep.Flavor != "yugabyte" || dep.Version != standinVersion || dep.User != "yugabyte" || dep.Database != "yugabyte" ||
		dep.PasswordFile != filepath.Join(secrets, PasswordFile) {
		t.Errorf("deployment %+v", dep)
	}
	checkAuth(t, env, dep, db)
	for i, h := range db {
		if len(dep.YSQL) != 4 || dep.YSQL[i] != (provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: 5433}) {
			t.Errorf("YSQL endpoints %v", dep.YSQL)
		}
		if len(dep.YCQL) != 4 || dep.YCQL[i] != (provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: 9042}) {
			t.Errorf("YCQL endpoints %v", dep.YCQL)
		}
	}
	if len(dep.Processes) != 7 {
		t.Errorf("processes %v", dep.Processes)
	}
	set := dep.Settings
	for k, want := range map[string]string{
		"source.sha256":                 env.sha,
		"source.transfer@db1":           "uploaded",
		"rf":                            "3",
		"os.thp_action@db2":             "recorded only (shared host: not modified)",
		"software@db4":                  filepath.Join(db[3].Base, "ybbench", "yugabyte", "yugabyte-"+standinVersion),
		"yb-master.flags@db1":           "--master_addresses=127.0.0.1:7100,127.0.0.2:7100,127.0.0.3:7100",
		"yb-tserver.flags@db4":          "'--ysql_pg_conf_csv=log_min_duration_statement=100,timezone='\\''UTC'\\'''",
		"ready.leader":                  "127.0.0.1",
		"version.api":                   `"version_number":"2.20.0.0"`,
		"yb-tserver.limits@db3":         "nofile=",
		"os.clock@db1":                  clockRecord(t),
		"source.sha256_checked_against": "FlavorSpec.SHA256",
	} {
		if got, ok := set[k]; !ok || !strings.Contains(got, want) {
			if k == "os.thp_action@db2" && !ok {
				continue // no THP on this kernel
			}
			t.Errorf("settings[%q] = %q, want it to contain %q", k, got, want)
		}
	}
	if _, ok := set["yb-master.flags@db4"]; ok {
		t.Error("db4 is not among the first RF db hosts, yet has master flags")
	}

	// Uploaded once per db host, nothing to the client.
	for _, h := range db {
		if n := r.putCount(h.Name); n != 1 {
			t.Errorf("%s: %d uploads, want 1", h.Name, n)
		}
	}
	if r.putCount("client1") != 0 || len(r.steps("client1")) != 0 {
		t.Errorf("the client host was touched: %v", r.steps("client1"))
	}

	// Extracted under Base, STANDIN and all; post_install.sh ran once, as root
	// (or the test's user).
	for _, h := range db {
		sw := filepath.Join(layoutOf(h).Root, "yugabyte-"+standinVersion)
		if b, err := os.ReadFile(filepath.Join(sw, "STANDIN")); err != nil || !strings.Contains(string(b), "STAND-IN") {
			t.Errorf("%s: STANDIN: %q, %v", h.Name, b, err)
		}
		if n := countLines(t, filepath.Join(sw, "post_install.ran")); n != 1 {
			t.Errorf("%s: post_install.sh ran %d times", h.Name, n)
		}
	}

	// Masters strictly before tservers.
	checkOrder(t, orderLines(t, env.orderLog), 3, 4)

	// The servers got exactly the rendered flags, run as the service user,
	// with the pid in the pid file, and the limits of §2.2 (as root).
	p, err := planInstall(c, spec, false)
	if err != nil {
		t.Fatal(err)
	}
	topo := p.topology()
	for _, h := range db {
		srvs := []server{tserver}
		if slices.ContainsFunc(masters, func(m infra.Host) bool { return m.Name == h.Name }) {
			srvs = append(srvs, master)
		}
		for _, s := range srvs {
			args := standinRecord(t, h, s, "args")
			if want := strings.Join(flagStrings(serverFlags(s, h, topo)), "\n"); args != want {
				t.Errorf("%s on %s got\n%s\nwant\n%s", s, h.Name, args, want)
			}
			if u := standinRecord(t, h, s, "user"); u != env.user {
				t.Errorf("%s on %s ran as %s, want %s", s, h.Name, u, env.user)
			}
			pid := standinRecord(t, h, s, "pid")
			if pf := readTrim(t, procOf(layoutOf(h), s).PIDFile); pf != pid {
				t.Errorf("%s on %s: pid file says %s, the server is %s", s, h.Name, pf, pid)
			}
			// Each limit of §2.2 is set, or recorded as not settable
			// here (a container without CAP_SYS_RESOURCE cannot raise
			// hard limits, even as root).
			_, off := summarizeLimits(strings.Split(readTrim(t, "/proc/"+pid+"/limits"), "\n"))
			failed := set[string(s)+".ulimit_failed@"+h.Name]
			for _, o := range off {
				item, _, _ := strings.Cut(o, "=")
				if !strings.Contains(failed, item+"=") {
					t.Errorf("%s on %s: limit %s is off the spec and not recorded as failed (%q)", s, h.Name, o, failed)
				}
			}
			if got := set[string(s)+".limits@"+h.Name]; !strings.Contains(got, "nproc=12000/12000") {
				t.Errorf("%s on %s: recorded limits %q", s, h.Name, got)
			}
		}
	}
	args := standinRecord(t, db[0], master, "args")
	for _, want := range []string{"--replication_factor=3", "--fs_data_dirs=" + filepath.Join(env.dir, "disks", "db1-d0", "ybbench", "yugabyte-data") + "," + filepath.Join(env.dir, "disks", "db1-d1", "ybbench", "yugabyte-data"),
		"--placement_cloud=local", "--placement_zone=local-a", "--webserver_interface=127.0.0.1", "--yb_num_shards_per_tserver=8", "--durable_wal_write=true"} {
		if !slices.Contains(strings.Split(args, "\n"), want) {
			t.Errorf("yb-master on db1 lacks %q:\n%s", want, args)
		}
	}
	args = standinRecord(t, db[3], tserver, "args")
	for _, want := range []string{"--tserver_master_addrs=127.0.0.1:7100,127.0.0.2:7100,127.0.0.3:7100", "--rpc_bind_addresses=127.0.0.4:9100",
		"--pgsql_proxy_bind_address=127.0.0.4:5433", "--cql_proxy_bind_address=127.0.0.4:9042", "--enable_ysql=true",
		"--ysql_pg_conf_csv=log_min_duration_statement=100,timezone='UTC'",
		"--ysql_hba_conf_csv=host all all 0.0.0.0/0 md5,local all all md5", "--yb_num_shards_per_tserver=8", "--fs_data_dirs=" + filepath.Join(db[3].Base, "ybbench", "yugabyte-data"),
		"--ysql_enable_auth=true", "--use_cassandra_authentication=true"} {
		if !slices.Contains(strings.Split(args, "\n"), want) {
			t.Errorf("yb-tserver on db4 lacks %q:\n%s", want, args)
		}
	}
	if api.count("/api/v1/tablet-servers") == 0 || api.count("/api/v1/health-check") == 0 {
		t.Error("the readiness check did not read tablet-servers and health-check")
	}
	firstPIDs := pidsOf(t, dep)

	// A second Install: nothing uploaded, extracted or post-installed
	// again; the servers restarted, masters first again.
	os.WriteFile(env.orderLog, nil, 0o666)
	dep2, err := f.Install(ctx, r, c, spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range db {
		if n := r.putCount(h.Name); n != 1 {
			t.Errorf("%s: %d uploads after the second Install, want still 1", h.Name, n)
		}
		if got := dep2.Settings["source.transfer@"+h.Name]; got != "skipped (the host had it)" {
			t.Errorf("%s: transfer %q", h.Name, got)
		}
		sw := filepath.Join(layoutOf(h).Root, "yugabyte-"+standinVersion)
		if n := countLines(t, filepath.Join(sw, "post_install.ran")); n != 1 {
			t.Errorf("%s: post_install.sh ran %d times after the second Install", h.Name, n)
		}
	}
	checkOrder(t, orderLines(t, env.orderLog), 3, 4)
	// The second Install found the passwords set, and kept them.
	if got := dep2.Settings["auth.ysql_password"]; got != "already set" {
		t.Errorf("second Install: auth.ysql_password = %q", got)
	}
	checkAuth(t, env, dep2, db)
	for _, pid := range firstPIDs {
		if alive(pid) {
			t.Errorf("pid %d of the first Install still runs", pid)
		}
	}
	pids := pidsOf(t, dep2)
	for _, pid := range pids {
		if !alive(pid) {
			t.Errorf("pid %d of the second Install is not running", pid)
		}
	}

	// Stop: every server gone, pid files removed; again: no error.
	if err := f.Stop(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d still runs after Stop", pid)
		}
	}
	for _, pr := range dep2.Processes {
		if _, err := os.Stat(pr.PIDFile); !os.IsNotExist(err) {
			t.Errorf("pid file %s still there after Stop (%v)", pr.PIDFile, err)
		}
	}
	if err := f.Stop(ctx, r, c); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	// Wipe: the run's own directories gone, everything else as it was
	// (the bases and data dirs themselves, their modes and owners); again:
	// no error.
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	for _, h := range db {
		for _, p := range provision.OwnParents(h) {
			if _, err := os.Stat(provision.OwnDir(p)); !os.IsNotExist(err) {
				t.Errorf("%s: %s still there (%v)", h.Name, provision.OwnDir(p), err)
			}
		}
	}
	if after := snapshotModes(t, append([]string{env.dir + "/disks/db1-d0", env.dir + "/disks/db1-d1"}, baseDirs(db)...)); after != outside {
		t.Errorf("directories outside the run's own changed:\nbefore %s\nafter  %s", outside, after)
	}
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatalf("second Wipe: %v", err)
	}
}

// checkAuth checks the passwords against the stand-in's own record of
// them: the password file is 0600 and holds what the YSQL role yugabyte
// and the YCQL role yugabyte now have; cassandra's default is gone; the
// shells never saw a password on their command line or in their
// environment; no script or file on the hosts holds it.
func checkAuth(t *testing.T, env testEnv, dep *provision.Deployment, db []infra.Host) {
	t.Helper()
	st, err := os.Stat(dep.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", dep.PasswordFile, st.Mode().Perm())
	}
	pw := readTrim(t, dep.PasswordFile)
	cpw := readTrim(t, filepath.Join(filepath.Dir(dep.PasswordFile), CassandraPasswordFile))
	auth := filepath.Join(env.dir, "shared", "auth")
	for role, want := range map[string]string{"ysql.yugabyte": pw, "ycql.yugabyte": pw, "ycql.cassandra": cpw} {
		if got := readTrim(t, filepath.Join(auth, role)); got != want {
			t.Errorf("the stand-in's password of %s is %q, the secrets say %q", role, got, want)
		}
	}
	if pw == "yugabyte" || cpw == "cassandra" || len(pw) < 32 || pw == cpw {
		t.Errorf("generated passwords %q and %q", pw, cpw)
	}
	calls, err := os.ReadFile(filepath.Join(env.dir, "shared", "clients.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(calls), "ysqlsh -h ") || !strings.Contains(string(calls), "ycqlsh ") {
		t.Errorf("the shells were not called:\n%s", calls)
	}
	for _, secret := range []string{pw, cpw} {
		if strings.Contains(string(calls), secret) {
			t.Errorf("a password reached a shell's command line or environment:\n%s", calls)
		}
		for _, h := range db {
			if p := grepTree(t, h.Base, secret); p != "" {
				t.Errorf("a password is in %s, on the host", p)
			}
		}
	}
	if !strings.HasPrefix(dep.Settings["auth"], "on:") || !strings.Contains(dep.Settings["auth.login_checked"], fmt.Sprintf("every tserver (%d)", len(db))) {
		t.Errorf("auth settings: %q, %q", dep.Settings["auth"], dep.Settings["auth.login_checked"])
	}
}

// grepTree returns the first file under dir that contains s ("" when
// none does).
func grepTree(t *testing.T, dir, s string) string {
	t.Helper()
	found := ""
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || found != "" || !info.Mode().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			found = p
		}
		return nil
	})
	return found
}

// snapshotModes describes the directories and what is directly in them
// (name, mode, owner), for a before/after comparison.
func snapshotModes(t *testing.T, dirs []string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		st, err := os.Lstat(d)
		if err != nil {
			t.Fatal(err)
		}
		sys := st.Sys().(*syscall.Stat_t)
		fmt.Fprintf(&b, "%s %v %d:%d; ", d, st.Mode(), sys.Uid, sys.Gid)
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.Name() == provision.OwnDirName {
				continue // the run's own, made and removed by it
			}
			fmt.Fprintf(&b, "%s/%s; ", d, e.Name())
		}
	}
	return b.String()
}

func baseDirs(hosts []infra.Host) []string {
	var out []string
	for _, h := range hosts {
		out = append(out, h.Base)
	}
	return out
}

// TestIntegrationStandInWrongSHA: a tarball whose sha256 is not the one
// given is refused before anything is uploaded or started.
func TestIntegrationStandInWrongSHA(t *testing.T) {
	env := newTestEnv(t)
	c := &infra.Cluster{Name: "wrongsha", Hosts: []infra.Host{env.dbHost(t, 1)}}
	r := newLocalRunner()
	f := New(WithMasterURL(func(infra.Host) string { return "http://127.0.0.1:1" }), WithReadyTimeout(time.Second))
	_, err := f.Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: env.tarball, SHA256: strings.Repeat("0", 64), SecretsDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "sha256 is "+env.sha) {
		t.Fatalf("got %v", err)
	}
	if exitcode.Of(err) != exitcode.Config {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
	}
	if r.putCount("db1") != 0 || len(r.steps("db1")) != 0 {
		t.Errorf("the host was touched: puts %d, steps %v", r.putCount("db1"), r.steps("db1"))
	}
}

// TestIntegrationStandInDeadTServer: the master API reports one tserver
// DEAD: Install fails within the readiness timeout, saying which tserver
// is dead and what the hosts say of their servers.
func TestIntegrationStandInDeadTServer(t *testing.T) {
	env := newTestEnv(t)
	c := &infra.Cluster{Name: "dead", Hosts: []infra.Host{env.dbHost(t, 1), env.dbHost(t, 2), env.dbHost(t, 3)}}
	db := c.ByRole(infra.RoleDB)
	_, srv := newFakeMasterAPI(standinAPI(db, db, map[string]bool{"db3": true}))
	defer srv.Close()
	r := newLocalRunner()
	const timeout = 2 * time.Second
	f := New(WithMasterURL(func(h infra.Host) string { return srv.URL + "/" + h.Name }),
		WithReadyTimeout(timeout), WithPollInterval(50*time.Millisecond), WithStopGrace(5*time.Second), WithLogger(testLogger(t)))
	t.Cleanup(func() { f.Stop(context.Background(), r, c) })
	start := time.Now()
	_, err := f.Install(context.Background(), r, c, provision.FlavorSpec{Source: env.tarball, SecretsDir: t.TempDir()})
	took := time.Since(start)
	var re *ReadyError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a readiness error", err)
	}
	t.Logf("error: %v", err)
	for _, want := range []string{"not ready (cluster)", "tserver 127.0.0.3:9000 (db3) is DEAD", "127.0.0.3:9000=DEAD", "db3: yb-master running, yb-tserver running"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
	}
	if re.Waited < timeout || took > timeout+20*time.Second {
		t.Errorf("waited %s (Install took %s) with a timeout of %s", re.Waited, took, timeout)
	}
}

// TestIntegrationStandInURL: the tarball from a URL that carries secrets
// (userinfo and a ?token=, which the local HTTP server requires), over
// plain http with its sha256 given, downloaded with curl on the host; the
// secrets reach curl (the server let it in) but no command line (a curl
// shim records its arguments), no script, no file on the host and not the
// deployment. RF 1 on a host of its own (not shared), so transparent
// hugepages are set, in a stand-in directory, never the machine's, and
// reported as a host change; --db-auth=off, so the seeds' flags and
// auth=off. Then a wrong sha256 fails on the host.
func TestIntegrationStandInURL(t *testing.T) {
	env := newTestEnv(t)
	thp := filepath.Join(env.dir, "thp")
	for name, v := range map[string]string{"enabled": "always [madvise] never", "defrag": "always defer [madvise] never", "khugepaged/max_ptes_none": "511"} {
		os.MkdirAll(filepath.Dir(filepath.Join(thp, name)), 0o755)
		if err := os.WriteFile(filepath.Join(thp, name), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const userPW, token = "SECRETPW1", "SECRETTOK2"
	var refused, shaFetched atomic.Int32
	files := http.NewServeMux()
	files.HandleFunc("/releases/"+standinName, func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "u" || p != userPW || r.URL.Query().Get("token") != token {
			refused.Add(1)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		http.ServeFile(w, r, env.tarball)
	})
	files.HandleFunc("/releases/"+standinName+".sha", func(w http.ResponseWriter, r *http.Request) {
		shaFetched.Add(1)
		fmt.Fprintf(w, "%s  %s\n", env.sha, standinName)
	})
	fileSrv := newHTTPServer(t, files)

	// curl as the hosts run it, through a shim that records its arguments.
	realCurl, err := exec.LookPath("curl")
	testenv.Need(t, err == nil, "no curl on PATH")
	shim := filepath.Join(env.dir, "shim")
	curlLog := filepath.Join(env.dir, "curl-argv.log")
	os.Mkdir(shim, 0o755)
	if err := os.WriteFile(filepath.Join(shim, "curl"), []byte("#!/usr/bin/env bash\nprintf '%s\\n' \"$*\" >>"+shellquote.Quote(curlLog)+"\nexec "+shellquote.Quote(realCurl)+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shim+":"+os.Getenv("PATH"))

	h := env.dbHost(t, 1)
	h.Shared = false
	c := &infra.Cluster{Name: "url", Hosts: []infra.Host{h}}
	_, apiSrv := newFakeMasterAPI(standinAPI(c.Hosts, c.Hosts, nil))
	defer apiSrv.Close()
	r := newLocalRunner()
	f := New(WithMasterURL(func(h infra.Host) string { return apiSrv.URL + "/" + h.Name }), WithTHPDir(thp),
		WithReadyTimeout(20*time.Second), WithPollInterval(50*time.Millisecond), WithStopGrace(5*time.Second), WithLogger(testLogger(t)))
	t.Cleanup(func() { f.Wipe(context.Background(), r, c) })
	hostPart := strings.TrimPrefix(fileSrv, "http://")
	url := "http://u:" + userPW + "@" + hostPart + "/releases/" + standinName + "?token=" + token
	redacted := "http://REDACTED@" + hostPart + "/releases/" + standinName + "?REDACTED"
	dep, err := f.Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: url, SHA256: env.sha, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.putCount("db1") != 0 {
		t.Error("a URL source was uploaded")
	}
	if refused.Load() != 0 || shaFetched.Load() != 0 {
		t.Errorf("the file server refused %d requests (credentials not passed) and served the .sha %d times (an http .sha must not be used)", refused.Load(), shaFetched.Load())
	}
	for k, want := range map[string]string{
		"source":                        redacted,
		"source.sha256":                 env.sha,
		"source.sha256_checked_against": "FlavorSpec.SHA256",
		"source.transfer@db1":           "downloaded on the host",
		"os.thp_action@db1":             "set enabled=always defrag=defer+madvise max_ptes_none=0",
		"os.thp_before@db1":             "max_ptes_none=511",
		"yb-master.flags@db1":           "--master_addresses=127.0.0.1:7100 ",
		"auth":                          "off",
	} {
		if got := dep.Settings[k]; !strings.Contains(got, want) {
			t.Errorf("settings[%q] = %q, want it to contain %q", k, got, want)
		}
	}
	if changes := strings.Join(dep.HostChanges["db1"], "; "); !strings.Contains(changes, "enabled=always defrag=defer+madvise khugepaged/max_ptes_none=0") {
		t.Errorf("host changes of db1: %q", changes)
	}
	if dep.User != "yugabyte" || dep.PasswordFile != "" {
		t.Errorf("without auth: user %q, password file %q", dep.User, dep.PasswordFile)
	}
	for name, want := range map[string]string{"enabled": "always", "defrag": "defer+madvise", "khugepaged/max_ptes_none": "0"} {
		if got := readTrim(t, filepath.Join(thp, name)); got != want {
			t.Errorf("THP %s = %q, want %q", name, got, want)
		}
	}
	args := standinRecord(t, h, tserver, "args")
	if strings.Contains(args, "auth") {
		t.Errorf("--db-auth=off, yet the tserver got an auth flag:\n%s", args)
	}
	if !strings.Contains(standinRecord(t, h, master, "args"), "--replication_factor=1") {
		t.Error("RF 1 not passed")
	}

	// Where the secrets went: nowhere but the server.
	argv, err := os.ReadFile(curlLog)
	if err != nil || !strings.Contains(string(argv), "--config /dev/fd/") {
		t.Errorf("curl was not run with its configuration from a pipe: %q, %v", argv, err)
	}
	depJSON, _ := json.Marshal(dep)
	for _, secret := range []string{userPW, token} {
		if strings.Contains(string(argv), secret) {
			t.Errorf("%s on curl's command line:\n%s", secret, argv)
		}
		if strings.Contains(string(depJSON), secret) {
			t.Errorf("%s in the deployment:\n%s", secret, depJSON)
		}
		for _, sc := range r.allScripts() {
			if strings.Contains(sc, secret) {
				t.Errorf("%s in a rendered script", secret)
			}
		}
		if p := grepTree(t, h.Base, secret); p != "" {
			t.Errorf("%s in %s on the host", secret, p)
		}
	}

	// A wrong sha256: the host downloads again, and refuses it.
	_, err = f.Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: url, SHA256: strings.Repeat("f", 64), NoAuth: true})
	if err == nil || !strings.Contains(err.Error(), "sha256 of") || !strings.Contains(err.Error(), "expected "+strings.Repeat("f", 64)) {
		t.Fatalf("got %v", err)
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), userPW) {
		t.Errorf("the error shows the URL's secrets: %v", err)
	}
}

// TestIntegrationOwnDirRefused: a ybbench/ directory the run did not make
// (a user's, unmarked; another run's) stops Install with exit 4 naming
// it, before anything is written, and is left as it was.
func TestIntegrationOwnDirRefused(t *testing.T) {
	env := newTestEnv(t)
	for _, tc := range []struct {
		name, marker, want string
	}{
		{"unmarked", "", "has no .ybbench-owner"},
		{"other run", "run=someone-else\nversion=x\n", "belongs to run someone-else: ybbench down --run someone-else"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := env.dbHost(t, 1)
			h.Base = filepath.Join(env.dir, "refused-"+strings.ReplaceAll(tc.name, " ", "-"))
			own := filepath.Join(h.Base, "ybbench")
			if err := os.MkdirAll(own, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(own, "users-file"), []byte("mine"), 0o644)
			if tc.marker != "" {
				os.WriteFile(filepath.Join(own, provision.OwnerMarker), []byte(tc.marker), 0o644)
			}
			c := &infra.Cluster{Name: "mine", Hosts: []infra.Host{h}}
			r := newLocalRunner()
			_, err := New(WithReadyTimeout(time.Second)).Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: env.tarball, SecretsDir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), own) {
				t.Fatalf("got %v, want an error naming %s and containing %q", err, own, tc.want)
			}
			if exitcode.Of(err) != exitcode.Provision {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
			}
			entries, _ := os.ReadDir(own)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			want := "users-file"
			if tc.marker != "" {
				want = provision.OwnerMarker + ",users-file"
			}
			if strings.Join(names, ",") != want {
				t.Errorf("%s now holds %v", own, names)
			}
			if r.putCount("db1") != 0 {
				t.Error("the tarball was uploaded")
			}
			// Wipe leaves it too.
			if err := New().Wipe(context.Background(), r, c); err != nil {
				t.Logf("wipe: %v", err)
			}
			if _, err := os.Stat(filepath.Join(own, "users-file")); err != nil {
				t.Errorf("wipe removed a directory the run did not make: %v", err)
			}
		})
	}
}

// TestIntegrationStopSparesOthers: a pid file pointing at a process the
// flavor did not start (a reused pid) is not signalled; Stop removes the
// stale pid file only.
func TestIntegrationStopSparesOthers(t *testing.T) {
	env := newTestEnv(t)
	h := env.dbHost(t, 1)
	c := &infra.Cluster{Name: "it-stop", Hosts: []infra.Host{h}}
	l := layoutOf(h)
	if err := os.MkdirAll(l.Run, 0o755); err != nil {
		t.Fatal(err)
	}
	// The run's own directory, as its install marks it: a stop acts only there.
	os.WriteFile(filepath.Join(l.Own, provision.OwnerMarker), []byte("run=it-stop\nversion=test\n"), 0o644)
	other := execSleep(t)
	pidFile := procOf(l, master).PIDFile
	os.WriteFile(pidFile, []byte(strconv.Itoa(other)+"\n"), 0o644)
	if err := New(WithStopGrace(time.Second)).Stop(context.Background(), newLocalRunner(), c); err != nil {
		t.Fatal(err)
	}
	if !alive(other) {
		t.Error("Stop killed a process it did not start")
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("stale pid file kept (%v)", err)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func readTrim(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func pidsOf(t *testing.T, dep *provision.Deployment) []int {
	t.Helper()
	var out []int
	for _, p := range dep.Processes {
		pid, err := strconv.Atoi(readTrim(t, p.PIDFile))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pid)
	}
	return out
}

// newHTTPServer serves h on loopback until the test ends.
func newHTTPServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// execSleep starts a process the flavor did not start, killed when the
// test ends.
func execSleep(t *testing.T) int {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// clockRecord is what the prepare script must record about this machine's
// clock synchronisation, found by asking the machine the same questions:
// chronyc's tracking when there is a chronyc (parsed, or its failure),
// else timedatectl's NTPSynchronized, else that it is unknown.
func clockRecord(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("chronyc"); err == nil {
		return "chronyc tracking"
	}
	if _, err := exec.LookPath("timedatectl"); err == nil {
		if out, err := exec.Command("timedatectl", "show", "-p", "NTPSynchronized", "--value").Output(); err == nil {
			return "chronyc not found; timedatectl NTPSynchronized=" + strings.TrimSpace(string(out))
		}
	}
	return "chronyc not found; clock sync unknown"
}
