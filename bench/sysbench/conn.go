package sysbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/blocksock"
)

// endpoint is one server as --pgsql-* name it.
type endpoint struct {
	host, user, password, db, sslmode string
	port                              int
	blocking                          bool // --ybload-socket=blocking
}

func (e endpoint) String() string {
	return net.JoinHostPort(e.host, strconv.Itoa(e.port)) + "/" + e.db
}

// endpoints are the servers of the command line; the fork assigns worker i
// to host i mod n (spec §10.1).
func endpoints(o *Options) []endpoint {
	eps := make([]endpoint, len(o.Hosts))
	for i, h := range o.Hosts {
		eps[i] = endpoint{host: h, port: o.Port, user: o.User, password: o.Password, db: o.DB, sslmode: o.SSLMode,
			blocking: o.Socket == "blocking"}
	}
	return eps
}

// connect opens one connection as libpq's PQsetdbLogin would: no pool, no
// statement cache. The password is set on the configuration, never put in a
// connection string; without one, ~/.pgpass applies as with libpq.
func connect(ctx context.Context, ep endpoint) (*pgconn.PgConn, error) {
	parts := []string{"host=" + agentutil.ConnValue(ep.host), "port=" + strconv.Itoa(ep.port),
		"user=" + agentutil.ConnValue(ep.user), "dbname=" + agentutil.ConnValue(ep.db)}
	if ep.sslmode != "" {
		parts = append(parts, "sslmode="+agentutil.ConnValue(ep.sslmode))
	}
	cfg, err := pgconn.ParseConfig(strings.Join(parts, " "))
	if err != nil {
		return nil, fmt.Errorf("connection settings for %s: %w", ep, err)
	}
	if ep.password != "" {
		cfg.Password = ep.password
	}
	if ep.blocking {
		cfg.DialFunc = blocksock.Dial
	}
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s as %s: %w", ep, ep.user, err)
	}
	return c, nil
}

// class is how sysbench counts a statement's result (spec §7.1).
type class uint8

const (
	classRead  class = iota // a row set, even an empty one
	classWrite              // a command that affected rows
	classOther              // a command that affected none (BEGIN, COMMIT, a 0-row DELETE)
)

// classify counts by result shape: a row description means read, else the
// affected-row count decides between write and other.
func classify(fields []pgconn.FieldDescription, tag pgconn.CommandTag) class {
	switch {
	case len(fields) > 0:
		return classRead
	case tag.RowsAffected() > 0:
		return classWrite
	}
	return classOther
}

// arg is one statement parameter: an integer, or a string when s is set.
type arg struct {
	i int64
	s []byte
}

// appendText appends the parameter in text format, as sysbench binds it.
func (a arg) appendText(dst []byte) []byte {
	if a.s != nil {
		return append(dst, a.s...)
	}
	return strconv.AppendInt(dst, a.i, 10)
}

// appendLiteral appends the parameter as an SQL literal (strings quoted,
// not escaped, as sysbench does: its strings hold digits and dashes).
func (a arg) appendLiteral(dst []byte) []byte {
	if a.s != nil {
		dst = append(dst, '\'')
		dst = append(dst, a.s...)
		return append(dst, '\'')
	}
	return strconv.AppendInt(dst, a.i, 10)
}

// session is one worker's connection with its prepared statements: what
// sysbench's thread_init sets up (spec §1.2, §10.2).
type session struct {
	o        *Options
	eps      []endpoint
	home     int // the endpoint this worker connects to
	kinds    []kind
	prepared bool // server-side prepared statements (--db-ps-mode=auto)

	conn  *pgconn.PgConn
	cur   atomic.Pointer[pgconn.PgConn] // read by the cut-off watch
	names [numKinds][]string            // statement names by kind and table
	texts [numKinds][]string            // statement texts by kind and table

	params  [][]byte
	scratch []byte
	sql     []byte
	formats []int16 // result formats: binary, as sysbench asks
}

func newSession(o *Options, eps []endpoint, worker int) *session {
	s := &session{o: o, eps: eps, home: worker % len(eps), kinds: kinds(o), prepared: o.PSMode != "disable",
		formats: []int16{1}, params: make([][]byte, 0, 4)}
	for _, k := range s.kinds {
		if !k.perTable() {
			s.names[k] = []string{stmtName(k, 0)}
			s.texts[k] = []string{k.sqlFor(0)}
			continue
		}
		s.names[k] = make([]string, o.Tables+1)
		s.texts[k] = make([]string, o.Tables+1)
		for t := 1; t <= int(o.Tables); t++ {
			s.names[k][t] = stmtName(k, t)
			s.texts[k][t] = k.sqlFor(t)
		}
	}
	return s
}

// open connects to endpoint i and prepares every statement of the workload,
// with the parameter types of the mode.
func (s *session) open(ctx context.Context, i int) error {
	ep := s.eps[i%len(s.eps)]
	c, err := connect(ctx, ep)
	if err != nil {
		return err
	}
	if s.prepared {
		for _, st := range Catalogue(s.o) {
			if _, err := c.Prepare(ctx, st.Name, st.SQL, st.OIDs); err != nil {
				c.Close(context.Background())
				return fmt.Errorf("prepare %q on %s: %w", st.SQL, ep, err)
			}
		}
	}
	s.conn = c
	s.cur.Store(c)
	return nil
}

// close closes the connection.
func (s *session) close() {
	if s.conn != nil {
		s.conn.Close(context.Background())
		s.conn = nil
		s.cur.Store(nil)
	}
}

// cutOff makes the statement in flight fail at once: statements run without
// a context watch each (pgconn would start one per call), so the worker's
// context, when cancelled, sets a past deadline on the socket instead.
func (s *session) cutOff() {
	if c := s.cur.Load(); c != nil {
		c.Conn().SetDeadline(time.Unix(1, 0))
	}
}

// exec runs statement kind k on table t, prepared or as literal SQL.
func (s *session) exec(k kind, t int, args []arg) (class, error) {
	if !s.prepared {
		text := s.texts[k][0]
		if k.perTable() {
			text = s.texts[k][t]
		}
		s.sql = literalSQL(s.sql[:0], text, args)
		return s.execSQL(s.sql)
	}
	s.scratch = s.scratch[:0]
	s.params = s.params[:0]
	for _, a := range args {
		if a.s != nil {
			s.params = append(s.params, a.s)
			continue
		}
		start := len(s.scratch)
		s.scratch = a.appendText(s.scratch)
		s.params = append(s.params, s.scratch[start:len(s.scratch):len(s.scratch)])
	}
	name := s.names[k][0]
	if k.perTable() {
		name = s.names[k][t]
	}
	rr := s.conn.ExecPrepared(context.Background(), name, s.params, nil, s.formats)
	fields := rr.FieldDescriptions()
	tag, err := rr.Close()
	if err != nil {
		return classOther, &stmtError{k: k, t: t, err: err}
	}
	return classify(fields, tag), nil
}

// stmtError names the statement that failed.
type stmtError struct {
	k   kind
	t   int
	err error
}

func (e *stmtError) Error() string { return e.k.sqlFor(e.t) + ": " + e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }

// execSQL runs one statement with the simple query protocol, as sysbench's
// db_query (oltp_insert, --db-ps-mode=disable).
func (s *session) execSQL(sql []byte) (class, error) {
	mrr := s.conn.Exec(context.Background(), string(sql))
	cl := classOther
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		fields := rr.FieldDescriptions()
		tag, _ := rr.Close()
		cl = classify(fields, tag)
	}
	if err := mrr.Close(); err != nil {
		return classOther, fmt.Errorf("%s: %w", clip(sql, 80), err)
	}
	return cl, nil
}

// clip shortens a statement for an error message.
func clip(sql []byte, n int) string {
	if len(sql) <= n {
		return string(sql)
	}
	return string(sql[:n]) + "…"
}

// rollback ends the failed transaction as sysbench's driver does after an
// ignorable error: a simple-protocol ROLLBACK whose result is discarded
// (a NOTICE when no transaction is open is dropped by pgconn).
func (s *session) rollback() error {
	return s.conn.Exec(context.Background(), "ROLLBACK").Close()
}

// lost reports whether the connection is gone after err.
func (s *session) lost(err error) bool {
	if s.conn == nil || s.conn.IsClosed() {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Severity == "FATAL" || pe.Severity == "PANIC" || strings.HasPrefix(pe.Code, "08")
	}
	return false
}

// retryable reports the three SQLSTATEs sysbench's pgsql driver ignores:
// serialization_failure, deadlock_detected and unique_violation (spec §7.3).
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01", "23505":
		return true
	}
	return false
}

// serverVersion returns version() of the first endpoint and whether it is
// YugabyteDB (its version string carries "-YB-").
func serverVersion(ctx context.Context, ep endpoint) (string, bool, error) {
	c, err := connect(ctx, ep)
	if err != nil {
		return "", false, err
	}
	defer c.Close(context.Background())
	res, err := c.Exec(ctx, qVersion).ReadAll()
	if err != nil {
		return "", false, fmt.Errorf("query the server version on %s: %w", ep, err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 {
		return "", false, fmt.Errorf("query the server version on %s: no row", ep)
	}
	v := string(res[0].Rows[0][0])
	return v, strings.Contains(v, "-YB-"), nil
}

// The agent's own statements (outside the workload), named so tests that
// capture the statements sent can tell them apart.
const (
	qVersion      = "SELECT version()"
	qTablesExists = "SELECT n FROM generate_series(1, $1::int) AS n WHERE to_regclass('sbtest' || n) IS NULL ORDER BY n"
)

// missingTables returns the numbers of the tables sbtest1..N that do not exist.
func missingTables(ctx context.Context, ep endpoint, tables int64) ([]int64, error) {
	c, err := connect(ctx, ep)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	res := c.ExecParams(ctx, qTablesExists, [][]byte{strconv.AppendInt(nil, tables, 10)}, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, fmt.Errorf("look up the tables on %s: %w", ep, res.Err)
	}
	var out []int64
	for _, r := range res.Rows {
		n, _ := strconv.ParseInt(string(r[0]), 10, 64)
		out = append(out, n)
	}
	return out, nil
}
