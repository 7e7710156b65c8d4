package ycql

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// Timeouts of the reference Java driver (com.datastax.driver.core.SocketOptions
// in cassandra-driver-core 3.x), which both reference tools leave at their
// defaults unless told otherwise.
const (
	DefaultConnectTimeout = 5 * time.Second
	DefaultReadTimeout    = 12 * time.Second
)

// Other defaults of ours, recorded with every run.
const (
	DefaultPort = 9042
	// DefaultProtoVersion pins native protocol v4, which both servers speak
	// (the Java 3.x driver's highest), and skips gocql's version probe.
	DefaultProtoVersion = 4
	// DefaultReconnectInterval is how often hosts marked down are retried.
	DefaultReconnectInterval = time.Second
	// DefaultPartitionRefresh is how often the YugabyteDB partition map is
	// re-read (besides on schema changes).
	DefaultPartitionRefresh = 10 * time.Second
)

// Flavor names the server family.
type Flavor string

// The server flavors.
const (
	FlavorAuto      Flavor = "auto"
	FlavorYugabyte  Flavor = "yugabytedb"
	FlavorCassandra Flavor = "cassandra"
)

// Routing names how statements choose their host.
type Routing string

// The routings.
const (
	// RoutingAuto is partition-aware on YugabyteDB and the child policy
	// (round robin, or DC-aware) elsewhere. The reference driver's
	// PartitionAwarePolicy hands a statement whose table has no partition
	// metadata to its child; on a server without system.partitions it
	// cannot connect at all (its control connection reads that table), so
	// the child is the nearest behaviour that runs.
	RoutingAuto Routing = "auto"
	// RoutingRoundRobin sends statements to hosts in turn (yb-sample-apps'
	// --disable_yb_load_balancing_policy).
	RoutingRoundRobin Routing = "roundrobin"
	// RoutingTokenAware is gocql's token-aware policy over the child: the
	// replicas of Cassandra's token ring first. No reference does this; it
	// is ybload's option for Apache Cassandra.
	RoutingTokenAware Routing = "tokenaware"
)

// Config is how to reach the cluster and how to talk to it.
type Config struct {
	// Hosts are the contact points, each host or host:port.
	Hosts []string
	// Port is the native-protocol port of hosts given without one.
	Port     int
	Keyspace string
	// Username and Password authenticate when Username is set.
	Username, Password string
	// TLS, when set, encrypts every connection.
	TLS *TLSOptions
	// Consistency is the session's default; statements may set their own.
	Consistency gocql.Consistency
	// ConnsPerHost is the number of connections to each host.
	ConnsPerHost int
	// ConnectTimeout bounds dialing and the protocol handshake; ReadTimeout
	// bounds each request.
	ConnectTimeout, ReadTimeout time.Duration
	// Retry says which failed requests are retried.
	Retry RetryOptions
	// Flavor forces the server flavor instead of detecting it.
	Flavor  Flavor
	Routing Routing
	// LocalDC, when set, prefers that data center's hosts (hosts of other
	// data centers are still used after them).
	LocalDC string
	// ProtoVersion is the native protocol version (0 negotiates).
	ProtoVersion int
	// ReconnectInterval is how often hosts marked down are retried.
	ReconnectInterval time.Duration
	// PartitionRefresh is how often YugabyteDB's partition map is re-read.
	PartitionRefresh time.Duration
	// WriteCoalesce is how long a connection waits to gather requests into
	// one write (gocql's WriteCoalesceWaitTime, 200 µs by default). 0 (our
	// default) writes each request at once: the wait adds to every
	// latency, and the hand-off to a flusher goroutine cost a quarter of
	// the client's CPU per operation in the side-by-side benchmark.
	WriteCoalesce time.Duration
	// Logger receives the driver's and the binding's messages.
	Logger *slog.Logger
}

// TLSOptions are the TLS settings. As the reference Java driver does by
// default, the server's certificate chain is verified and its host name is
// not, unless VerifyHostname is set.
type TLSOptions struct {
	// CAFile holds the certificates to trust (PEM); the system's when empty.
	CAFile string
	// CertFile and KeyFile are a client certificate, when the server asks for one.
	CertFile, KeyFile string
	VerifyHostname    bool
}

// RetryOptions say which failed requests are retried, and how often.
type RetryOptions struct {
	// Max is the most retries of one statement. The reference driver's
	// DefaultRetryPolicy retries at most once.
	Max int
	// Idempotent statements are also retried on another host after a
	// connection error or a client-side timeout (yb-sample-apps marks its
	// statements idempotent; YCSB's are not).
	Idempotent bool
}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Hosts) == 0 {
		errs = append(errs, errors.New("no hosts given"))
	}
	for _, h := range c.Hosts {
		if strings.TrimSpace(h) == "" {
			errs = append(errs, errors.New("empty host name in the host list"))
		}
	}
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d out of range", c.Port))
	}
	if c.ConnsPerHost < 1 {
		errs = append(errs, fmt.Errorf("connections per host must be at least 1, got %d", c.ConnsPerHost))
	}
	if c.ConnectTimeout <= 0 || c.ReadTimeout <= 0 {
		errs = append(errs, errors.New("timeouts must be positive"))
	}
	if c.Retry.Max < 0 {
		errs = append(errs, fmt.Errorf("retries must not be negative, got %d", c.Retry.Max))
	}
	switch c.Flavor {
	case FlavorAuto, FlavorYugabyte, FlavorCassandra, "":
	default:
		errs = append(errs, fmt.Errorf("unknown server flavor %q: want auto, yugabytedb or cassandra", c.Flavor))
	}
	switch c.Routing {
	case RoutingAuto, RoutingRoundRobin, RoutingTokenAware, "":
	default:
		errs = append(errs, fmt.Errorf("unknown routing %q: want auto, roundrobin or tokenaware", c.Routing))
	}
	if c.Username == "" && c.Password != "" {
		errs = append(errs, errors.New("a password is set but no user name"))
	}
	if c.TLS != nil {
		// Read the CA and key files now: a missing file is a setting's
		// fault, not the server's.
		if _, err := tlsConfig(c.TLS); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ParseConsistency reads a consistency level by its CQL name (ONE, QUORUM,
// LOCAL_ONE, …), in any case.
func ParseConsistency(s string) (gocql.Consistency, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ANY":
		return gocql.Any, nil
	case "ONE":
		return gocql.One, nil
	case "TWO":
		return gocql.Two, nil
	case "THREE":
		return gocql.Three, nil
	case "QUORUM":
		return gocql.Quorum, nil
	case "ALL":
		return gocql.All, nil
	case "LOCAL_QUORUM":
		return gocql.LocalQuorum, nil
	case "EACH_QUORUM":
		return gocql.EachQuorum, nil
	case "LOCAL_ONE":
		return gocql.LocalOne, nil
	}
	return 0, fmt.Errorf("unknown consistency level %q: want ONE, QUORUM, ALL, LOCAL_ONE, LOCAL_QUORUM, EACH_QUORUM, TWO, THREE or ANY", s)
}

// ParseNodes reads yb-sample-apps' --nodes: comma-separated host:port
// entries, split at the last colon, all with the same port (the tool
// refuses different ports). IPv6 addresses are written [addr]:port.
func ParseNodes(s string) (hosts []string, port int, err error) {
	if strings.TrimSpace(s) == "" {
		return nil, 0, errors.New("--nodes is empty: want host:port[,host:port…]")
	}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		h, ps, err := net.SplitHostPort(n)
		if err != nil || h == "" {
			return nil, 0, fmt.Errorf("--nodes entry %q: want host:port", n)
		}
		p, err := strconv.Atoi(ps)
		if err != nil || p < 1 || p > 65535 {
			return nil, 0, fmt.Errorf("--nodes entry %q: bad port %q", n, ps)
		}
		if port != 0 && p != port {
			return nil, 0, fmt.Errorf("--nodes entry %q: every node must use the same port (%d)", n, port)
		}
		port = p
		hosts = append(hosts, h)
	}
	return hosts, port, nil
}

// PasswordEnv is the environment variable a YCQL password may come from.
const PasswordEnv = "YBLOAD_YCQL_PASSWORD"
