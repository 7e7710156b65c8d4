package ysql

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// Endpoint is one server and database.
type Endpoint struct {
	Host     string
	Port     int
	Database string
	Params   map[string]string // sslmode, sslrootcert, …
}

func (e Endpoint) String() string {
	return net.JoinHostPort(e.Host, strconv.Itoa(e.Port)) + "/" + e.Database
}

// readEndpoints reads the servers from the first of three forms given:
// ysql.hosts (a list; each worker connects to the next in turn), ysql.url
// (one URL), or the seeds' db.url (;-separated JDBC URLs; each worker
// connects to every one, as YCSB's shards).
func (c *Config) readEndpoints(p *ycsb.Props, ps *problems) {
	switch {
	case p.Has("ysql.hosts"):
		c.readHosts(p, ps)
	case p.Has("ysql.url"):
		ep, err := parseURL(p.Get("ysql.url", ""))
		if err != nil {
			// Reported, and no endpoint kept: the settings after it
			// (ysql.sslmode) fill only endpoints that parsed.
			ps.add(fmt.Errorf("%s: ysql.url: %w", p.SourceOf("ysql.url"), err))
			break
		}
		c.Endpoints = []Endpoint{ep}
	default:
		for _, u := range strings.Split(p.Get("db.url", ""), ";") {
			if strings.TrimSpace(u) == "" {
				continue // YCSB ignores the trailing ;
			}
			ep, err := parseURL(u)
			if err != nil {
				ps.add(fmt.Errorf("%s: db.url: %w", p.SourceOf("db.url"), err))
				continue
			}
			c.Endpoints = append(c.Endpoints, ep)
			c.URLs = append(c.URLs, u)
		}
	}
}

// readHosts reads ysql.hosts: host or host:port entries, the others on
// ysql.port, all in ysql.database.
func (c *Config) readHosts(p *ycsb.Props, ps *problems) {
	port, err := p.Int("ysql.port", 5433)
	ps.add(err)
	if err == nil && (port < 1 || port > 65535) {
		ps.add(fmt.Errorf("%s: ysql.port=%d: not a port", p.SourceOf("ysql.port"), port))
	}
	db := p.Get("ysql.database", "ycsb")
	for _, h := range strings.Split(p.Get("ysql.hosts", ""), ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		ep := Endpoint{Host: h, Port: int(port), Database: db, Params: map[string]string{}}
		if host, portStr, err := net.SplitHostPort(h); err == nil {
			pn, err := strconv.Atoi(portStr)
			if err != nil || pn < 1 || pn > 65535 {
				ps.add(fmt.Errorf("%s: ysql.hosts: bad port in %q", p.SourceOf("ysql.hosts"), h))
			}
			ep.Host, ep.Port = host, pn
		}
		c.Endpoints = append(c.Endpoints, ep)
	}
	c.RoundRobin = true
}

// readTLS applies ysql.sslmode and ysql.sslrootcert to every endpoint,
// over what a URL said, so one setting covers a list of servers.
func (c *Config) readTLS(p *ycsb.Props, ps *problems) {
	if mode := p.Get("ysql.sslmode", ""); mode != "" {
		switch mode {
		case "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
		default:
			ps.add(fmt.Errorf("%s: ysql.sslmode=%s: want disable, allow, prefer, require, verify-ca or verify-full", p.SourceOf("ysql.sslmode"), mode))
		}
		for i := range c.Endpoints {
			c.Endpoints[i].Params["sslmode"] = mode
		}
	}
	if ca := p.Get("ysql.sslrootcert", ""); ca != "" {
		for i := range c.Endpoints {
			c.Endpoints[i].Params["sslrootcert"] = ca
		}
	}
}

// parseURL reads jdbc:postgresql://host:port/db?params or postgres[ql]://user:pw@host:port/db?params.
func parseURL(s string) (Endpoint, error) {
	s = strings.TrimSpace(s)
	raw := strings.TrimPrefix(s, "jdbc:")
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgresql" && u.Scheme != "postgres") || u.Host == "" {
		return Endpoint{}, fmt.Errorf("%q is not a jdbc:postgresql:// or postgres:// URL", s)
	}
	ep := Endpoint{Host: u.Hostname(), Port: 5432, Database: strings.TrimPrefix(u.Path, "/"), Params: map[string]string{}}
	if strings.HasPrefix(s, "jdbc:") {
		ep.Port = 5432 // the JDBC default when the URL names none
	}
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			return Endpoint{}, fmt.Errorf("%q: bad port", s)
		}
		ep.Port = n
	}
	for k, v := range u.Query() {
		switch k {
		case "ssl":
			if len(v) > 0 && v[0] == "true" {
				ep.Params["sslmode"] = "require"
			}
		case "sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "application_name":
			ep.Params[k] = v[0]
		}
	}
	if u.User != nil {
		ep.Params["user"] = u.User.Username()
		if pw, ok := u.User.Password(); ok {
			ep.Params["password"] = pw
		}
	}
	return ep, nil
}
