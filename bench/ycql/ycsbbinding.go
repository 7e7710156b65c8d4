package ycql

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// YCSBBinding is the yugabyteCQL binding: one session shared by every
// worker, created by the first worker and closed by the last, as the
// reference binding does.
type YCSBBinding struct {
	cfg         Config
	readCL      gocql.Consistency
	writeCL     gocql.Consistency
	table       string
	fields      []string
	createTable bool
	dropTable   bool
	rf          int // 0: DefaultReplicationFactor
	log         *slog.Logger

	server Server
	ddl    []string

	mu       sync.Mutex
	sess     *Session
	openErr  error
	refs     int
	lastSess *Session

	stmtErrors atomic.Int64
	errKinds   [KindOther + 1]atomic.Int64
}

var (
	_ ycsb.Binding   = (*YCSBBinding)(nil)
	_ ycsb.Preparer  = (*YCSBBinding)(nil)
	_ ycsb.Describer = (*YCSBBinding)(nil)
	_ ycsb.Closer    = (*YCSBBinding)(nil)
)

// Prepare detects the server and, when asked, creates the keyspace and
// table (dropping the table first with ycql.droptable); otherwise it checks
// that the table exists.
func (b *YCSBBinding) Prepare(ctx context.Context, _ bool) error {
	a, err := Probe(ctx, &b.cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	b.server = a.Server
	ks := b.cfg.Keyspace
	exec := func(stmt string) error {
		b.ddl = append(b.ddl, stmt)
		if err := a.S.Query(stmt).WithContext(ctx).Consistency(gocql.One).Exec(); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		return nil
	}
	if b.createTable {
		rf := b.rf
		if rf == 0 {
			rf = DefaultReplicationFactor(a.Server.Nodes)
		}
		if err := exec(CreateKeyspaceCQL(ks, rf)); err != nil {
			return err
		}
	}
	if b.dropTable {
		if err := exec("DROP TABLE IF EXISTS " + ks + "." + b.table); err != nil {
			return err
		}
	}
	if b.createTable {
		if err := exec(YCSBTableCQL(ks, b.table, b.fields)); err != nil {
			return err
		}
	}
	err = a.S.Query("SELECT " + YCSBKey + " FROM " + ks + "." + b.table + " LIMIT 1").WithContext(ctx).Consistency(gocql.One).Exec()
	if err != nil {
		return fmt.Errorf("table %s.%s is not usable on %s: %w (create it first, or set -p ycql.createtable=true)", ks, b.table, strings.Join(b.cfg.Hosts, ","), err)
	}
	return nil
}

// NewDB returns a worker's DB on the shared session, opening the session
// for the first worker (inside the timed window, as the reference's first
// init() does).
func (b *YCSBBinding) NewDB(ctx context.Context, _, _ int) (ycsb.DB, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess == nil {
		if b.openErr != nil {
			return nil, b.openErr
		}
		s, err := Open(ctx, &b.cfg, b.server)
		if err != nil {
			if ctx.Err() == nil {
				b.openErr = err // every worker fails the same way
			}
			return nil, err
		}
		b.sess, b.lastSess = s, s
	}
	b.refs++
	return newYCSBDB(b, b.sess), nil
}

// release drops a worker's reference; the last one closes the session.
func (b *YCSBBinding) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refs--
	if b.refs == 0 && b.sess != nil {
		b.sess.Close()
		b.sess = nil
	}
}

// Close closes the session if workers left it open.
func (b *YCSBBinding) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess != nil {
		b.sess.Close()
		b.sess = nil
	}
	return nil
}

// Settings reports what shapes the numbers.
func (b *YCSBBinding) Settings() map[string]string {
	s := Describe(&b.cfg, b.server)
	s["ycql.binding"] = "yugabyteCQL (site.ycsb.db.CassandraCQLClient): one shared session, prepared statements"
	s["ycql.read_consistency"] = b.readCL.String()
	s["ycql.write_consistency"] = b.writeCL.String()
	s["ycql.table"] = b.cfg.Keyspace + "." + b.table
	if len(b.ddl) > 0 {
		s["ycql.ddl"] = strings.Join(b.ddl, "; ")
	} else {
		s["ycql.ddl"] = "(table existed; not created by the agent)"
	}
	return s
}

// Counters reports the binding's own counters: statement errors by kind and
// the session's retries and host events.
func (b *YCSBBinding) Counters() map[string]int64 {
	m := map[string]int64{"ycql_statement_errors": b.stmtErrors.Load()}
	for k := KindTimeout; k <= KindOther; k++ {
		m["ycql_errors_"+k.String()] = b.errKinds[k].Load()
	}
	b.mu.Lock()
	s := b.lastSess
	b.mu.Unlock()
	if s != nil {
		for k, v := range s.Stats() {
			m[k] = v
		}
	}
	return m
}

// fail counts a failed statement and logs the first few, then one in ten
// thousand, so that a failing run stays readable.
func (b *YCSBBinding) fail(what string, err error) {
	n := b.stmtErrors.Add(1)
	b.errKinds[Classify(err)].Add(1)
	if n <= 10 || n%10000 == 0 {
		b.log.Error("ycql: "+what, "err", err, "errors_so_far", n)
	}
}

// The summary records the DDL the binding ran.
var _ ycsb.DDLer = (*YCSBBinding)(nil)

// DDL is what the agent ran to create the keyspace and table, "" when it
// created none.
func (b *YCSBBinding) DDL() string { return strings.Join(b.ddl, "; ") }
