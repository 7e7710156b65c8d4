package ycql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// Server describes the cluster a session talks to, as detected when it
// connected.
type Server struct {
	Flavor Flavor
	// ReleaseVersion is system.local's release_version (YugabyteDB reports
	// the Cassandra version it is compatible with, e.g. 3.9-SNAPSHOT).
	ReleaseVersion string
	// Nodes counts system.local and system.peers rows.
	Nodes int
	// Detected says how the flavor was known: "system.partitions" or "forced".
	Detected string
}

// DriverVersion is the gocql module version this binary was built with.
func DriverVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gocql/gocql" {
				if d.Replace != nil {
					return d.Replace.Path + " " + d.Replace.Version
				}
				return d.Path + " " + d.Version
			}
		}
	}
	return "github.com/gocql/gocql (unknown version)"
}

// DDLTimeout bounds the admin session's statements (DDL, system tables).
const DDLTimeout = 60 * time.Second

// Admin is a small session without a keyspace, for detecting the server and
// running DDL before the workload's session exists.
type Admin struct {
	S      *gocql.Session
	Server Server
}

// Close closes the admin session.
func (a *Admin) Close() { a.S.Close() }

// Probe connects one connection per host, detects the server and returns
// the admin session.
func Probe(ctx context.Context, cfg *Config) (*Admin, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cc, err := clusterConfig(cfg, &Counters{})
	if err != nil {
		return nil, err
	}
	cc.Keyspace = ""
	cc.NumConns = 1
	// DDL waits for schema agreement and can outlast a read timeout on a
	// loaded server; the reference's own DROP TABLE allows 60 s.
	cc.Timeout = max(cc.Timeout, DDLTimeout)
	cc.PoolConfig.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	s, err := createSession(ctx, cc)
	if err != nil {
		return nil, err
	}
	srv, err := detect(ctx, s, cfg.Flavor)
	if err != nil {
		s.Close()
		return nil, err
	}
	return &Admin{S: s, Server: srv}, nil
}

// errNoPartitionsTable recognizes the error Cassandra returns for a table
// it does not have.
func isMissingTable(err error) bool {
	var re gocql.RequestError
	if errors.As(err, &re) && re.Code() == gocql.ErrCodeInvalid {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "unconfigured table") || strings.Contains(msg, "does not exist")
}

func detect(ctx context.Context, s *gocql.Session, forced Flavor) (Server, error) {
	var srv Server
	if err := s.Query("SELECT release_version FROM system.local").WithContext(ctx).Consistency(gocql.One).Scan(&srv.ReleaseVersion); err != nil {
		return srv, fmt.Errorf("read system.local: %w", err)
	}
	iter := s.Query("SELECT peer FROM system.peers").WithContext(ctx).Consistency(gocql.One).Iter()
	srv.Nodes = 1 + iter.NumRows()
	if err := iter.Close(); err != nil {
		return srv, fmt.Errorf("read system.peers: %w", err)
	}
	if forced == FlavorYugabyte || forced == FlavorCassandra {
		srv.Flavor, srv.Detected = forced, "forced"
		return srv, nil
	}
	// Only YugabyteDB has system.partitions (its partition map).
	_, err := readPartitionRows(ctx, s)
	switch {
	case err == nil:
		srv.Flavor = FlavorYugabyte
	case isMissingTable(err):
		srv.Flavor = FlavorCassandra
	default:
		return srv, fmt.Errorf("detect the server flavor: %w", err)
	}
	srv.Detected = "system.partitions"
	return srv, nil
}

// Session is the workload's CQL session, shared by all its workers.
type Session struct {
	S        *gocql.Session
	Server   Server
	Config   Config
	Counters *Counters
	// Routing describes the host selection in use, for the records.
	Routing string

	policy    *PartitionAwarePolicy // YugabyteDB only
	events    *eventCounter
	stop      context.CancelFunc
	closeOnce sync.Once
}

// Open creates the workload's session for a server Probe detected.
func Open(ctx context.Context, cfg *Config, srv Server) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Counters{}
	cc, err := clusterConfig(cfg, c)
	if err != nil {
		return nil, err
	}
	child := gocql.RoundRobinHostPolicy()
	if cfg.LocalDC != "" {
		child = gocql.DCAwareRoundRobinPolicy(cfg.LocalDC)
	}
	sess := &Session{Server: srv, Config: *cfg, Counters: c, Routing: routingDescription(cfg, srv)}
	switch {
	case cfg.Routing == RoutingRoundRobin:
		sess.events = &eventCounter{HostSelectionPolicy: child}
	case cfg.Routing == RoutingTokenAware:
		sess.events = &eventCounter{HostSelectionPolicy: gocql.TokenAwareHostPolicy(child)}
	case srv.Flavor == FlavorYugabyte:
		sess.policy = NewPartitionAwarePolicy(child, cfg.Logger)
	default:
		sess.events = &eventCounter{HostSelectionPolicy: child}
	}
	if sess.policy != nil {
		cc.PoolConfig.HostSelectionPolicy = sess.policy
	} else {
		cc.PoolConfig.HostSelectionPolicy = sess.events
	}
	s, err := createSession(ctx, cc)
	if err != nil {
		return nil, err
	}
	sess.S = s
	if sess.policy != nil {
		if err := sess.policy.Refresh(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("read the partition map: %w", err)
		}
		every := cfg.PartitionRefresh
		if every <= 0 {
			every = DefaultPartitionRefresh
		}
		rctx, stop := context.WithCancel(context.Background())
		sess.stop = stop
		go sess.policy.Run(rctx, every)
	}
	return sess, nil
}

// Close closes the session and stops its background work.
func (s *Session) Close() {
	s.closeOnce.Do(func() {
		if s.stop != nil {
			s.stop()
		}
		s.S.Close()
	})
}

// StatementRetry is a retry policy for one worker's statements, run one at
// a time: it keeps the statement's own count of retries, as the reference
// driver does, where the session's shared default cannot. Set it on each
// statement (Query.RetryPolicy, Batch.RetryPolicy).
func (s *Session) StatementRetry() *RetryPolicy {
	return &RetryPolicy{Max: s.Config.Retry.Max, Idempotent: s.Config.Retry.Idempotent, c: s.Counters, own: true}
}

// Stats reports the session's counters for the records.
func (s *Session) Stats() map[string]int64 {
	c := s.Counters
	m := map[string]int64{
		"ycql_retries_read_timeout":  c.RetriesReadTimeout.Load(),
		"ycql_retries_write_timeout": c.RetriesWriteTimeout.Load(),
		"ycql_retries_unavailable":   c.RetriesUnavailable.Load(),
		"ycql_retries_connection":    c.RetriesConnection.Load(),
		"ycql_retries_request":       c.RetriesRequest.Load(),
		"ycql_connects":              c.Connects.Load(),
		"ycql_connect_failures":      c.ConnectFailures.Load(),
	}
	var up, down int64
	if s.policy != nil {
		up, down = s.policy.HostEvents()
		ok, failed := s.policy.Refreshes()
		m["ycql_partition_map_refreshes"] = ok
		m["ycql_partition_map_refresh_failures"] = failed
	} else if s.events != nil {
		up, down = s.events.up.Load(), s.events.down.Load()
	}
	m["ycql_host_up_events"] = up
	m["ycql_host_down_events"] = down
	return m
}

// Settings describes the session for the records: everything that shapes
// a number.
func (s *Session) Settings() map[string]string { return Describe(&s.Config, s.Server) }

// Describe is the settings a session opened with cfg on srv uses, for the
// records (known before the session exists).
func Describe(c *Config, srv Server) map[string]string {
	tlsDesc := "off"
	if c.TLS != nil {
		tlsDesc = "on"
		if c.TLS.CAFile != "" {
			tlsDesc += ", CA " + c.TLS.CAFile
		}
		if c.TLS.VerifyHostname {
			tlsDesc += ", host name verified"
		} else {
			tlsDesc += ", host name not verified (reference driver default)"
		}
	}
	coalesce := "off (each request written at once)"
	if c.WriteCoalesce > 0 {
		coalesce = c.WriteCoalesce.String()
	}
	auth := "none"
	if c.Username != "" {
		auth = "password (user " + c.Username + ")"
	}
	refresh := c.PartitionRefresh
	if refresh <= 0 {
		refresh = DefaultPartitionRefresh
	}
	reconnect := c.ReconnectInterval
	if reconnect <= 0 {
		reconnect = DefaultReconnectInterval
	}
	m := map[string]string{
		"ycql.driver":               DriverVersion(),
		"ycql.server_flavor":        string(srv.Flavor),
		"ycql.server_detected_by":   srv.Detected,
		"ycql.release_version":      srv.ReleaseVersion,
		"ycql.server_nodes":         fmt.Sprint(srv.Nodes),
		"ycql.hosts":                strings.Join(c.Hosts, ","),
		"ycql.port":                 fmt.Sprint(c.Port),
		"ycql.keyspace":             c.Keyspace,
		"ycql.routing":              routingDescription(c, srv),
		"ycql.connections_per_host": fmt.Sprint(c.ConnsPerHost),
		"ycql.connect_timeout":      c.ConnectTimeout.String(),
		"ycql.read_timeout":         c.ReadTimeout.String(),
		"ycql.retry":                fmt.Sprintf("reference DefaultRetryPolicy rules: timeouts and unavailable at most %d per statement, request errors on the next host until the plan runs out (idempotent=%v)", c.Retry.Max, c.Retry.Idempotent),
		"ycql.protocol_version":     fmt.Sprint(c.ProtoVersion),
		"ycql.reconnect_interval":   reconnect.String(),
		"ycql.tls":                  tlsDesc,
		"ycql.write_coalesce":       coalesce,
		"ycql.auth":                 auth,
	}
	if srv.Flavor == FlavorYugabyte && c.Routing == RoutingAuto {
		m["ycql.partition_map_refresh"] = refresh.String() + " and on schema changes"
	}
	return m
}

func routingDescription(c *Config, srv Server) string {
	child := "round robin"
	if c.LocalDC != "" {
		child = "DC-aware round robin (local DC " + c.LocalDC + ")"
	}
	switch {
	case c.Routing == RoutingRoundRobin:
		return child + " (partition awareness off)"
	case c.Routing == RoutingTokenAware:
		return "token-aware (gocql TokenAwareHostPolicy), then " + child
	case srv.Flavor == FlavorYugabyte:
		return "partition-aware (YugabyteDB partition hash and system.partitions; leader first, replicas shuffled at ONE), then " + child
	}
	return child + " (no YugabyteDB partition map on this server: the partition-aware policy's child)"
}

// createSession creates a gocql session, giving up when ctx is done.
func createSession(ctx context.Context, cc *gocql.ClusterConfig) (*gocql.Session, error) {
	type result struct {
		s   *gocql.Session
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := cc.CreateSession()
		ch <- result{s, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("connect to %s (port %d): %w", strings.Join(cc.Hosts, ","), cc.Port, r.err)
		}
		return r.s, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.s != nil {
				r.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// clusterConfig maps Config onto gocql's.
func clusterConfig(cfg *Config, c *Counters) (*gocql.ClusterConfig, error) {
	cc := gocql.NewCluster(cfg.Hosts...)
	cc.Port = cfg.Port
	cc.Keyspace = cfg.Keyspace
	cc.ProtoVersion = cfg.ProtoVersion
	cc.Consistency = cfg.Consistency
	cc.NumConns = cfg.ConnsPerHost
	cc.ConnectTimeout = cfg.ConnectTimeout
	cc.Timeout = cfg.ReadTimeout
	cc.ReconnectInterval = cfg.ReconnectInterval
	if cc.ReconnectInterval <= 0 {
		cc.ReconnectInterval = DefaultReconnectInterval
	}
	cc.WriteCoalesceWaitTime = max(cfg.WriteCoalesce, 0)
	cc.RetryPolicy = &RetryPolicy{Max: cfg.Retry.Max, Idempotent: cfg.Retry.Idempotent, c: c}
	cc.ConnectObserver = c
	cc.Logger = slogPrinter{cfg.Logger}
	if cfg.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: cfg.Username, Password: cfg.Password}
	}
	if cfg.TLS != nil {
		tc, err := tlsConfig(cfg.TLS)
		if err != nil {
			return nil, err
		}
		cc.SslOpts = &gocql.SslOptions{Config: tc, EnableHostVerification: cfg.TLS.VerifyHostname}
	}
	return cc, nil
}

// tlsConfig verifies the server's chain against the CA (or the system's
// roots) and, unless asked, not its host name — the reference Java
// driver's default (JDK SSL context without endpoint identification).
func tlsConfig(o *TLSOptions) (*tls.Config, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("TLS CA file: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s: no PEM certificate in it", o.CAFile)
		}
	}
	tc := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if o.CertFile != "" || o.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if !o.VerifyHostname {
		tc.InsecureSkipVerify = true // the chain is still verified, below
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return tc, nil
}

// eventCounter wraps a gocql policy to count hosts going up and down.
type eventCounter struct {
	gocql.HostSelectionPolicy
	up, down atomic.Int64
}

// HostUp counts and delegates.
func (e *eventCounter) HostUp(h *gocql.HostInfo) {
	e.up.Add(1)
	e.HostSelectionPolicy.HostUp(h)
}

// HostDown counts and delegates.
func (e *eventCounter) HostDown(h *gocql.HostInfo) {
	e.down.Add(1)
	e.HostSelectionPolicy.HostDown(h)
}

// slogPrinter sends gocql's own log lines to slog.
type slogPrinter struct{ l *slog.Logger }

// Print logs a gocql line.
func (p slogPrinter) Print(v ...interface{}) { p.log(fmt.Sprint(v...)) }

// Printf logs a gocql line.
func (p slogPrinter) Printf(f string, v ...interface{}) { p.log(fmt.Sprintf(f, v...)) }

// Println logs a gocql line.
func (p slogPrinter) Println(v ...interface{}) { p.log(fmt.Sprintln(v...)) }

func (p slogPrinter) log(msg string) {
	if p.l != nil {
		p.l.Warn(strings.TrimSpace(msg), "source", "gocql")
	}
}
