package postgres

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/provision"
)

func TestRenderedScripts(t *testing.T) {
	h := infra.Host{Name: "db1", PrivateIP: "10.213.0.2", Base: "/runs/r1/hosts/db1", ServiceUser: "ybbench", Shared: true}
	conf := ConfLines(h, dir(h), 5433, 2, map[string]string{"max_connections": "300"})
	for _, c := range []struct {
		name string
		n    node
	}{
		{"node", node{Host: "db1", User: "ybbench", Dir: dir(h), Sock: sockDir(dir(h)), Shared: true}},
		{"primary", node{Host: "db1", User: "ybbench", Dir: dir(h), Sock: sockDir(dir(h)), Bin: "/usr/lib/postgresql/15/bin", Port: 5433, DBUser: "ybbench", Database: "ycsb", Conf: conf}},
		{"replica", node{Host: "db2", User: "ybbench", Dir: "/runs/r1/hosts/db2/postgres", Bin: "/usr/lib/postgresql/15/bin", Port: 5433, Primary: "10.213.0.2", Conf: conf[:3]}},
		{"quorum", node{Host: "db1", User: "ybbench", Dir: dir(h), Bin: "/usr/lib/postgresql/15/bin", Quorum: Quorum([]string{"db-2", "db-3"})}},
		{"stop", node{Host: "db1", User: "ybbench", Dir: dir(h), Sock: sockDir(dir(h))}},
	} {
		s, err := render(c.name, c.n)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, c.name+".sh", []byte(s))
		golden.BashSyntax(t, c.name, s)
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
