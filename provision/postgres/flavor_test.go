package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/provision"
)

func TestRenderedScripts(t *testing.T) {
	h := infra.Host{Name: "db1", PrivateIP: "10.213.0.2", Base: "/runs/r1/hosts/db1", ServiceUser: "ybbench", Shared: true}
	h2 := infra.Host{Name: "db2", PrivateIP: "10.213.0.3", Base: "/runs/r1/hosts/db2", DataDirs: []string{"/disks/d0", "/disks/d1"}, ServiceUser: "ybbench"}
	c := &infra.Cluster{Name: "r1", Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.213.0.2"},
		{Name: "db2", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.213.0.3"},
		{Name: "c1", Roles: []infra.Role{infra.RoleClient}, PrivateIP: "10.213.0.9"},
	}}
	hba, err := HBA(c, "ycsb", "ybbench", false)
	if err != nil {
		t.Fatal(err)
	}
	conf := ConfLines(h, sockDir(h), 5433, 2, map[string]string{"max_connections": "300"})
	with := func(n node, f func(*node)) node { f(&n); return n }
	primary := with(newNode(h, "r1", "v1.2.3"), func(n *node) {
		n.Bin, n.Port, n.DBUser, n.Database, n.Conf, n.HBA, n.Quorum = "/usr/lib/postgresql/15/bin", 5433, "ybbench", "ycsb", conf, hba, Quorum([]string{"db-2", "db-3"})
	})
	for _, c := range []struct {
		name, tmpl string
		n          node
	}{
		{"node", "node", newNode(h, "r1", "v1.2.3")},
		{"node-own-host", "node", newNode(h2, "r1", "v1.2.3")},
		{"primary", "primary", primary},
		{"replica", "replica", with(newNode(h2, "r1", "v1.2.3"), func(n *node) {
			n.Bin, n.Port, n.Primary, n.Conf = "/usr/lib/postgresql/15/bin", 5433, "10.213.0.2", conf[:3]
		})},
		{"quorum", "quorum", primary},
		{"stop", "stop", newNode(h, "r1", "")},
		{"settings", "settings", primary},
		{"status", "status", primary},
	} {
		s, err := render(c.tmpl, c.n)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, c.name+".sh", []byte(s))
		golden.BashSyntax(t, c.name, s)
		// Nothing of the run outside its own directory, and no way in for
		// everyone.
		for _, bad := range []string{"/tmp/", "chmod o+x", " trust", "SUPERUSER'", "0.0.0.0/0", "YB_DB_PASSWORD", "YB_REPL_PASSWORD"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s: the script contains %q", c.name, bad)
			}
		}
	}
}

// The run's own directory holds everything, under the first data
// directory or the base.
func TestDirectoriesAreTheRunsOwn(t *testing.T) {
	h := infra.Host{Name: "db1", Base: "/b/hosts/db1", DataDirs: []string{"/disks/d0", "/disks/d1"}}
	if dir(h) != "/disks/d0/ybbench/postgres" || sockDir(h) != "/disks/d0/ybbench/pgs" {
		t.Errorf("dir %s, socket %s", dir(h), sockDir(h))
	}
	h.DataDirs = nil
	if dir(h) != "/b/hosts/db1/ybbench/postgres" || sockDir(h) != "/b/hosts/db1/ybbench/pgs" {
		t.Errorf("dir %s, socket %s", dir(h), sockDir(h))
	}
}

// A socket path over 107 bytes is refused at install with exit 2, naming
// the path and its length, before any script runs on the host.
func TestLongSocketPathRefused(t *testing.T) {
	base := "/srv-runs/" + strings.Repeat("x", 70) + "/hosts/db1"
	h := infra.Host{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.0.0.2", Base: base, ServiceUser: "ybbench"}
	c := &infra.Cluster{Name: "r1", Hosts: []infra.Host{h}}
	r := &noRunner{}
	_, err := (&Flavor{}).Install(context.Background(), r, c, provision.FlavorSpec{SecretsDir: t.TempDir(), RunID: "r1"})
	want := base + "/ybbench/pgs/.s.PGSQL.5433"
	if exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Itoa(len(want))+" bytes") {
		t.Fatalf("install over a %d-byte socket path: %v (exit %d), want exit 2 naming %s", len(want), err, exitcode.Of(err), want)
	}
	if r.runs != 0 {
		t.Errorf("%d scripts ran before the refusal", r.runs)
	}
	// The longest path that fits is taken.
	h.Base = "/" + strings.Repeat("y", MaxSocketPath-len("//ybbench/pgs/.s.PGSQL.5433"))
	if err := checkSocketPath(h, 5433); err != nil {
		t.Errorf("a %d-byte path refused: %v", MaxSocketPath, err)
	}
	h.Base += "y"
	if err := checkSocketPath(h, 5433); err == nil {
		t.Errorf("a %d-byte path accepted", MaxSocketPath+1)
	}
}

// noRunner counts the scripts a flavor tries to run, and runs none.
type noRunner struct {
	provision.Runner
	runs int
}

func (r *noRunner) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (provision.Result, error) {
	r.runs++
	return provision.Result{Host: h.Name, ExitCode: 1}, nil
}

// pg_hba.conf: the service user's peer map over the socket, replication
// from the db hosts, the bench database from db and client hosts, each a
// /32 (or /128), scram; trust only with NoAuth; nothing else.
func TestHBA(t *testing.T) {
	c := &infra.Cluster{Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.0.0.2"},
		{Name: "db2", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.0.0.3"},
		{Name: "c1", Roles: []infra.Role{infra.RoleClient}, PrivateIP: "fd00::9"},
		{Name: "mon", Roles: []infra.Role{"monitor"}, PrivateIP: "10.0.0.50"},
	}}
	got, err := HBA(c, "ycsb", "ybbench", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"local all postgres peer map=ybbench",
		"host replication repl 10.0.0.2/32 scram-sha-256",
		"host replication repl 10.0.0.3/32 scram-sha-256",
		"host ycsb,postgres ybbench 10.0.0.2/32 scram-sha-256",
		"host ycsb,postgres ybbench 10.0.0.3/32 scram-sha-256",
		"host ycsb,postgres ybbench fd00::9/128 scram-sha-256",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pg_hba.conf:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	open, err := HBA(c, "ycsb", "ybbench", true)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(open, "\n"), " trust"); n != 5 || open[0] != want[0] {
		t.Errorf("with NoAuth, %d trust lines (want 5, one per address and kind), socket line %q:\n%s", n, open[0], strings.Join(open, "\n"))
	}
	c.Hosts[2].PrivateIP = "all"
	if _, err := HBA(c, "ycsb", "ybbench", false); exitcode.Of(err) != exitcode.Config {
		t.Errorf("a private IP that is not an address: %v", err)
	}
}

func TestQuorumIsAMajorityOfTheNodes(t *testing.T) {
	for replicas, want := range map[int]string{0: "", 1: `ANY 1 ("r1")`, 2: `ANY 1 ("r1", "r2")`, 4: `ANY 2 ("r1", "r2", "r3", "r4")`} {
		var names []string
		for i := 1; i <= replicas; i++ {
			names = append(names, "r"+string(rune('0'+i)))
		}
		if got := Quorum(names); got != want {
			t.Errorf("%d replicas: %q, want %q", replicas, got, want)
		}
	}
	if got := strings.Join(ConfLines(infra.Host{PrivateIP: "10.0.0.1"}, "/d", 5433, 8, nil), "\n"); strings.Contains(got, "synchronous_standby_names") {
		t.Errorf("the quorum is set apart, once the replicas stream: %s", got)
	}
	if got := strings.Join(ConfLines(infra.Host{PrivateIP: "10.0.0.1"}, "/d", 5433, 8, nil), "\n"); !strings.Contains(got, "max_wal_senders = 26") {
		t.Errorf("8 replicas built at once need 26 WAL senders: %s", got)
	}
	if got := strings.Join(ConfLines(infra.Host{PrivateIP: "10.0.0.1"}, "/d", 5433, 28, nil), "\n"); !strings.Contains(got, "max_replication_slots = 30") {
		t.Errorf("28 replicas' base backups at once need a temporary slot each: %s", got)
	}
}

func TestSettingsAreChecked(t *testing.T) {
	for _, bad := range []map[string]string{{"port": "99999"}, {"conf.x'y": "1"}, {"conf.work_mem": "1'; DROP"}, {"colour": "red"}, {"database": "Bad-Name"}} {
		if _, _, _, _, err := settings(provision.FlavorSpec{Settings: bad}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	port, db, user, conf, err := settings(provision.FlavorSpec{Settings: map[string]string{"port": "6000", "conf.work_mem": "64MB"}})
	if err != nil || port != 6000 || db != "ycsb" || user != "ybbench" || conf["work_mem"] != "64MB" {
		t.Errorf("%d %s %s %v %v", port, db, user, conf, err)
	}
}
