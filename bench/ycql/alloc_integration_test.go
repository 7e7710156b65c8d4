//go:build integration && !race

package ycql

import (
	"context"
	"testing"

	"github.com/gocql/gocql"
)

// The partition-aware pick of the agent's statements costs one allocation
// when its first host answers, at QUORUM (the leader) and at ONE (a
// shuffled replica): the NextHost function gocql requires; the walk's state
// is the worker's own (PickReuse). A statement whose worker did not arm it
// costs two: a Go function value that keeps state holds it in a second
// heap object, and gocql never says when the function is done with. Built
// without -race, whose instrumentation allocates.
func TestIntegrationPartitionAwarePickAllocations(t *testing.T) {
	p, _ := routingPolicy(t, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"},
		PartitionRow{Keyspace: "ks", Table: "t", Replicas: map[string]string{"10.0.0.2": "LEADER", "10.0.0.1": "FOLLOWER", "10.0.0.3": "FOLLOWER"}},
		PartitionRow{Keyspace: "ks", Table: "t", StartKey: []byte{0x80, 0}, Replicas: map[string]string{"10.0.0.1": "LEADER", "10.0.0.3": "FOLLOWER"}})
	for _, cl := range []gocql.Consistency{gocql.Quorum, gocql.One} {
		q := &routed{rk: []byte("key:1234"), ks: "ks", table: "t", cl: cl}
		want := p.snap.Load().tables[TableName{"ks", "t"}].replicas[0]
		if i := p.snap.Load().tables[TableName{"ks", "t"}].lookup(PartitionHash([]byte("key:1234"))); i != 0 {
			want = p.snap.Load().tables[TableName{"ks", "t"}].replicas[i]
		}
		var r PickReuse
		for _, armed := range []bool{true, false} {
			var first *gocql.HostInfo
			allocs := testing.AllocsPerRun(1000, func() {
				if armed {
					q.ctx = r.Arm(context.Background())
				}
				first = p.Pick(q)().Info()
			})
			if !containsHost(want, first) || (cl == gocql.Quorum && first != want[0]) {
				t.Errorf("%v: first host %v, want a replica of %v (the leader at QUORUM)", cl, first, want)
			}
			if limit := map[bool]float64{true: 1, false: 2}[armed]; allocs > limit {
				t.Errorf("%v, armed %v: %.1f allocations per pick, want at most %.0f", cl, armed, allocs, limit)
			}
		}
	}
}
