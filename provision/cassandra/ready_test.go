package cassandra

import (
	"errors"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

func threeNodes() []infra.Host {
	return []infra.Host{{Name: "db1", PrivateIP: "10.0.0.1"}, {Name: "db2", PrivateIP: "10.0.0.2"}, {Name: "db3", PrivateIP: "10.0.0.3"}}
}

// healthy is what a whole cluster of nodes says.
func healthy(nodes []infra.Host) observation {
	o := observation{nodes: nodes, states: make([]NodeState, len(nodes)), errs: make([]error, len(nodes))}
	for i, h := range nodes {
		st := NodeState{ReleaseVersion: "5.0.9", SchemaVersion: "aaaaaaaa-1", HostID: "id-" + h.Name, Bootstrapped: "COMPLETED", Gossip: map[string]string{}}
		for _, p := range nodes {
			if p.Name != h.Name {
				st.Peers = append(st.Peers, Peer{Addr: p.PrivateIP, HostID: "id-" + p.Name, SchemaVersion: "aaaaaaaa-1"})
				st.Gossip[p.PrivateIP] = "NORMAL,42"
			}
		}
		o.states[i] = st
	}
	return o
}

func TestReadinessProblems(t *testing.T) {
	all := threeNodes()
	if p := healthy(all).problems(all); len(p) != 0 {
		t.Errorf("a whole cluster: %v", p)
	}
	// Two of three started: they only need each other.
	if p := healthy(all[:2]).problems(all); len(p) != 0 {
		t.Errorf("two started nodes: %v", p)
	}
	for _, c := range []struct {
		name    string
		breakIt func(o *observation)
		want    string
	}{
		{"no CQL", func(o *observation) { o.errs[2] = errors.New("connection refused") }, "db3 (10.0.0.3): CQL: connection refused"},
		{"bootstrapping", func(o *observation) { o.states[1].Bootstrapped = "IN_PROGRESS" }, `db2: bootstrapped="IN_PROGRESS"`},
		{"missing peer", func(o *observation) { o.states[0].Peers = o.states[0].Peers[:1] }, "db1 does not list db3 in system.peers yet"},
		{"no host id", func(o *observation) { o.states[0].Peers[0].HostID = "" }, "db1 lists db2 without a host id"},
		{"peer schema", func(o *observation) { o.states[0].Peers[1].SchemaVersion = "bbbbbbbb-2" }, "db1 sees db3 at schema bbbbbbbb, its own is aaaaaaaa"},
		{"schemas differ", func(o *observation) {
			o.states[2].SchemaVersion = "cccccccc-3"
			for i := range o.states[2].Peers {
				o.states[2].Peers[i].SchemaVersion = "cccccccc-3"
			}
		}, "schema versions differ: aaaaaaaa on db1,db2; cccccccc on db3"},
		{"stranger", func(o *observation) {
			o.states[1].Peers = append(o.states[1].Peers, Peer{Addr: "10.9.9.9", HostID: "x"})
		}, "db2: peer 10.9.9.9 is not a db host of this cluster"},
		{"gossip", func(o *observation) { o.states[0].Gossip["10.0.0.2"] = "LEAVING,42" }, `db1's gossip has db2 as "LEAVING,42", not NORMAL`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := healthy(all)
			c.breakIt(&o)
			p := o.problems(all)
			if !strings.Contains(strings.Join(p, "\n"), c.want) {
				t.Errorf("problems %q, want %q", p, c.want)
			}
		})
	}
	// A node without the gossip table is judged on the rest.
	o := healthy(all)
	o.states[0].Gossip = nil
	if p := o.problems(all); len(p) != 0 {
		t.Errorf("without gossip_info: %v", p)
	}
}

func TestReadinessSummary(t *testing.T) {
	all := threeNodes()
	o := healthy(all)
	o.errs[2] = errors.New("connection refused")
	got := o.summary()
	want := "db1: 5.0.9 COMPLETED, schema aaaaaaaa, peers [10.0.0.2 schema aaaaaaaa NORMAL, 10.0.0.3 schema aaaaaaaa NORMAL]; " +
		"db2: 5.0.9 COMPLETED, schema aaaaaaaa, peers [10.0.0.1 schema aaaaaaaa NORMAL, 10.0.0.3 schema aaaaaaaa NORMAL]; " +
		"db3: no CQL (connection refused)"
	if got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
}
