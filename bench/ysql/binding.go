package ysql

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/blocksock"
	"github.com/ybbench/ybbench/bench/ycsb"
)

// Binding creates the per-worker connections of the YSQL binding.
type Binding struct {
	cfg *Config
	log *slog.Logger

	read, scan, del string
	yugabyte        bool
	serverVersion   string
	ddl             string // the DDL the agent ran, if it created the table

	errors   atomic.Int64 // failed statements, for rate-limited logging
	retried  atomic.Int64 // statements rerun after 40001/40P01
	rr       atomic.Int64
	workerID atomic.Int64
}

var (
	_ ycsb.Binding   = (*Binding)(nil)
	_ ycsb.Preparer  = (*Binding)(nil)
	_ ycsb.Describer = (*Binding)(nil)
)

// New reads the binding's properties.
func New(p *ycsb.Props, log *slog.Logger, getenv func(string) string) (*Binding, error) {
	cfg, err := ReadConfig(p, getenv)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.BatchUpdateAPI && cfg.BatchSize <= 0 {
		log.Warn("jdbc.batchupdateapi=true without db.batchsize > 0: as in YCSB, the batched inserts are never executed")
	}
	return &Binding{cfg: cfg, log: log, read: readSQL(cfg.Table), scan: scanSQL(cfg.Table, cfg.Driver), del: deleteSQL(cfg.Table)}, nil
}

// connect opens one connection. The password is set on the config, never
// put in a connection string or a log line.
func (b *Binding) connect(ctx context.Context, ep Endpoint) (*pgx.Conn, error) {
	parts := []string{"host=" + agentutil.ConnValue(ep.Host), "port=" + strconv.Itoa(ep.Port), "dbname=" + agentutil.ConnValue(ep.Database)}
	user := b.cfg.User
	if u := ep.Params["user"]; u != "" {
		user = u
	}
	parts = append(parts, "user="+agentutil.ConnValue(user))
	sslmode := "disable" // JDBC uses TLS only when asked
	for k, v := range ep.Params {
		switch k {
		case "user", "password":
		case "sslmode":
			sslmode = v
		default:
			parts = append(parts, k+"="+agentutil.ConnValue(v))
		}
	}
	parts = append(parts, "sslmode="+agentutil.ConnValue(sslmode))
	cc, err := pgx.ParseConfig(strings.Join(parts, " "))
	if err != nil {
		return nil, fmt.Errorf("connection settings for %s: %w", ep, err)
	}
	cc.Password = b.cfg.Password
	if pw := ep.Params["password"]; pw != "" {
		cc.Password = pw
	}
	if b.cfg.Socket == "blocking" {
		cc.DialFunc = blocksock.Dial
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("connect to %s as %s: %w", ep, user, err)
	}
	return conn, nil
}

// Prepare checks, once before the workers start, that the database answers
// and the table exists; it drops and creates the table when asked
// (ysql.droptable, ysql.createtable).
func (b *Binding) Prepare(ctx context.Context, load bool) error {
	if b.cfg.CreateDatabase {
		if err := b.createDatabase(ctx); err != nil {
			return err
		}
	}
	conn, err := b.connect(ctx, b.cfg.Endpoints[0])
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return fmt.Errorf("query the server version on %s: %w", b.cfg.Endpoints[0], err)
	}
	b.serverVersion = version
	b.yugabyte = strings.Contains(version, "-YB-")
	if b.cfg.DropTable {
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+b.cfg.Table); err != nil {
			return fmt.Errorf("drop table %s: %w", b.cfg.Table, err)
		}
	}
	exists, err := tableExists(ctx, conn, b.cfg.Table)
	if err != nil {
		return err
	}
	if !exists && b.cfg.CreateTable {
		b.ddl = CreateTableDDL(b.cfg.Table, b.cfg.FieldNames, b.cfg.DDL, b.yugabyte, b.cfg.SplitAt)
		if _, err := conn.Exec(ctx, b.ddl); err != nil {
			return fmt.Errorf("create table %s: %w", b.cfg.Table, err)
		}
		exists = true
	}
	if !exists {
		return fmt.Errorf("table %s does not exist in database %s on %s: create it first, or set -p ysql.createtable=true",
			b.cfg.Table, b.cfg.Endpoints[0].Database, b.cfg.Endpoints[0])
	}
	return nil
}

// createDatabase creates the endpoints' database when it is missing
// (ysql.createdatabase), connecting to the server's default database
// (postgres, or yugabyte on YugabyteDB) to do it.
func (b *Binding) createDatabase(ctx context.Context) error {
	ep := b.cfg.Endpoints[0]
	var lastErr error
	for _, admin := range []string{"postgres", "yugabyte"} {
		a := ep
		a.Database = admin
		conn, err := b.connect(ctx, a)
		if err != nil {
			lastErr = err
			continue
		}
		defer conn.Close(context.Background())
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", ep.Database).Scan(&exists); err != nil {
			return fmt.Errorf("look up database %s: %w", ep.Database, err)
		}
		if !exists {
			if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{ep.Database}.Sanitize()); err != nil {
				return fmt.Errorf("create database %s: %w", ep.Database, err)
			}
		}
		return nil
	}
	return fmt.Errorf("create database %s: %w", ep.Database, lastErr)
}

func tableExists(ctx context.Context, conn *pgx.Conn, table string) (bool, error) {
	var oid *uint32
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1)::oid", table).Scan(&oid); err != nil {
		return false, fmt.Errorf("look up table %s: %w", table, err)
	}
	return oid != nil, nil
}

// Settings reports what shapes the numbers.
func (b *Binding) Settings() map[string]string {
	s := map[string]string{
		"ysql.driver":         "github.com/jackc/pgx/v5 " + moduleVersion("github.com/jackc/pgx/v5"),
		"ysql.server_version": b.serverVersion,
		"ysql.yugabytedb":     strconv.FormatBool(b.yugabyte),
		"ysql.routing":        "one connection per endpoint per worker, keys routed by Java String.hashCode (YCSB JDBC)",
		"ysql.endpoints":      endpointsString(b.cfg.Endpoints),
		"ysql.autocommit":     strconv.FormatBool(b.cfg.AutoCommit),
		"ysql.batchsize":      strconv.FormatInt(b.cfg.BatchSize, 10),
		"ysql.batchupdateapi": strconv.FormatBool(b.cfg.BatchUpdateAPI),
		"ysql.retries":        strconv.Itoa(b.cfg.Retries),
		"ysql.statements":     "prepared (pgx statement cache)",
		"ysql.socket":         b.cfg.Socket,
	}
	if b.cfg.FetchSize >= 0 {
		s["ysql.fetchsize"] = strconv.FormatInt(b.cfg.FetchSize, 10) + " (no effect: pgx receives a scan's rows in one result)"
	}
	if b.cfg.RoundRobin {
		s["ysql.routing"] = "one connection per worker, workers spread round-robin over ysql.hosts (extension)"
	}
	if b.cfg.LoadBatch != "" {
		s["ysql.load.batch"] = b.cfg.LoadBatch + " (extension)"
	}
	if b.ddl != "" {
		s["ysql.ddl"] = b.ddl
	} else {
		s["ysql.ddl"] = "(table existed; not created by the agent)"
	}
	return s
}

// Counters reports the binding's own counters.
func (b *Binding) Counters() map[string]int64 {
	return map[string]int64{"ysql_statement_errors": b.errors.Load(), "ysql_retries": b.retried.Load()}
}

func endpointsString(eps []Endpoint) string {
	s := make([]string, len(eps))
	for i, e := range eps {
		s[i] = e.String()
	}
	return strings.Join(s, ",")
}

func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "(unknown)"
}

// logError logs a failed statement as YCSB does (to stderr), but only the
// first few and then one in ten thousand, so a failing run does not drown
// its own output.
func (b *Binding) logError(what string, err error) {
	n := b.errors.Add(1)
	if n <= 10 || n%10000 == 0 {
		b.log.Error(what, "err", err, "errors_so_far", n)
	}
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// The summary records the DDL the binding ran.
var _ ycsb.DDLer = (*Binding)(nil)

// DDL is the statement the agent ran to create the table, "" when it
// created none.
func (b *Binding) DDL() string { return b.ddl }

// ThreadBanner is what YCSB's JDBC binding prints on stdout as each
// thread's connections open, with db.url: a line per URL, then the counts
// (extensions that name the servers otherwise print nothing, as they have
// no counterpart).
func (b *Binding) ThreadBanner() []string {
	if len(b.cfg.URLs) == 0 {
		return nil
	}
	lines := make([]string, 0, len(b.cfg.URLs)+1)
	for _, u := range b.cfg.URLs {
		lines = append(lines, "Adding shard node URL: "+u)
	}
	return append(lines, fmt.Sprintf("Using shards: %d, batchSize:%d, fetchSize: %d", len(b.cfg.URLs), b.cfg.BatchSize, b.cfg.FetchSize))
}
