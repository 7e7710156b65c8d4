package ysql

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// NewDB opens a worker's connections: one per endpoint (YCSB's shards),
// or, with ysql.hosts, one to the next endpoint in turn.
func (b *Binding) NewDB(ctx context.Context, _, _ int) (ycsb.DB, error) {
	eps := b.cfg.Endpoints
	if b.cfg.RoundRobin {
		i := b.rr.Add(1) - 1
		eps = []Endpoint{eps[int(i)%len(eps)]}
	}
	d := &db{b: b}
	for _, ep := range eps {
		c, err := b.connect(ctx, ep)
		if err != nil {
			d.close()
			return nil, err
		}
		d.conns = append(d.conns, &shard{conn: c, stmts: c})
	}
	// Statements run without a context watch each (pgx starts one per call
	// for a cancellable context, a tenth of the client's CPU on short
	// reads); instead, the worker's context, when cancelled, sets a past
	// deadline on every connection once, which fails the call in flight.
	d.watched = ctx
	d.unwatch = context.AfterFunc(ctx, func() {
		for _, s := range d.conns {
			s.conn.PgConn().Conn().SetDeadline(time.Unix(1, 0))
		}
	})
	return d, nil
}

// stmtCtx is the context statements run under: the worker's own context is
// watched once per connection (see NewDB), any other is passed through.
func (d *db) stmtCtx(ctx context.Context) context.Context {
	if ctx == d.watched {
		return context.Background()
	}
	return ctx
}

type shard struct {
	conn    *pgx.Conn
	stmts   querier    // conn as the autocommit statements see it
	tx      pgx.Tx     // open transaction when jdbc.autocommit=false
	batch   *pgx.Batch // queued inserts (jdbc.batchupdateapi)
	queued  int        // inserts queued in batch
	rows    [][]any    // rows held for ysql.load.batch
	inBatch int64      // inserts since the last commit (YCSB numRowsInBatch)
}

type db struct {
	b     *Binding
	conns []*shard
	buf   []byte
	args  []any
	// The parameters are passed by pointer to fields of the worker's own:
	// a pointer fits in an interface, where a string, a slice or a large
	// int would be copied to the heap on every statement. pgx encodes *T
	// exactly as T (same type, same bytes), so the statements do not change.
	key      string
	count    int
	vals     [][]byte
	keyArg   any       // &key
	countArg any       // &count
	valArgs  []any     // &vals[i]
	updates  stmtCache // SQL text per field list
	inserts  stmtCache
	// groupCols are the columns of ysql.load.batch's grouped inserts.
	groupCols []string
	watched   context.Context
	unwatch   func() bool
}

// shardFor routes a key as YCSB does: (hashCode & 0x7fffffff) % shards.
func (d *db) shardFor(key string) *shard {
	if len(d.conns) == 1 {
		return d.conns[0]
	}
	return d.conns[int(ycsb.JavaStringHash(key)&0x7fffffff)%len(d.conns)]
}

// q runs a statement on the shard's connection or its open transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func (d *db) q(ctx context.Context, s *shard) (querier, error) {
	if d.b.cfg.AutoCommit {
		return s.stmts, nil
	}
	if s.tx == nil {
		tx, err := s.conn.Begin(ctx)
		if err != nil {
			return nil, err
		}
		s.tx = tx
	}
	return s.tx, nil
}

// exec runs a statement, rerunning it on 40001/40P01 when ysql.retries allows.
func (d *db) exec(ctx context.Context, s *shard, sql string, args ...any) (pgconn.CommandTag, error) {
	for attempt := 0; ; attempt++ {
		q, err := d.q(ctx, s)
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		tag, err := q.Exec(ctx, sql, args...)
		if err == nil || attempt >= d.b.cfg.Retries || !retryable(err) {
			return tag, err
		}
		d.b.retried.Add(1)
	}
}

func (d *db) commit(ctx context.Context, s *shard) error {
	if s.tx == nil {
		return nil
	}
	err := s.tx.Commit(ctx)
	s.tx = nil
	return err
}

// Cleanup runs what is still queued, commits, and closes the connections.
func (d *db) Cleanup(ctx context.Context) error {
	var errs []error
	for _, s := range d.conns {
		if s.batch != nil && s.queued > 0 && d.b.cfg.BatchSize > 0 {
			if st := d.flushBatch(ctx, s, d.b.cfg.Table); st != ycsb.OK {
				errs = append(errs, errors.New("final batch failed"))
			}
		}
		if len(s.rows) > 0 {
			if st := d.flushGroup(ctx, s, d.b.cfg.Table); st != ycsb.OK {
				errs = append(errs, errors.New("final batch failed"))
			}
		}
		if err := d.commit(ctx, s); err != nil {
			errs = append(errs, err)
		}
	}
	d.close()
	return errors.Join(errs...)
}

func (d *db) close() {
	if d.unwatch != nil {
		d.unwatch()
	}
	for _, s := range d.conns {
		s.conn.Close(context.Background())
	}
}
