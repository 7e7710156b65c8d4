package kv

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycql"
)

// CQLConfig is the session configuration the reference app builds
// (AppBase.createCassandraClient): every node, concurrent_clients
// connections per host, QUORUM, idempotent statements retried by
// DefaultRetryPolicy, partition-aware unless disabled.
func (o *Options) CQLConfig() *ycql.Config {
	c := &ycql.Config{Hosts: o.Hosts, Port: o.Port, Keyspace: o.Keyspace, Username: o.Username, Password: o.Password,
		ConnsPerHost: o.ConcurrentClients, ConnectTimeout: ycql.DefaultConnectTimeout, ReadTimeout: ycql.DefaultReadTimeout,
		Retry: ycql.RetryOptions{Max: o.Retries, Idempotent: true}, Flavor: ycql.Flavor(o.Flavor), Routing: ycql.RoutingAuto,
		LocalDC: o.LocalDC, ProtoVersion: ycql.DefaultProtoVersion}
	c.Consistency = gocql.Quorum
	if o.ConnectTimeoutMS > 0 {
		c.ConnectTimeout = time.Duration(o.ConnectTimeoutMS) * time.Millisecond
	}
	if o.ReadTimeoutMS > 0 {
		c.ReadTimeout = time.Duration(o.ReadTimeoutMS) * time.Millisecond
	}
	if o.DisableYBPolicy {
		c.Routing = ycql.RoutingRoundRobin
	}
	if o.TokenAware {
		c.Routing = ycql.RoutingTokenAware
	}
	if o.SSLCert != "" {
		c.TLS = &ycql.TLSOptions{CAFile: o.SSLCert}
	}
	return c
}
