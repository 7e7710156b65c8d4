package cassandra

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/infra"
)

// Readiness is read over CQL, on every node, never from logs or a sleep:
//
//  1. the node completes a CQL handshake and answers system.local, with
//     bootstrapped = COMPLETED;
//  2. its system.peers lists every other node started so far (by address)
//     with a host id and the node's own schema version, and no node that
//     is not part of the cluster;
//  3. its gossip (system_views.gossip_info) says every one of those nodes
//     is NORMAL;
//  4. every node reports the same schema version.
//
// After each node starts, the nodes started so far must pass (the node
// has joined); after the last, the whole cluster.

// NodeState is what one node says over CQL of itself and its peers.
type NodeState struct {
	ReleaseVersion string
	SchemaVersion  string
	HostID         string
	Bootstrapped   string
	ClusterName    string
	// Tokens are the tokens the node owns (system.local).
	Tokens []string
	// Peers are the rows of system.peers, by peer address.
	Peers []Peer
	// Gossip is the node's gossip view (system_views.gossip_info): the
	// STATUS_WITH_PORT state of each endpoint by address ("" when the
	// table is unavailable).
	Gossip map[string]string
}

// Peer is one row of system.peers.
type Peer struct {
	Addr, HostID, SchemaVersion, ReleaseVersion string
}

// DialFunc dials a node's CQL port (ssh.Client.DialContext and
// net.Dialer.DialContext have this shape).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Probe reads one node's state over CQL. The default opens a gocql
// session to that node alone (see target); tests may replace it.
type Probe func(ctx context.Context, h infra.Host) (NodeState, error)

// HostDialer is a runner that opens TCP connections from a host itself:
// the SSH runner does, through the host's SSH connection (direct-tcpip).
// Cloud firewalls close the database ports to the operator and open them
// inside the network, so the probe dials a node's CQL port from that node
// whenever Install's runner can.
type HostDialer interface {
	Dial(ctx context.Context, h infra.Host, network, addr string) (net.Conn, error)
}

// viaRunner holds Install's runner when it is a HostDialer; the probe
// reads it while Install runs.
type viaRunner struct {
	mu sync.Mutex
	d  HostDialer
}

func (v *viaRunner) set(r any) {
	d, _ := r.(HostDialer)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.d = d
}

func (v *viaRunner) get() HostDialer {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.d
}

// target is where and how a node's CQL port is dialed: WithCQLDial's
// choice, else <PrivateIP>:9042 from the node itself through the runner,
// else that address directly from the orchestrator (a runner of this
// machine's hosts).
func (f *Flavor) target(h infra.Host) (string, DialFunc) {
	if f.cfg.cqlDial != nil {
		return f.cfg.cqlDial(h)
	}
	addr := net.JoinHostPort(h.PrivateIP, strconv.Itoa(NativePort))
	d := f.via.get()
	if d == nil {
		return addr, nil
	}
	return addr, func(ctx context.Context, network, a string) (net.Conn, error) {
		return d.Dial(ctx, h, network, a)
	}
}

type dialer struct{ fn DialFunc }

func (d dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.fn(ctx, network, addr)
}

// nodeSession opens a gocql session to one node alone (protocol 4), logged
// in as l (no credentials when l.User is empty).
func nodeSession(target func(infra.Host) (string, DialFunc), h infra.Host, timeout time.Duration, l login) (*gocql.Session, error) {
	addr, dial := target(h)
	c := gocql.NewCluster(addr)
	c.ProtoVersion = 4
	c.Timeout = timeout
	c.ConnectTimeout = timeout
	c.NumConns = 1
	c.Consistency = gocql.One
	// That node alone: no ring discovery, no events, no other hosts.
	c.DisableInitialHostLookup = true
	c.Events.DisableNodeStatusEvents = true
	c.Events.DisableTopologyEvents = true
	c.Events.DisableSchemaEvents = true
	// One connection attempt per probe: the caller polls. (MaxRetries
	// 0 makes gocql v1.7.0 put a nil connection in the pool and panic.)
	c.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 1, Interval: time.Second}
	c.Logger = quietLogger{}
	if dial != nil {
		c.Dialer = dialer{dial}
	}
	if l.User != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: l.User, Password: l.Password}
	}
	s, err := c.CreateSession()
	if err != nil && l.User != "" {
		return nil, fmt.Errorf("as %s: %w", l.User, err)
	}
	return s, err
}

// gocqlProbe is the default Probe: a real CQL handshake (protocol 4) with
// one node, logged in with the first of logins() the node accepts, then
// its local tables.
func gocqlProbe(target func(infra.Host) (string, DialFunc), timeout time.Duration, logins func() []login) Probe {
	return func(ctx context.Context, h infra.Host) (NodeState, error) {
		var s *gocql.Session
		var errs []string
		for _, l := range logins() {
			var err error
			if s, err = nodeSession(target, h, timeout, l); err == nil {
				break
			}
			errs = append(errs, err.Error())
		}
		if s == nil {
			return NodeState{}, errors.New(strings.Join(errs, "; "))
		}
		defer s.Close()
		var st NodeState
		var schema, hostID gocql.UUID
		err := s.Query(`SELECT release_version, schema_version, host_id, bootstrapped, cluster_name, tokens FROM system.local WHERE key = 'local'`).
			WithContext(ctx).Scan(&st.ReleaseVersion, &schema, &hostID, &st.Bootstrapped, &st.ClusterName, &st.Tokens)
		if err != nil {
			return st, fmt.Errorf("system.local: %w", err)
		}
		st.SchemaVersion, st.HostID = uuidString(schema), uuidString(hostID)
		it := s.Query(`SELECT peer, host_id, schema_version, release_version FROM system.peers`).WithContext(ctx).Iter()
		var p Peer
		var peer net.IP
		for it.Scan(&peer, &hostID, &schema, &p.ReleaseVersion) {
			p.Addr, p.HostID, p.SchemaVersion = peer.String(), uuidString(hostID), uuidString(schema)
			st.Peers = append(st.Peers, p)
			hostID, schema, p = gocql.UUID{}, gocql.UUID{}, Peer{}
		}
		if err := it.Close(); err != nil {
			return st, fmt.Errorf("system.peers: %w", err)
		}
		st.Gossip = map[string]string{}
		it = s.Query(`SELECT address, status_with_port FROM system_views.gossip_info`).WithContext(ctx).Iter()
		var status string
		for it.Scan(&peer, &status) {
			st.Gossip[peer.String()] = status
			status = ""
		}
		if err := it.Close(); err != nil {
			st.Gossip = nil // the check leaves gossip out
		}
		return st, nil
	}
}

func uuidString(u gocql.UUID) string {
	if u == (gocql.UUID{}) {
		return ""
	}
	return u.String()
}

// quietLogger drops gocql's own log lines; the probe's error says what
// failed.
type quietLogger struct{}

func (quietLogger) Print(...any)          {}
func (quietLogger) Printf(string, ...any) {}
func (quietLogger) Println(...any)        {}

// observation is one poll of the started nodes.
type observation struct {
	nodes  []infra.Host
	states []NodeState
	errs   []error
}

// problems lists what keeps the started nodes (the first started of all)
// from being one cluster; none means ready. It is a pure function of the
// observation.
func (o observation) problems(all []infra.Host) []string {
	var out []string
	member := map[string]string{} // address → host name, for the whole cluster
	for _, h := range all {
		member[h.PrivateIP] = h.Name
	}
	schemas := map[string][]string{}
	for i, h := range o.nodes {
		if o.errs[i] != nil {
			out = append(out, fmt.Sprintf("%s (%s): CQL: %s", h.Name, h.PrivateIP, shortErr(o.errs[i])))
			continue
		}
		st := o.states[i]
		if st.Bootstrapped != "COMPLETED" {
			out = append(out, fmt.Sprintf("%s: bootstrapped=%q", h.Name, st.Bootstrapped))
		}
		schemas[st.SchemaVersion] = append(schemas[st.SchemaVersion], h.Name)
		peers := map[string]Peer{}
		for _, p := range st.Peers {
			peers[p.Addr] = p
			if _, ok := member[p.Addr]; !ok {
				out = append(out, fmt.Sprintf("%s: peer %s is not a db host of this cluster", h.Name, p.Addr))
			}
		}
		for _, other := range o.nodes {
			if other.Name == h.Name {
				continue
			}
			p, ok := peers[other.PrivateIP]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s does not list %s in system.peers yet", h.Name, other.Name))
			case p.HostID == "":
				out = append(out, fmt.Sprintf("%s lists %s without a host id", h.Name, other.Name))
			case p.SchemaVersion != st.SchemaVersion:
				out = append(out, fmt.Sprintf("%s sees %s at schema %s, its own is %s", h.Name, other.Name, short(p.SchemaVersion), short(st.SchemaVersion)))
			}
			if st.Gossip != nil {
				if s := st.Gossip[other.PrivateIP]; !strings.HasPrefix(s, "NORMAL") {
					out = append(out, fmt.Sprintf("%s's gossip has %s as %q, not NORMAL", h.Name, other.Name, s))
				}
			}
		}
	}
	if len(schemas) > 1 {
		var parts []string
		for v, names := range schemas {
			parts = append(parts, fmt.Sprintf("%s on %s", short(v), strings.Join(names, ",")))
		}
		sort.Strings(parts)
		out = append(out, "schema versions differ: "+strings.Join(parts, "; "))
	}
	return out
}

// summary says what each node said, for an error message.
func (o observation) summary() string {
	var parts []string
	for i, h := range o.nodes {
		if o.errs[i] != nil {
			parts = append(parts, fmt.Sprintf("%s: no CQL (%s)", h.Name, shortErr(o.errs[i])))
			continue
		}
		st := o.states[i]
		var peers []string
		for _, p := range st.Peers {
			g := ""
			if st.Gossip != nil {
				g = " " + strings.SplitN(st.Gossip[p.Addr], ",", 2)[0]
			}
			peers = append(peers, fmt.Sprintf("%s schema %s%s", p.Addr, short(p.SchemaVersion), g))
		}
		sort.Strings(peers)
		parts = append(parts, fmt.Sprintf("%s: %s %s, schema %s, peers [%s]", h.Name, st.ReleaseVersion, st.Bootstrapped, short(st.SchemaVersion), strings.Join(peers, ", ")))
	}
	return strings.Join(parts, "; ")
}

func short(uuid string) string {
	if uuid == "" {
		return "none"
	}
	if len(uuid) > 8 {
		return uuid[:8]
	}
	return uuid
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// ReadyError is a readiness wait that did not pass in time.
type ReadyError struct {
	Waited time.Duration
	// Node is the node whose join was awaited (the last one: the cluster).
	Node string
	// Problems are what was still wrong at the last poll, Seen what that
	// poll saw, and Hosts what the hosts said of their nodes (when it
	// could be asked).
	Problems []string
	Seen     string
	Hosts    string
}

// Error says what was wrong, what was seen, and what the hosts said.
func (e *ReadyError) Error() string {
	msg := fmt.Sprintf("cassandra: %s has not joined after %s: %s; last seen: %s", e.Node, e.Waited.Round(time.Second), strings.Join(e.Problems, "; "), e.Seen)
	if e.Hosts != "" {
		msg += "; on the hosts: " + e.Hosts
	}
	return msg
}

// probeAll observes the started nodes, all at once.
func probeAll(ctx context.Context, probe Probe, nodes []infra.Host) observation {
	o := observation{nodes: nodes, states: make([]NodeState, len(nodes)), errs: make([]error, len(nodes))}
	done := make(chan struct{}, len(nodes))
	for i, h := range nodes {
		go func() {
			defer func() { done <- struct{}{} }()
			o.states[i], o.errs[i] = probe(ctx, h)
		}()
	}
	for range nodes {
		<-done
	}
	return o
}
