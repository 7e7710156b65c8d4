package ycql

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// PartitionAwarePolicy routes each statement on YugabyteDB as the reference
// Java driver's PartitionAwarePolicy does: the bound partition key is hashed
// to YugabyteDB's 16-bit partition hash, the tablet holding it is looked up
// in the partition map from system.partitions, and its replicas are tried
// first — the leader first, except at consistency ONE, where the replicas
// are shuffled so that reads spread over followers. After them come the
// child policy's hosts. A statement whose key cannot be hashed, or whose
// table is not in the map, goes to the child policy.
//
// Pick reads an immutable snapshot through one atomic load: no lock per
// statement. The map is rebuilt by Refresh (at start, every
// PartitionRefresh, after schema changes and host changes).
type PartitionAwarePolicy struct {
	child gocql.HostSelectionPolicy
	log   *slog.Logger

	mu       sync.Mutex // serializes rebuilds; Pick never takes it
	hosts    []*gocql.HostInfo
	pmap     *PartitionMap
	keyTypes map[TableName][]KeyType

	snap    atomic.Pointer[routeSnapshot]
	stmts   sync.Map // batch statement text → TableName
	session atomic.Pointer[gocql.Session]
	kick    chan struct{}

	refreshes, refreshErrors atomic.Int64
	hostsUp, hostsDown       atomic.Int64
}

var _ gocql.HostSelectionPolicy = (*PartitionAwarePolicy)(nil)

// NewPartitionAwarePolicy wraps child (round robin, or DC-aware) with
// partition awareness.
func NewPartitionAwarePolicy(child gocql.HostSelectionPolicy, log *slog.Logger) *PartitionAwarePolicy {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &PartitionAwarePolicy{child: child, log: log, kick: make(chan struct{}, 1)}
	p.snap.Store(&routeSnapshot{})
	return p
}

// routeSnapshot is what Pick reads: per table, the tablets' starts and
// their replicas as the session's hosts.
type routeSnapshot struct {
	tables map[TableName]*routeTable
}

type routeTable struct {
	types    []KeyType
	starts   []uint16
	replicas [][]*gocql.HostInfo
}

func (t *routeTable) lookup(h uint16) int {
	lo, hi := 0, len(t.starts) // first start > h, minus one
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.starts[m] <= h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// Init is called by gocql when the session is created.
func (p *PartitionAwarePolicy) Init(s *gocql.Session) {
	p.session.Store(s)
	p.child.Init(s)
}

// IsLocal delegates to the child policy.
func (p *PartitionAwarePolicy) IsLocal(h *gocql.HostInfo) bool { return p.child.IsLocal(h) }

// SetPartitioner delegates to the child policy.
func (p *PartitionAwarePolicy) SetPartitioner(name string) { p.child.SetPartitioner(name) }

// KeyspaceChanged delegates and schedules a refresh of the partition map
// (a table was created, dropped or altered).
func (p *PartitionAwarePolicy) KeyspaceChanged(e gocql.KeyspaceUpdateEvent) {
	p.child.KeyspaceChanged(e)
	p.Kick()
}

// AddHost delegates and re-resolves the replicas.
func (p *PartitionAwarePolicy) AddHost(h *gocql.HostInfo) {
	p.child.AddHost(h)
	p.mu.Lock()
	p.hosts = append(p.hosts, h)
	p.rebuildLocked()
	p.mu.Unlock()
}

// RemoveHost delegates and re-resolves the replicas.
func (p *PartitionAwarePolicy) RemoveHost(h *gocql.HostInfo) {
	p.child.RemoveHost(h)
	p.mu.Lock()
	for i, x := range p.hosts {
		if x == h || x.Equal(h) {
			p.hosts = append(p.hosts[:i], p.hosts[i+1:]...)
			break
		}
	}
	p.rebuildLocked()
	p.mu.Unlock()
}

// HostUp delegates (a host's state is read from it at each pick) and counts.
func (p *PartitionAwarePolicy) HostUp(h *gocql.HostInfo) { p.hostsUp.Add(1); p.child.HostUp(h) }

// HostDown delegates and counts.
func (p *PartitionAwarePolicy) HostDown(h *gocql.HostInfo) { p.hostsDown.Add(1); p.child.HostDown(h) }

// HostEvents reports how many times hosts went up and down.
func (p *PartitionAwarePolicy) HostEvents() (up, down int64) {
	return p.hostsUp.Load(), p.hostsDown.Load()
}

// Refreshes reports how many times the partition map was read, and failed to be.
func (p *PartitionAwarePolicy) Refreshes() (ok, failed int64) {
	return p.refreshes.Load(), p.refreshErrors.Load()
}

// Tables reports how many tables the partition map routes.
func (p *PartitionAwarePolicy) Tables() int { return len(p.snap.Load().tables) }

// Kick asks the refresh loop to re-read the partition map now.
func (p *PartitionAwarePolicy) Kick() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Refresh reads the partition map and the partition-key types of its
// tables through the session, and publishes a new snapshot.
func (p *PartitionAwarePolicy) Refresh(ctx context.Context) error {
	s := p.session.Load()
	if s == nil {
		return nil
	}
	pm, err := ReadPartitionMap(ctx, s)
	if err != nil {
		p.refreshErrors.Add(1)
		return err
	}
	types := map[TableName][]KeyType{}
	seen := map[string]*gocql.KeyspaceMetadata{}
	for name := range pm.Tables {
		if isSystemKeyspace(name.Keyspace) {
			continue
		}
		km, ok := seen[name.Keyspace]
		if !ok {
			km, _ = s.KeyspaceMetadata(name.Keyspace) // unknown types: one raw column is assumed
			seen[name.Keyspace] = km
		}
		if km == nil {
			continue
		}
		if tm := km.Tables[name.Table]; tm != nil {
			types[name] = keyTypesOf(tm.PartitionKey)
		}
	}
	p.mu.Lock()
	p.pmap, p.keyTypes = pm, types
	p.rebuildLocked()
	p.mu.Unlock()
	p.refreshes.Add(1)
	return nil
}

// Run refreshes the partition map every interval and when kicked, until ctx
// is done.
func (p *PartitionAwarePolicy) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.kick:
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		if err := p.Refresh(rctx); err != nil && ctx.Err() == nil {
			p.log.Warn("ycql: reading the partition map failed; routing with the previous one", "err", err)
		}
		cancel()
	}
}

func isSystemKeyspace(ks string) bool {
	switch ks {
	case "system", "system_schema", "system_auth", "system_distributed", "system_traces", "system_views", "system_virtual_schema":
		return true
	}
	return false
}

// keyTypesOf maps partition-key columns to their hash encodings.
func keyTypesOf(cols []*gocql.ColumnMetadata) []KeyType {
	out := make([]KeyType, len(cols))
	for i, c := range cols {
		out[i] = keyTypeOf(c.Type)
	}
	return out
}

func keyTypeOf(t gocql.TypeInfo) KeyType {
	if t == nil {
		return KeyUnsupported
	}
	switch t.Type() {
	case gocql.TypeAscii, gocql.TypeBigInt, gocql.TypeBlob, gocql.TypeBoolean, gocql.TypeInt, gocql.TypeText,
		gocql.TypeVarchar, gocql.TypeInet, gocql.TypeUUID, gocql.TypeTimeUUID, gocql.TypeDate, gocql.TypeTime,
		gocql.TypeSmallInt, gocql.TypeTinyInt:
		return KeyRaw
	case gocql.TypeTimestamp:
		return KeyTimestamp
	case gocql.TypeFloat:
		return KeyFloat
	case gocql.TypeDouble:
		return KeyDouble
	}
	return KeyUnsupported
}

// rebuildLocked resolves the partition map's addresses to the session's
// hosts and publishes the snapshot.
func (p *PartitionAwarePolicy) rebuildLocked() {
	byAddr := map[string]*gocql.HostInfo{}
	for _, h := range p.hosts {
		for _, ip := range []net.IP{h.ConnectAddress(), h.RPCAddress(), h.BroadcastAddress(), h.Peer()} {
			if len(ip) > 0 && !ip.IsUnspecified() {
				if _, ok := byAddr[ip.String()]; !ok {
					byAddr[ip.String()] = h
				}
			}
		}
	}
	snap := &routeSnapshot{tables: map[TableName]*routeTable{}}
	if p.pmap != nil {
		for name, ts := range p.pmap.Tables {
			rt := &routeTable{types: p.keyTypes[name]}
			for _, tab := range ts.Tablets {
				var hs []*gocql.HostInfo
				for _, a := range tab.Replicas {
					if h := byAddr[a]; h != nil { // replicas the session does not know are skipped, as in the reference
						hs = append(hs, h)
					}
				}
				rt.starts = append(rt.starts, tab.Start)
				rt.replicas = append(rt.replicas, hs)
			}
			snap.tables[name] = rt
		}
	}
	p.snap.Store(snap)
}

// Pick returns the hosts to try for q, in order.
func (p *PartitionAwarePolicy) Pick(q gocql.ExecutableQuery) gocql.NextHost {
	if q == nil {
		return p.child.Pick(q)
	}
	snap := p.snap.Load()
	if len(snap.tables) == 0 {
		return p.child.Pick(q)
	}
	rk, err := q.GetRoutingKey() // also resolves the statement's keyspace and table
	if err != nil || rk == nil {
		return p.child.Pick(q)
	}
	rt := snap.tables[p.tableOf(q)]
	if rt == nil {
		return p.child.Pick(q)
	}
	var buf [64]byte
	enc, err := EncodeRoutingKey(buf[:0], rk, rt.types)
	if err != nil {
		return p.child.Pick(q)
	}
	i := rt.lookup(PartitionHash(enc))
	if i < 0 {
		return p.child.Pick(q)
	}
	cl := q.GetConsistency()
	replicas := rt.replicas[i]
	st := reusedPick(q)
	*st = pick{replicas: replicas, strong: StrongConsistency(cl), child: p.child, q: q}
	switch {
	case cl != gocql.One || len(replicas) < 2:
	case len(replicas) <= len(st.order):
		// Shuffled as indexes in the pick itself: no copy of the list.
		for j := range replicas {
			st.order[j] = uint8(j)
		}
		rand.Shuffle(len(replicas), func(a, b int) { st.order[a], st.order[b] = st.order[b], st.order[a] })
		st.shuffled = true
	default:
		st.replicas = OrderReplicas(replicas, cl, rand.Shuffle)
	}
	return st.next
}

// tableOf names the table a statement writes or reads. A query knows it
// from its prepared metadata once its routing key is computed; a batch does
// not (gocql keeps no table for batches), so its first statement's text is
// parsed, once per text.
func (p *PartitionAwarePolicy) tableOf(q gocql.ExecutableQuery) TableName {
	if t := q.Table(); t != "" {
		return TableName{q.Keyspace(), t}
	}
	b, ok := q.(*gocql.Batch)
	if !ok || len(b.Entries) == 0 {
		return TableName{}
	}
	stmt := b.Entries[0].Stmt
	if v, ok := p.stmts.Load(stmt); ok {
		return v.(TableName)
	}
	ks, t := StatementTable(stmt)
	if ks == "" {
		ks = q.Keyspace()
	}
	name := TableName{ks, t}
	p.stmts.Store(stmt, name)
	return name
}

// OrderReplicas is the order a tablet's replicas (leader first) are tried
// in: as they are, except at consistency ONE (YugabyteDB's consistent
// prefix), where they are shuffled — on a copy — so that reads go to
// followers too.
func OrderReplicas[T any](replicas []T, cl gocql.Consistency, shuffle func(n int, swap func(i, j int))) []T {
	if cl != gocql.One || len(replicas) < 2 {
		return replicas
	}
	out := append([]T(nil), replicas...)
	shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// StrongConsistency reports whether YugabyteDB serves cl from the tablet
// leader (QUORUM and LOCAL_ONE in the reference driver), so that a replica
// is used even if it is not in the local data center.
func StrongConsistency(cl gocql.Consistency) bool { return cl == gocql.Quorum || cl == gocql.LocalOne }

// hostChooser is the part of the child policy the pick uses.
type hostChooser interface {
	IsLocal(*gocql.HostInfo) bool
	Pick(gocql.ExecutableQuery) gocql.NextHost
}

// pickOver yields the replicas that are up and either local or read
// strongly, then the child's hosts, skipping replicas already eligible.
func pickOver(replicas []*gocql.HostInfo, strong bool, child hostChooser, q gocql.ExecutableQuery) gocql.NextHost {
	return (&pick{replicas: replicas, strong: strong, child: child, q: q}).next
}

// pick is one statement's walk over its hosts. It and the method value
// gocql calls are the two allocations of a partition-aware pick: a
// function value that keeps state needs that state on the heap besides
// itself, and gocql gives no moment at which either could be reused —
// except where the worker says so (PickReuse), which leaves the method
// value alone.
type pick struct {
	replicas []*gocql.HostInfo
	order    [8]uint8 // replicas' order when shuffled (at ONE)
	shuffled bool
	i        int
	strong   bool
	child    hostChooser
	q        gocql.ExecutableQuery
	rest     gocql.NextHost
}

func (s *pick) eligible(h *gocql.HostInfo) bool { return s.strong || s.child.IsLocal(h) }

// next is the statement's next host, or nil when there is none.
func (s *pick) next() gocql.SelectedHost {
	for s.i < len(s.replicas) {
		h := s.replicas[s.i]
		if s.shuffled {
			h = s.replicas[s.order[s.i]]
		}
		s.i++
		if h.IsUp() && s.eligible(h) {
			return (*chosenHost)(h)
		}
	}
	if s.rest == nil {
		s.rest = s.child.Pick(s.q)
	}
	for {
		sh := s.rest()
		if sh == nil {
			return nil
		}
		if h := sh.Info(); h != nil && containsHost(s.replicas, h) && s.eligible(h) {
			continue
		}
		return sh
	}
}

func containsHost(hs []*gocql.HostInfo, h *gocql.HostInfo) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// chosenHost is a host the pick yields; conversions from *HostInfo cost no
// allocation.
type chosenHost gocql.HostInfo

// Info is the host.
func (h *chosenHost) Info() *gocql.HostInfo { return (*gocql.HostInfo)(h) }

// Mark does nothing: the pick keeps no per-host state.
func (h *chosenHost) Mark(error) {}

// PickReuse is one worker's pick state, reused from one statement to the
// next, so that a partition-aware pick costs one allocation (the NextHost
// function value gocql requires) instead of two.
//
// gocql never says when it is done with a NextHost, but the worker knows
// for its own statements: one that runs on the worker's goroutine, returns
// at most one page (no page is fetched in the background after it) and has
// no speculative execution (the agent's sessions configure none) walks its
// hosts only inside the call. Arm marks the next statement as such; the
// pick takes the state once per Arm, and any other statement on the same
// context gets a state of its own.
type PickReuse struct {
	armed       atomic.Bool
	st          pick
	parent, ctx context.Context
}

type pickReuseKey struct{}

// Arm returns ctx carrying r, with r's state free for the next pick of a
// statement on it; call it right before such a statement (see PickReuse).
// The context it derives is made once per distinct ctx, not per call.
func (r *PickReuse) Arm(ctx context.Context) context.Context {
	if ctx != r.parent || r.ctx == nil {
		r.parent, r.ctx = ctx, context.WithValue(ctx, pickReuseKey{}, r)
	}
	r.armed.Store(true)
	return r.ctx
}

// reusedPick is the state for a pick of q: its worker's, when q's context
// carries an armed PickReuse, else a new one.
func reusedPick(q gocql.ExecutableQuery) *pick {
	if r, ok := q.Context().Value(pickReuseKey{}).(*PickReuse); ok && r.armed.CompareAndSwap(true, false) {
		return &r.st
	}
	return new(pick)
}
