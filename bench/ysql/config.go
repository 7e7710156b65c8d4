// Package ysql is ybload's YSQL binding (PostgreSQL wire protocol, pgx/v5),
// faithful by default to YCSB's JDBC binding that the YugabyteDB YSQL
// benchmarks use (site.ycsb.db.JdbcDBClient, spec ycsb.md §7.3).
package ysql

import (
	"github.com/ybbench/ybbench/bench/agentutil"

	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// Config is the binding's configuration.
type Config struct {
	// Endpoints are the servers: one connection per endpoint per worker
	// (YCSB's db.url "shards"), or, with RoundRobin, one per worker spread
	// over them (ysql.hosts).
	Endpoints  []Endpoint
	RoundRobin bool
	User       string
	Password   string
	Driver     string // db.driver: selects the scan syntax as YCSB does
	// JDBC semantics (YCSB names and defaults).
	BatchSize      int64 // db.batchsize; -1 = off
	BatchUpdateAPI bool  // jdbc.batchupdateapi
	AutoCommit     bool  // jdbc.autocommit
	// FetchSize is jdbc.fetchsize (-1 unset), read and recorded: with pgx
	// a scan's rows arrive in one result, so it changes nothing here.
	FetchSize int64
	// URLs are db.url's pieces as given, for the binding's per-thread
	// banner; empty when the endpoints came from ysql.url or ysql.hosts.
	URLs []string
	// Extensions, off by default.
	LoadBatch string // ysql.load.batch: "" (off), multirow or copy
	Retries   int    // ysql.retries: reruns of 40001/40P01
	// Socket is how connections wait for the server (ysql.socket):
	// "poller" (Go's network poller) or "blocking" (package blocksock).
	Socket      string
	CreateTable bool // ysql.createtable: create the table when missing
	// CreateDatabase creates the database when missing (ysql.createdatabase).
	CreateDatabase bool
	DropTable      bool   // ysql.droptable: drop it first (a fresh table)
	DDL            string // ysql.ddl: range (seed 000, default on YugabyteDB) or hash
	SplitAt        bool   // whether the range DDL splits the table (YugabyteDB only)
	Table          string
	FieldNames     []string
}

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

// ReadConfig reads the binding's properties: the seed's own db.properties
// (db.driver, db.url with several ;-separated jdbc:postgresql:// URLs,
// db.user, db.passwd) or ysql.* properties, or a PostgreSQL URL.
func ReadConfig(p *ycsb.Props, getenv func(string) string) (*Config, error) {
	c := &Config{Driver: p.Get("db.driver", ""), AutoCommit: p.Bool("jdbc.autocommit", true),
		BatchUpdateAPI: p.Bool("jdbc.batchupdateapi", false), Table: p.Get("table", "usertable")}
	var errs []error
	note := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	c.BatchSize, err = p.Int("db.batchsize", -1)
	note(err)
	c.FetchSize, err = p.Int("jdbc.fetchsize", -1)
	note(err)
	retries, err := p.Int("ysql.retries", 0)
	note(err)
	c.Retries = int(retries)
	if retries < 0 {
		errs = append(errs, fmt.Errorf("%s: ysql.retries must not be negative", p.SourceOf("ysql.retries")))
	}
	switch c.Socket = p.Get("ysql.socket", "poller"); c.Socket {
	case "poller", "blocking":
	default:
		errs = append(errs, fmt.Errorf("%s: ysql.socket=%s: want poller or blocking", p.SourceOf("ysql.socket"), c.Socket))
	}
	c.LoadBatch = p.Get("ysql.load.batch", "")
	switch c.LoadBatch {
	case "", "multirow", "copy":
	default:
		errs = append(errs, fmt.Errorf("%s: ysql.load.batch=%s: want multirow or copy", p.SourceOf("ysql.load.batch"), c.LoadBatch))
	}
	if c.LoadBatch != "" && c.BatchSize <= 0 {
		errs = append(errs, fmt.Errorf("%s: ysql.load.batch needs db.batchsize > 0 (rows per batch)", p.SourceOf("ysql.load.batch")))
	}
	c.CreateTable, err = p.StrictBool("ysql.createtable", false)
	note(err)
	c.CreateDatabase, err = p.StrictBool("ysql.createdatabase", false)
	note(err)
	c.DropTable, err = p.StrictBool("ysql.droptable", false)
	note(err)
	c.DDL = p.Get("ysql.ddl", "range")
	if c.DDL != "range" && c.DDL != "hash" {
		errs = append(errs, fmt.Errorf("%s: ysql.ddl=%s: want range or hash", p.SourceOf("ysql.ddl"), c.DDL))
	}
	c.SplitAt, err = p.StrictBool("ysql.splitat", true)
	note(err)
	fc, err := p.Int("fieldcount", 10)
	note(err)
	prefix := p.Get("fieldnameprefix", "field")
	for i := int64(0); i < fc; i++ {
		c.FieldNames = append(c.FieldNames, prefix+strconv.FormatInt(i, 10))
	}

	// Credentials: ysql.* beat db.*, and for each a password given inline
	// beats one from a 0600 file; last, the environment, so a password
	// never needs to be on a command line.
	c.User = p.Get("ysql.user", p.Get("db.user", "yugabyte"))
	for _, key := range []string{"ysql.password", "ysql.password.file", "db.passwd", "db.passwd.file"} {
		v := p.Get(key, "")
		if v == "" {
			continue
		}
		if strings.HasSuffix(key, ".file") {
			pw, err := agentutil.ReadSecretFile(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", p.SourceOf(key), key, err))
			}
			v = pw
		}
		c.Password = v
		break
	}
	if c.Password == "" && getenv != nil {
		c.Password = getenv("YBLOAD_YSQL_PASSWORD")
	}

	switch {
	case p.Has("ysql.hosts"):
		port, err := p.Int("ysql.port", 5433)
		note(err)
		if err == nil && (port < 1 || port > 65535) {
			errs = append(errs, fmt.Errorf("%s: ysql.port=%d: not a port", p.SourceOf("ysql.port"), port))
		}
		db := p.Get("ysql.database", "ycsb")
		for _, h := range strings.Split(p.Get("ysql.hosts", ""), ",") {
			h = strings.TrimSpace(h)
			if h == "" {
				continue
			}
			ep := Endpoint{Host: h, Port: int(port), Database: db, Params: map[string]string{}}
			if host, ps, err := net.SplitHostPort(h); err == nil {
				pn, err := strconv.Atoi(ps)
				if err != nil || pn < 1 || pn > 65535 {
					errs = append(errs, fmt.Errorf("%s: ysql.hosts: bad port in %q", p.SourceOf("ysql.hosts"), h))
				}
				ep.Host, ep.Port = host, pn
			}
			c.Endpoints = append(c.Endpoints, ep)
		}
		c.RoundRobin = true
	case p.Has("ysql.url"):
		ep, err := parseURL(p.Get("ysql.url", ""))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: ysql.url: %w", p.SourceOf("ysql.url"), err))
		}
		c.Endpoints = []Endpoint{ep}
	default:
		for _, u := range strings.Split(p.Get("db.url", ""), ";") {
			if strings.TrimSpace(u) == "" {
				continue // YCSB ignores the trailing ;
			}
			ep, err := parseURL(u)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: db.url: %w", p.SourceOf("db.url"), err))
				continue
			}
			c.Endpoints = append(c.Endpoints, ep)
			c.URLs = append(c.URLs, u)
		}
	}
	if mode := p.Get("ysql.sslmode", ""); mode != "" {
		switch mode {
		case "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
		default:
			errs = append(errs, fmt.Errorf("%s: ysql.sslmode=%s: want disable, allow, prefer, require, verify-ca or verify-full", p.SourceOf("ysql.sslmode"), mode))
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
	if len(c.Endpoints) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no database given: set db.url (jdbc:postgresql://host:5433/ycsb;…), ysql.url or ysql.hosts"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
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
