//go:build integration && !race

package ycql

import (
	"testing"

	"github.com/gocql/gocql"
)

// The partition-aware pick costs two allocations per statement when its
// first host answers, at QUORUM (the leader) and at ONE (a shuffled
// replica): the NextHost function gocql requires and the walk's state it
// keeps. One is not reachable: a Go function value that keeps state holds
// it in a second heap object (a closure over a counter allocates twice, as
// a method value over a struct does), and gocql never says when the
// function is done with, so neither can be reused. Built without -race,
// whose instrumentation allocates.
func TestIntegrationPartitionAwarePickAllocations(t *testing.T) {
	p := NewPartitionAwarePolicy(gocql.RoundRobinHostPolicy(), nil)
	a, b, c := host("10.0.0.1"), host("10.0.0.2"), host("10.0.0.3")
	for _, h := range []*gocql.HostInfo{a, b, c} {
		p.AddHost(h)
	}
	m, err := BuildPartitionMap([]PartitionRow{
		{Keyspace: "ks", Table: "t", Replicas: map[string]string{"10.0.0.2": "LEADER", "10.0.0.1": "FOLLOWER", "10.0.0.3": "FOLLOWER"}},
		{Keyspace: "ks", Table: "t", StartKey: []byte{0x80, 0}, Replicas: map[string]string{"10.0.0.1": "LEADER", "10.0.0.3": "FOLLOWER"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.pmap = m
	p.keyTypes = map[TableName][]KeyType{{"ks", "t"}: {KeyRaw}}
	p.rebuildLocked()
	p.mu.Unlock()
	for _, cl := range []gocql.Consistency{gocql.Quorum, gocql.One} {
		q := &routed{rk: []byte("key:1234"), ks: "ks", table: "t", cl: cl}
		want := p.snap.Load().tables[TableName{"ks", "t"}].replicas[0]
		if i := p.snap.Load().tables[TableName{"ks", "t"}].lookup(PartitionHash([]byte("key:1234"))); i != 0 {
			want = p.snap.Load().tables[TableName{"ks", "t"}].replicas[i]
		}
		var first *gocql.HostInfo
		allocs := testing.AllocsPerRun(1000, func() {
			first = p.Pick(q)().Info()
		})
		if !containsHost(want, first) || (cl == gocql.Quorum && first != want[0]) {
			t.Errorf("%v: first host %v, want a replica of %v (the leader at QUORUM)", cl, first, want)
		}
		if allocs > 2 {
			t.Errorf("%v: %.1f allocations per pick, want at most 2", cl, allocs)
		}
	}
}
