// Package ysql is ybload's YSQL binding (PostgreSQL wire protocol, pgx/v5),
// faithful by default to YCSB's JDBC binding that the YugabyteDB YSQL
// benchmarks use (site.ycsb.db.JdbcDBClient, spec ycsb.md §7.3).
package ysql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ybbench/ybbench/bench/agentutil"
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

// ReadConfig reads the binding's properties: the seed's own db.properties
// (db.driver, db.url with several ;-separated jdbc:postgresql:// URLs,
// db.user, db.passwd) or ysql.* properties, or a PostgreSQL URL. It
// reports every problem at once, so that one run names them all.
func ReadConfig(p *ycsb.Props, getenv func(string) string) (*Config, error) {
	c := &Config{Driver: p.Get("db.driver", ""), AutoCommit: p.Bool("jdbc.autocommit", true),
		BatchUpdateAPI: p.Bool("jdbc.batchupdateapi", false), Table: p.Get("table", "usertable")}
	var ps problems
	c.readJDBC(p, &ps)
	c.readExtensions(p, &ps)
	c.FieldNames = readFieldNames(p, &ps)
	c.readCredentials(p, getenv, &ps)
	c.readEndpoints(p, &ps)
	c.readTLS(p, &ps)
	if len(c.Endpoints) == 0 && len(ps) == 0 {
		ps.add(errors.New("no database given: set db.url (jdbc:postgresql://host:5433/ycsb;…), ysql.url or ysql.hosts"))
	}
	if len(ps) > 0 {
		return nil, errors.Join(ps...)
	}
	return c, nil
}

// problems are the configuration's errors in the order the properties are
// read.
type problems []error

// add keeps err if there is one, so that a reader's result can be passed
// without a check.
func (ps *problems) add(err error) {
	if err != nil {
		*ps = append(*ps, err)
	}
}

// readJDBC reads the JDBC binding's numbers with YCSB's names and defaults.
func (c *Config) readJDBC(p *ycsb.Props, ps *problems) {
	var err error
	c.BatchSize, err = p.Int("db.batchsize", -1)
	ps.add(err)
	c.FetchSize, err = p.Int("jdbc.fetchsize", -1)
	ps.add(err)
}

// readExtensions reads ybload's own ysql.* settings, each off (YCSB's
// behaviour) unless given, except the table's shape on YugabyteDB.
func (c *Config) readExtensions(p *ycsb.Props, ps *problems) {
	retries, err := p.Int("ysql.retries", 0)
	ps.add(err)
	c.Retries = int(retries)
	if retries < 0 {
		ps.add(fmt.Errorf("%s: ysql.retries must not be negative", p.SourceOf("ysql.retries")))
	}
	switch c.Socket = p.Get("ysql.socket", "poller"); c.Socket {
	case "poller", "blocking":
	default:
		ps.add(fmt.Errorf("%s: ysql.socket=%s: want poller or blocking", p.SourceOf("ysql.socket"), c.Socket))
	}
	c.LoadBatch = p.Get("ysql.load.batch", "")
	switch c.LoadBatch {
	case "", "multirow", "copy":
	default:
		ps.add(fmt.Errorf("%s: ysql.load.batch=%s: want multirow or copy", p.SourceOf("ysql.load.batch"), c.LoadBatch))
	}
	if c.LoadBatch != "" && c.BatchSize <= 0 {
		ps.add(fmt.Errorf("%s: ysql.load.batch needs db.batchsize > 0 (rows per batch)", p.SourceOf("ysql.load.batch")))
	}
	c.CreateTable, err = p.StrictBool("ysql.createtable", false)
	ps.add(err)
	c.CreateDatabase, err = p.StrictBool("ysql.createdatabase", false)
	ps.add(err)
	c.DropTable, err = p.StrictBool("ysql.droptable", false)
	ps.add(err)
	c.DDL = p.Get("ysql.ddl", "range")
	if c.DDL != "range" && c.DDL != "hash" {
		ps.add(fmt.Errorf("%s: ysql.ddl=%s: want range or hash", p.SourceOf("ysql.ddl"), c.DDL))
	}
	c.SplitAt, err = p.StrictBool("ysql.splitat", true)
	ps.add(err)
}

// readFieldNames names the table's columns as CoreWorkload does, for the
// DDL the binding runs when it creates the table.
func readFieldNames(p *ycsb.Props, ps *problems) []string {
	fc, err := p.Int("fieldcount", 10)
	ps.add(err)
	prefix := p.Get("fieldnameprefix", "field")
	var names []string
	for i := int64(0); i < fc; i++ {
		names = append(names, prefix+strconv.FormatInt(i, 10))
	}
	return names
}

// readCredentials reads the user and the password: ysql.* beat db.*, and
// for each a password given inline beats one from a 0600 file; last, the
// environment, so a password never needs to be on a command line.
func (c *Config) readCredentials(p *ycsb.Props, getenv func(string) string, ps *problems) {
	c.User = p.Get("ysql.user", p.Get("db.user", "yugabyte"))
	for _, key := range []string{"ysql.password", "ysql.password.file", "db.passwd", "db.passwd.file"} {
		v := p.Get(key, "")
		if v == "" {
			continue
		}
		if strings.HasSuffix(key, ".file") {
			pw, err := agentutil.ReadSecretFile(v)
			if err != nil {
				ps.add(fmt.Errorf("%s: %s: %w", p.SourceOf(key), key, err))
			}
			v = pw
		}
		c.Password = v
		break
	}
	if c.Password == "" && getenv != nil {
		c.Password = getenv("YBLOAD_YSQL_PASSWORD")
	}
}
