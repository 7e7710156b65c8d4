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
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
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
		env.dbHost(1, filepath.Join(env.dir, "disks", "db1-d0"), filepath.Join(env.dir, "disks", "db1-d1")),
		env.dbHost(2), env.dbHost(3), env.dbHost(4),
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
		"ysql_hba_conf_csv":         "host all all 0.0.0.0/0 trust,local all all trust",
		"tserver.ysql_pg_conf_csv":  "log_min_duration_statement=100,timezone='UTC'",
		"master.durable_wal_write":  "true",
	}
	spec := provision.FlavorSpec{Version: standinVersion, Source: env.tarball, SHA256: env.sha, Settings: settings, Logger: testLogger(t)}

	dep, err := f.Install(ctx, r, c, spec)
	if err != nil {
		t.Fatal(err)
	}

	// The deployment.
	if b, err := json.MarshalIndent(dep, "", "  "); err == nil {
		t.Logf("deployment.json:\n%s", b)
	}
	if dep.Flavor != "yugabyte" || dep.Version != standinVersion || dep.User != "yugabyte" || dep.Database != "yugabyte" {
		t.Errorf("deployment %+v", dep)
	}
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
		"software@db4":                  filepath.Join(db[3].Base, "yugabyte", "yugabyte-"+standinVersion),
		"yb-master.flags@db1":           "--master_addresses=127.0.0.1:7100,127.0.0.2:7100,127.0.0.3:7100",
		"yb-tserver.flags@db4":          "'--ysql_pg_conf_csv=log_min_duration_statement=100,timezone='\\''UTC'\\'''",
		"ready.leader":                  "127.0.0.1",
		"version.api":                   `"version_number":"2.20.0.0"`,
		"yb-tserver.limits@db3":         "nofile=",
		"os.clock@db1":                  "",
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
		sw := filepath.Join(h.Base, "yugabyte", "yugabyte-"+standinVersion)
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
	for _, want := range []string{"--replication_factor=3", "--fs_data_dirs=" + filepath.Join(env.dir, "disks", "db1-d0") + "," + filepath.Join(env.dir, "disks", "db1-d1"),
		"--placement_cloud=local", "--placement_zone=local-a", "--webserver_interface=127.0.0.1", "--yb_num_shards_per_tserver=8", "--durable_wal_write=true"} {
		if !slices.Contains(strings.Split(args, "\n"), want) {
			t.Errorf("yb-master on db1 lacks %q:\n%s", want, args)
		}
	}
	args = standinRecord(t, db[3], tserver, "args")
	for _, want := range []string{"--tserver_master_addrs=127.0.0.1:7100,127.0.0.2:7100,127.0.0.3:7100", "--rpc_bind_addresses=127.0.0.4:9100",
		"--pgsql_proxy_bind_address=127.0.0.4:5433", "--cql_proxy_bind_address=127.0.0.4:9042", "--enable_ysql=true",
		"--ysql_pg_conf_csv=log_min_duration_statement=100,timezone='UTC'",
		"--ysql_hba_conf_csv=host all all 0.0.0.0/0 trust,local all all trust", "--yb_num_shards_per_tserver=8", "--fs_data_dirs=" + filepath.Join(db[3].Base, "data")} {
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
		sw := filepath.Join(h.Base, "yugabyte", "yugabyte-"+standinVersion)
		if n := countLines(t, filepath.Join(sw, "post_install.ran")); n != 1 {
			t.Errorf("%s: post_install.sh ran %d times after the second Install", h.Name, n)
		}
	}
	checkOrder(t, orderLines(t, env.orderLog), 3, 4)
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

	// Wipe: Base/yugabyte and yb-data gone, a given data dir kept empty,
	// the default one removed; again: no error.
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	for _, h := range db {
		if _, err := os.Stat(filepath.Join(h.Base, "yugabyte")); !os.IsNotExist(err) {
			t.Errorf("%s: Base/yugabyte still there (%v)", h.Name, err)
		}
		for _, d := range dataDirs(h) {
			if _, err := os.Stat(filepath.Join(d, "yb-data")); !os.IsNotExist(err) {
				t.Errorf("%s: %s/yb-data still there (%v)", h.Name, d, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(db[0].DataDirs[0])); err != nil {
		t.Errorf("a data dir given in the cluster was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(db[1].Base, "data")); !os.IsNotExist(err) {
		t.Errorf("the default data dir is still there (%v)", err)
	}
	if err := f.Wipe(ctx, r, c); err != nil {
		t.Fatalf("second Wipe: %v", err)
	}
}

// TestIntegrationStandInWrongSHA: a tarball whose sha256 is not the one
// given is refused before anything is uploaded or started.
func TestIntegrationStandInWrongSHA(t *testing.T) {
	env := newTestEnv(t)
	c := &infra.Cluster{Hosts: []infra.Host{env.dbHost(1)}}
	r := newLocalRunner()
	f := New(WithMasterURL(func(infra.Host) string { return "http://127.0.0.1:1" }), WithReadyTimeout(time.Second))
	_, err := f.Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: env.tarball, SHA256: strings.Repeat("0", 64)})
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
	c := &infra.Cluster{Hosts: []infra.Host{env.dbHost(1), env.dbHost(2), env.dbHost(3)}}
	db := c.ByRole(infra.RoleDB)
	_, srv := newFakeMasterAPI(standinAPI(db, db, map[string]bool{"db3": true}))
	defer srv.Close()
	r := newLocalRunner()
	const timeout = 2 * time.Second
	f := New(WithMasterURL(func(h infra.Host) string { return srv.URL + "/" + h.Name }),
		WithReadyTimeout(timeout), WithPollInterval(50*time.Millisecond), WithStopGrace(5*time.Second), WithLogger(testLogger(t)))
	t.Cleanup(func() { f.Stop(context.Background(), r, c) })
	start := time.Now()
	_, err := f.Install(context.Background(), r, c, provision.FlavorSpec{Source: env.tarball})
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

// TestIntegrationStandInURL: the tarball from a URL (a local HTTP server),
// downloaded with curl on the host, its sha256 from <url>.sha as the
// release server publishes it; RF 1 on a host of its own (not shared), so
// transparent hugepages are set, in a stand-in directory, never the
// machine's. Then a wrong sha256 fails on the host.
func TestIntegrationStandInURL(t *testing.T) {
	env := newTestEnv(t)
	thp := filepath.Join(env.dir, "thp")
	for name, v := range map[string]string{"enabled": "always [madvise] never", "defrag": "always defer [madvise] never", "khugepaged/max_ptes_none": "511"} {
		os.MkdirAll(filepath.Dir(filepath.Join(thp, name)), 0o755)
		if err := os.WriteFile(filepath.Join(thp, name), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := http.NewServeMux()
	files.HandleFunc("/releases/"+standinName, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, env.tarball) })
	files.HandleFunc("/releases/"+standinName+".sha", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "%s  %s\n", env.sha, standinName) })
	fileSrv := newHTTPServer(t, files)

	h := env.dbHost(1)
	h.Shared = false
	c := &infra.Cluster{Hosts: []infra.Host{h}}
	_, apiSrv := newFakeMasterAPI(standinAPI(c.Hosts, c.Hosts, nil))
	defer apiSrv.Close()
	r := newLocalRunner()
	f := New(WithMasterURL(func(h infra.Host) string { return apiSrv.URL + "/" + h.Name }), WithTHPDir(thp),
		WithReadyTimeout(20*time.Second), WithPollInterval(50*time.Millisecond), WithStopGrace(5*time.Second), WithLogger(testLogger(t)))
	t.Cleanup(func() { f.Wipe(context.Background(), r, c) })
	url := fileSrv + "/releases/" + standinName
	dep, err := f.Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: url})
	if err != nil {
		t.Fatal(err)
	}
	if r.putCount("db1") != 0 {
		t.Error("a URL source was uploaded")
	}
	for k, want := range map[string]string{
		"source.sha256":          env.sha,
		"source.sha256_from@db1": url + ".sha",
		"source.transfer@db1":    "downloaded on the host",
		"os.thp_action@db1":      "set enabled=always defrag=defer+madvise max_ptes_none=0",
		"os.thp_before@db1":      "max_ptes_none=511",
		"yb-master.flags@db1":    "--master_addresses=127.0.0.1:7100 ",
	} {
		if got := dep.Settings[k]; !strings.Contains(got, want) {
			t.Errorf("settings[%q] = %q, want it to contain %q", k, got, want)
		}
	}
	for name, want := range map[string]string{"enabled": "always", "defrag": "defer+madvise", "khugepaged/max_ptes_none": "0"} {
		if got := readTrim(t, filepath.Join(thp, name)); got != want {
			t.Errorf("THP %s = %q, want %q", name, got, want)
		}
	}
	if !strings.Contains(standinRecord(t, h, master, "args"), "--replication_factor=1") {
		t.Error("RF 1 not passed")
	}

	// A wrong sha256: the host downloads again, and refuses it.
	_, err = f.Install(context.Background(), r, c, provision.FlavorSpec{RF: 1, Source: url, SHA256: strings.Repeat("f", 64)})
	if err == nil || !strings.Contains(err.Error(), "sha256 of") || !strings.Contains(err.Error(), "expected "+strings.Repeat("f", 64)) {
		t.Fatalf("got %v", err)
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
	}
}

// TestIntegrationStopSparesOthers: a pid file pointing at a process the
// flavor did not start (a reused pid) is not signalled; Stop removes the
// stale pid file only.
func TestIntegrationStopSparesOthers(t *testing.T) {
	env := newTestEnv(t)
	h := env.dbHost(1)
	c := &infra.Cluster{Hosts: []infra.Host{h}}
	l := layoutOf(h)
	if err := os.MkdirAll(l.Run, 0o755); err != nil {
		t.Fatal(err)
	}
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
