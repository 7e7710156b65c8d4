package ycql

import (
	"context"
	"net"
	"reflect"
	"sync"
	"testing"

	"github.com/gocql/gocql"
)

func host(ip string) *gocql.HostInfo { return (&gocql.HostInfo{}).SetConnectAddress(net.ParseIP(ip)) }

func TestOrderReplicas(t *testing.T) {
	replicas := []string{"leader", "f1", "f2"}
	reverse := func(n int, swap func(i, j int)) {
		for i := 0; i < n/2; i++ {
			swap(i, n-1-i)
		}
	}
	if got := OrderReplicas(replicas, gocql.Quorum, reverse); !reflect.DeepEqual(got, replicas) {
		t.Errorf("QUORUM order %v, want the leader first as given", got)
	}
	got := OrderReplicas(replicas, gocql.One, reverse)
	if !reflect.DeepEqual(got, []string{"f2", "f1", "leader"}) {
		t.Errorf("ONE order %v, want the shuffle applied", got)
	}
	if !reflect.DeepEqual(replicas, []string{"leader", "f1", "f2"}) {
		t.Errorf("the tablet's own list was shuffled: %v", replicas)
	}
	if !StrongConsistency(gocql.Quorum) || !StrongConsistency(gocql.LocalOne) || StrongConsistency(gocql.One) || StrongConsistency(gocql.All) {
		t.Error("StrongConsistency: want QUORUM and LOCAL_ONE only, as the reference's isYBStrong")
	}
}

type fakeChild struct {
	hosts []*gocql.HostInfo
	local map[*gocql.HostInfo]bool
}

func (f *fakeChild) IsLocal(h *gocql.HostInfo) bool { return f.local == nil || f.local[h] }
func (f *fakeChild) Pick(gocql.ExecutableQuery) gocql.NextHost {
	i := 0
	return func() gocql.SelectedHost {
		if i >= len(f.hosts) {
			return nil
		}
		i++
		return (*chosenHost)(f.hosts[i-1])
	}
}

func drain(next gocql.NextHost) []*gocql.HostInfo {
	var out []*gocql.HostInfo
	for h := next(); h != nil; h = next() {
		out = append(out, h.Info())
	}
	return out
}

func TestPickOverTriesReplicasThenTheRestOnce(t *testing.T) {
	a, b, c, d := host("10.0.0.1"), host("10.0.0.2"), host("10.0.0.3"), host("10.0.0.4")
	child := &fakeChild{hosts: []*gocql.HostInfo{d, c, b, a}}
	got := drain(pickOver([]*gocql.HostInfo{b, a}, true, child, nil))
	if want := []*gocql.HostInfo{b, a, d, c}; !reflect.DeepEqual(got, want) {
		t.Errorf("strong: %v, want %v", got, want)
	}
	// Weak consistency and a remote replica: it is not tried first, and the
	// child may still yield it.
	child.local = map[*gocql.HostInfo]bool{a: true, c: true, d: true}
	got = drain(pickOver([]*gocql.HostInfo{b, a}, false, child, nil))
	if want := []*gocql.HostInfo{a, d, c, b}; !reflect.DeepEqual(got, want) {
		t.Errorf("weak: %v, want %v", got, want)
	}
}

// The snapshot resolves the partition map's addresses to the session's
// hosts, keeps the replica order, and drops replicas the session does not
// know; lookups agree with the map's own.
func TestRebuildResolvesReplicasToHosts(t *testing.T) {
	p := NewPartitionAwarePolicy(gocql.RoundRobinHostPolicy(), nil)
	a, b := host("10.0.0.1"), host("10.0.0.2")
	p.AddHost(a)
	p.AddHost(b)
	m, err := BuildPartitionMap([]PartitionRow{
		{Keyspace: "ks", Table: "t", Replicas: map[string]string{"10.0.0.2": "LEADER", "10.0.0.1": "FOLLOWER", "10.9.9.9": "FOLLOWER"}},
		{Keyspace: "ks", Table: "t", StartKey: []byte{0x80, 0}, Replicas: map[string]string{"10.0.0.1": "LEADER"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.pmap = m
	p.rebuildLocked()
	p.mu.Unlock()
	rt := p.snap.Load().tables[TableName{"ks", "t"}]
	if rt == nil {
		t.Fatal("no route for ks.t")
	}
	if !reflect.DeepEqual(rt.replicas, [][]*gocql.HostInfo{{b, a}, {a}}) {
		t.Errorf("replicas %v", rt.replicas)
	}
	for _, h := range []uint16{0, 1, 0x7fff, 0x8000, 0xffff} {
		want := 0
		if h >= 0x8000 {
			want = 1
		}
		if got := rt.lookup(h); got != want {
			t.Errorf("lookup(%#x) = %d, want %d", h, got, want)
		}
	}
	p.RemoveHost(b)
	if rt := p.snap.Load().tables[TableName{"ks", "t"}]; !reflect.DeepEqual(rt.replicas[0], []*gocql.HostInfo{a}) {
		t.Errorf("after removing the leader's host: %v", rt.replicas[0])
	}
}

// A batch has no table in gocql; the policy takes it from the first
// statement's text.
func TestTableOfABatch(t *testing.T) {
	p := NewPartitionAwarePolicy(gocql.RoundRobinHostPolicy(), nil)
	b := gocql.NewBatch(gocql.LoggedBatch) //nolint:staticcheck // a batch without a session, for the test
	b.Query("INSERT INTO CassandraKeyValue (k, v) VALUES (?, ?);")
	if got := p.tableOf(b); got != (TableName{"", "cassandrakeyvalue"}) {
		t.Errorf("tableOf = %+v", got)
	}
}

func TestStatementTable(t *testing.T) {
	for _, c := range []struct{ stmt, ks, table string }{
		{"INSERT INTO CassandraKeyValue (k, v) VALUES (?, ?);", "", "cassandrakeyvalue"},
		{"insert into ybdemo_keyspace.kv (k) values (?)", "ybdemo_keyspace", "kv"},
		{`UPDATE "MyKs"."Tab" SET v = ? WHERE k = ?`, "MyKs", "Tab"},
		{"DELETE FROM usertable WHERE y_id = ?", "", "usertable"},
		{"SELECT k, v FROM t WHERE k = ?", "", "t"},
		{"CREATE TABLE t (k int)", "", ""},
	} {
		ks, tb := StatementTable(c.stmt)
		if ks != c.ks || tb != c.table {
			t.Errorf("StatementTable(%q) = %q, %q; want %q, %q", c.stmt, ks, tb, c.ks, c.table)
		}
	}
}

// At ONE a tablet's replicas are tried in a random order, each once, then
// the child's other hosts; the tablet's own list is left as it is.
func TestPickAtOneShufflesEachReplicaOnce(t *testing.T) {
	p, a, b, c, d := tabletPolicy(t)
	firsts := map[*gocql.HostInfo]int{}
	for range 300 {
		got := drain(p.Pick(&routed{rk: []byte("k"), ks: "ks", table: "t", cl: gocql.One}))
		if len(got) != 4 || got[3] != d || !containsHost(got[:3], a) || !containsHost(got[:3], b) || !containsHost(got[:3], c) {
			t.Fatalf("plan %v: want the three replicas in some order, then 10.0.0.4", got)
		}
		firsts[got[0]]++
	}
	if len(firsts) != 3 {
		t.Errorf("first hosts over 300 picks: %v, want each replica", firsts)
	}
	if rt := p.snap.Load().tables[TableName{"ks", "t"}]; !reflect.DeepEqual(rt.replicas[0], []*gocql.HostInfo{b, a, c}) && !reflect.DeepEqual(rt.replicas[0], []*gocql.HostInfo{b, c, a}) {
		t.Errorf("the tablet's list changed: %v", rt.replicas[0])
	}
	if got := drain(p.Pick(&routed{rk: []byte("k"), ks: "ks", table: "t", cl: gocql.Quorum})); got[0] != b {
		t.Errorf("QUORUM plan %v: want the leader first", got)
	}
}

// routed is a statement as the policy sees it: its routing key, its table
// and its consistency; nothing else of gocql's query is used.
type routed struct {
	gocql.ExecutableQuery
	rk        []byte
	ks, table string
	cl        gocql.Consistency
	ctx       context.Context
}

func (q *routed) Context() context.Context {
	if q.ctx == nil {
		return context.Background()
	}
	return q.ctx
}

func (q *routed) GetRoutingKey() ([]byte, error)    { return q.rk, nil }
func (q *routed) Keyspace() string                  { return q.ks }
func (q *routed) Table() string                     { return q.table }
func (q *routed) GetConsistency() gocql.Consistency { return q.cl }

// tabletPolicy routes table ks.t: one tablet, led by 10.0.0.2 with
// followers 10.0.0.1 and 10.0.0.3; 10.0.0.4 holds no replica.
func tabletPolicy(t *testing.T) (p *PartitionAwarePolicy, a, b, c, d *gocql.HostInfo) {
	t.Helper()
	p, hs := routingPolicy(t, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"},
		PartitionRow{Keyspace: "ks", Table: "t", Replicas: map[string]string{"10.0.0.2": "LEADER", "10.0.0.1": "FOLLOWER", "10.0.0.3": "FOLLOWER"}})
	return p, hs[0], hs[1], hs[2], hs[3]
}

// routingPolicy is a partition-aware policy over hosts at ips whose map
// holds rows, all of table ks.t with one raw key column.
func routingPolicy(t *testing.T, ips []string, rows ...PartitionRow) (*PartitionAwarePolicy, []*gocql.HostInfo) {
	t.Helper()
	p := NewPartitionAwarePolicy(gocql.RoundRobinHostPolicy(), nil)
	var hs []*gocql.HostInfo
	for _, ip := range ips {
		h := host(ip)
		hs = append(hs, h)
		p.AddHost(h)
	}
	m, err := BuildPartitionMap(rows)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.pmap = m
	p.keyTypes = map[TableName][]KeyType{{"ks", "t"}: {KeyRaw}}
	p.rebuildLocked()
	p.mu.Unlock()
	return p, hs
}

// A worker's armed state serves one pick; a pick on the same context that
// was not armed gets its own state and leaves the armed walk alone; the
// next Arm starts the walk over.
func TestPickReuseServesOnePickPerArm(t *testing.T) {
	p, a, b, c, d := tabletPolicy(t)
	var r PickReuse
	ctx := r.Arm(context.Background())
	q := &routed{rk: []byte("k"), ks: "ks", table: "t", cl: gocql.Quorum, ctx: ctx}
	armed := p.Pick(q)
	if h := armed().Info(); h != b {
		t.Fatalf("first host %v, want the leader 10.0.0.2", h)
	}
	if r.st.i != 1 {
		t.Fatalf("the armed pick did not walk the worker's state (i = %d)", r.st.i)
	}
	if got := drain(p.Pick(q)); !reflect.DeepEqual(got, []*gocql.HostInfo{b, a, c, d}) {
		t.Errorf("unarmed pick on the same context: %v, want 10.0.0.2, .1, .3, .4", got)
	}
	if got := drain(armed); !reflect.DeepEqual(got, []*gocql.HostInfo{a, c, d}) {
		t.Errorf("the armed walk went on with %v, want 10.0.0.1, .3, .4: another pick disturbed it", got)
	}
	if r.Arm(context.Background()) != ctx {
		t.Error("Arm made a new context for the same parent")
	}
	if got := drain(p.Pick(q)); !reflect.DeepEqual(got, []*gocql.HostInfo{b, a, c, d}) {
		t.Errorf("after a second Arm: %v, want the whole walk again", got)
	}
	if r.st.i == 0 {
		t.Error("the second armed pick did not use the worker's state")
	}
}

// Workers with their own PickReuse pick at the same time (run with -race).
func TestPickReuseWorkersInParallel(t *testing.T) {
	p, a, b, c, d := tabletPolicy(t)
	want := []*gocql.HostInfo{b, a, c, d}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r PickReuse
			for range 2000 {
				q := &routed{rk: []byte("k"), ks: "ks", table: "t", cl: gocql.Quorum, ctx: r.Arm(context.Background())}
				if got := drain(p.Pick(q)); !reflect.DeepEqual(got, want) {
					errs <- "plan " + fmtHosts(got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func fmtHosts(hs []*gocql.HostInfo) string {
	s := ""
	for _, h := range hs {
		s += h.ConnectAddress().String() + " "
	}
	return s
}
