package ycql

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/ycsb"
)

// Defaults of YugabyteDB's YCSB binding (yugabyteCQL), which differ from
// upstream YCSB's cassandra binding in consistency (ONE, not QUORUM) and
// pool size (2).
const (
	YCSBDefaultConsistency = "ONE"
	YCSBDefaultConnections = 2
	YCSBDefaultKeyspace    = "ycsb"
)

// NewYCSB reads the binding's properties: the yugabyteCQL binding's own
// (hosts, port, cassandra.*) and ybload's extensions (ycql.*). getenv
// supplies YBLOAD_YCQL_PASSWORD. It reports every problem at once, so
// that one run names them all; Config.Validate runs only when every
// property read cleanly, as its checks would repeat those errors.
func NewYCSB(p *ycsb.Props, log *slog.Logger, getenv func(string) string) (*YCSBBinding, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &YCSBBinding{log: log, table: p.Get("table", "usertable")}
	r := &ycsbProps{p: p}
	c := &b.cfg
	c.Logger = log
	r.readCluster(c, getenv)
	b.readConsistency(r)
	r.readConnections(c)
	r.readExtensions(c)
	b.readSchema(r)
	if len(r.errs) == 0 {
		if err := c.Validate(); err != nil {
			r.errs = append(r.errs, err)
		}
	}
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return b, nil
}

// ycsbProps reads the binding's properties and keeps every problem, each
// naming where the bad value was set.
type ycsbProps struct {
	p    *ycsb.Props
	errs []error
}

func (r *ycsbProps) bad(key, msg string) {
	r.errs = append(r.errs, fmt.Errorf("%s: property %s=%q: %s", r.p.SourceOf(key), key, r.p.Get(key, ""), msg))
}

// bool reads one of ybload's own booleans (true or false only).
func (r *ycsbProps) bool(key string, def bool) bool {
	v, err := r.p.StrictBool(key, def)
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return v
}

func (r *ycsbProps) int(key string, def int64) int64 {
	v, err := r.p.Int(key, def)
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return v
}

// readCluster reads where the servers are and how to log in: a password
// file or the environment keeps the password off the command line.
func (r *ycsbProps) readCluster(c *Config, getenv func(string) string) {
	p := r.p
	if h := strings.TrimSpace(p.Get("hosts", "")); h != "" {
		for _, x := range strings.Split(h, ",") {
			c.Hosts = append(c.Hosts, strings.TrimSpace(x))
		}
	} else {
		r.errs = append(r.errs, errors.New("missing property hosts: the YCQL binding needs hosts=host1,host2,… (db.properties)"))
	}
	c.Port = int(r.int("port", DefaultPort))
	c.Keyspace = p.Get("cassandra.keyspace", YCSBDefaultKeyspace)
	c.Username = p.Get("cassandra.username", "")
	c.Password = p.Get("cassandra.password", "")
	if f := p.Get("cassandra.password.file", ""); f != "" {
		pw, err := agentutil.ReadSecretFile(f)
		if err != nil {
			r.bad("cassandra.password.file", err.Error())
		}
		c.Password = pw
	}
	if c.Password == "" && getenv != nil {
		c.Password = getenv(PasswordEnv)
	}
}

// readConsistency reads the read and write consistency levels; the
// session's default is the read level, the writes set theirs per statement.
func (b *YCSBBinding) readConsistency(r *ycsbProps) {
	p := r.p
	var err error
	if b.readCL, err = ParseConsistency(p.Get("cassandra.readconsistencylevel", YCSBDefaultConsistency)); err != nil {
		r.bad("cassandra.readconsistencylevel", err.Error())
	}
	if b.writeCL, err = ParseConsistency(p.Get("cassandra.writeconsistencylevel", YCSBDefaultConsistency)); err != nil {
		r.bad("cassandra.writeconsistencylevel", err.Error())
	}
	b.cfg.Consistency = b.readCL
}

// readConnections reads the driver's pool, timeouts and TLS, refusing
// tracing, which ybload does not do.
func (r *ycsbProps) readConnections(c *Config) {
	p := r.p
	// The Java pool grows from core to max connections; gocql keeps a fixed
	// number, the larger of the two.
	c.ConnsPerHost = int(max(r.int("cassandra.coreconnections", YCSBDefaultConnections), r.int("cassandra.maxconnections", YCSBDefaultConnections)))
	c.ConnectTimeout = time.Duration(r.int("cassandra.connecttimeoutmillis", DefaultConnectTimeout.Milliseconds())) * time.Millisecond
	c.ReadTimeout = time.Duration(r.int("cassandra.readtimeoutmillis", DefaultReadTimeout.Milliseconds())) * time.Millisecond
	if p.Bool("cassandra.useSSL", false) {
		c.TLS = &TLSOptions{CAFile: p.Get("ycql.ssl.ca", ""), CertFile: p.Get("ycql.ssl.cert", ""),
			KeyFile: p.Get("ycql.ssl.key", ""), VerifyHostname: r.bool("ycql.ssl.verifyhostname", false)}
	}
	if p.Bool("cassandra.tracing", false) {
		r.bad("cassandra.tracing", "not supported by ybload")
	}
}

// readExtensions reads ybload's own ycql.* settings of the session.
func (r *ycsbProps) readExtensions(c *Config) {
	p := r.p
	c.Retry = RetryOptions{Max: int(r.int("ycql.retries", 1))}
	c.Flavor = Flavor(p.Get("ycql.flavor", string(FlavorAuto)))
	c.Routing = Routing(p.Get("ycql.routing", string(RoutingAuto)))
	c.LocalDC = p.Get("ycql.localdc", "")
	c.ProtoVersion = int(r.int("ycql.protocol", DefaultProtoVersion))
	// ycql.write.coalesce may be 0 (each request written at once); the other
	// intervals must be positive.
	for _, d := range []struct {
		key string
		dst *time.Duration
	}{{"ycql.reconnect.interval", &c.ReconnectInterval}, {"ycql.partition.refresh", &c.PartitionRefresh},
		{"ycql.write.coalesce", &c.WriteCoalesce}} {
		if v := p.Get(d.key, ""); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x < 0 || (x == 0 && d.key != "ycql.write.coalesce") {
				r.bad(d.key, "want a positive duration such as 1s")
			}
			*d.dst = x
		}
	}
}

// readSchema reads what Prepare needs to create the keyspace and table:
// whether to, the replication factor, and the columns as CoreWorkload
// names them.
func (b *YCSBBinding) readSchema(r *ycsbProps) {
	p := r.p
	b.createTable = r.bool("ycql.createtable", false)
	b.dropTable = r.bool("ycql.droptable", false)
	b.rf = int(r.int("ycql.replication_factor", 0))
	if b.rf < 0 {
		r.bad("ycql.replication_factor", "must not be negative")
	}
	fc := r.int("fieldcount", 10)
	prefix := p.Get("fieldnameprefix", "field")
	for i := int64(0); i < fc; i++ {
		b.fields = append(b.fields, prefix+strconv.FormatInt(i, 10))
	}
}
