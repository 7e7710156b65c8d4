package ysql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// keyParam is the key as a statement parameter.
func (d *db) keyParam(key string) any {
	d.key = key
	if d.keyArg == nil {
		d.keyArg = &d.key
	}
	return d.keyArg
}

// countParam is a scan's row count as a statement parameter.
func (d *db) countParam(n int) any {
	d.count = n
	if d.countArg == nil {
		d.countArg = &d.count
	}
	return d.countArg
}

// materialize appends the values' bytes to the parameters.
func (d *db) materialize(vals []ycsb.Field) {
	d.buf = d.buf[:0]
	n := 0
	for _, f := range vals {
		n += f.Value.Len()
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, 0, n)
	}
	if len(d.vals) < len(vals) {
		d.vals = make([][]byte, len(vals))
		d.valArgs = make([]any, len(vals))
		for i := range d.vals {
			d.valArgs[i] = &d.vals[i]
		}
	}
	for i, f := range vals {
		start := len(d.buf)
		d.buf = f.Value.AppendTo(d.buf)
		d.vals[i] = d.buf[start:len(d.buf):len(d.buf)]
		d.args = append(d.args, d.valArgs[i])
	}
}

// ownArgs copies parameters for a statement that runs later (a queued
// batch): the worker's own fields change with the next statement.
func ownArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case *string:
			a = *v
		case *int:
			a = *v
		case *[]byte:
			a = append([]byte(nil), *v...)
		}
		out[i] = a
	}
	return out
}

func (d *db) Read(ctx context.Context, table, key string, fields []string, result map[string][]byte) ycsb.Status {
	ctx = d.stmtCtx(ctx)
	s := d.shardFor(key)
	for attempt := 0; ; attempt++ {
		st, err := d.read(ctx, s, key, fields, result)
		if err == nil {
			return st
		}
		if attempt >= d.b.cfg.Retries || !retryable(err) {
			d.b.logError("Error in processing read of table "+table, err)
			return ycsb.Error
		}
		d.b.retried.Add(1)
	}
}

func (d *db) read(ctx context.Context, s *shard, key string, fields []string, result map[string][]byte) (ycsb.Status, error) {
	q, err := d.q(ctx, s)
	if err != nil {
		return ycsb.Error, err
	}
	d.args = append(d.args[:0], d.keyParam(key)) // a reused slice: no variadic allocation
	rows, err := q.Query(ctx, d.b.read, d.args...)
	if err != nil {
		return ycsb.Error, err
	}
	defer rows.Close()
	if !rows.Next() {
		rows.Close()
		if err := rows.Err(); err != nil {
			return ycsb.Error, err
		}
		return ycsb.NotFound, nil
	}
	// YCSB copies values only when fields were named, each by
	// ResultSet.getString(name): PgJDBC finds the column whatever its
	// case, and a name not in the row throws, which the binding returns
	// as ERROR.
	if fields != nil && result != nil {
		fd := rows.FieldDescriptions()
		raw := rows.RawValues()
		for _, f := range fields {
			i := slices.IndexFunc(fd, func(c pgconn.FieldDescription) bool { return strings.EqualFold(c.Name, f) })
			if i < 0 {
				rows.Close()
				return ycsb.Error, fmt.Errorf("the column name %s was not found in this ResultSet", f)
			}
			result[f] = append([]byte(nil), raw[i]...)
		}
	}
	rows.Close()
	return ycsb.OK, rows.Err()
}

func (d *db) Scan(ctx context.Context, table, startKey string, count int, fields []string) (int, ycsb.Status) {
	ctx = d.stmtCtx(ctx)
	s := d.shardFor(startKey)
	q, err := d.q(ctx, s)
	if err != nil {
		d.b.logError("Error in processing scan of table: "+table, err)
		return 0, ycsb.Error
	}
	d.args = append(d.args[:0], d.keyParam(startKey), d.countParam(count))
	rows, err := q.Query(ctx, d.b.scan, d.args...)
	if err != nil {
		d.b.logError("Error in processing scan of table: "+table, err)
		return 0, ycsb.Error
	}
	n := 0
	for n < count && rows.Next() {
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		d.b.logError("Error in processing scan of table: "+table, err)
		return n, ycsb.Error
	}
	return n, ycsb.OK
}

func (d *db) Update(ctx context.Context, table, key string, vals []ycsb.Field) ycsb.Status {
	ctx = d.stmtCtx(ctx)
	sql := d.updates.get(vals, func(names []string) string { return updateSQL(table, names) })
	d.args = d.args[:0]
	d.materialize(vals)
	d.args = append(d.args, d.keyParam(key))
	tag, err := d.exec(ctx, d.shardFor(key), sql, d.args...)
	if err != nil {
		d.b.logError("Error in processing update to table: "+table, err)
		return ycsb.Error
	}
	if tag.RowsAffected() == 1 {
		return ycsb.OK
	}
	return ycsb.UnexpectedState
}

func (d *db) Insert(ctx context.Context, table, key string, vals []ycsb.Field) ycsb.Status {
	ctx = d.stmtCtx(ctx)
	sql := d.inserts.get(vals, func(names []string) string { return insertSQL(table, names, 1) })
	s := d.shardFor(key)
	cfg := d.b.cfg
	if cfg.LoadBatch != "" {
		return d.insertGrouped(ctx, s, table, vals, key)
	}
	d.args = append(d.args[:0], d.keyParam(key))
	d.materialize(vals)
	if cfg.BatchUpdateAPI {
		// jdbc.batchupdateapi: queue; execute every db.batchsize-th insert.
		if s.batch == nil {
			s.batch = &pgx.Batch{}
		}
		s.batch.Queue(sql, ownArgs(d.args)...)
		s.queued++
		s.inBatch++
		if cfg.BatchSize > 0 && s.inBatch%cfg.BatchSize == 0 {
			return d.flushBatch(ctx, s, table)
		}
		return ycsb.BatchedOK
	}
	tag, err := d.exec(ctx, s, sql, d.args...)
	if err != nil {
		d.b.logError("Error in processing insert to table: "+table, err)
		return ycsb.Error
	}
	if !cfg.AutoCommit {
		// YCSB commits every db.batchsize-th row (or every row) and
		// reports OK without checking the count.
		s.inBatch++
		if cfg.BatchSize <= 0 || s.inBatch%cfg.BatchSize == 0 {
			if err := d.commit(ctx, s); err != nil {
				d.b.logError("Error in processing insert to table: "+table, err)
				return ycsb.Error
			}
		}
		return ycsb.OK
	}
	if tag.RowsAffected() == 1 {
		return ycsb.OK
	}
	return ycsb.UnexpectedState
}

func (d *db) flushBatch(ctx context.Context, s *shard, table string) ycsb.Status {
	q, err := d.q(ctx, s)
	if err != nil {
		d.b.logError("Error in processing insert to table: "+table, err)
		return ycsb.Error
	}
	type sender interface {
		SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	}
	br := q.(sender).SendBatch(ctx, s.batch)
	st := ycsb.OK
	for i := 0; i < s.queued; i++ {
		tag, err := br.Exec()
		if err != nil {
			d.b.logError("Error in processing insert to table: "+table, err)
			st = ycsb.Error
			break
		}
		if tag.RowsAffected() != 1 {
			st = ycsb.Error
		}
	}
	if err := br.Close(); err != nil && st == ycsb.OK {
		d.b.logError("Error in processing insert to table: "+table, err)
		st = ycsb.Error
	}
	s.batch, s.queued = nil, 0
	if !d.b.cfg.AutoCommit {
		if err := d.commit(ctx, s); err != nil {
			return ycsb.Error
		}
	}
	return st
}

// insertGrouped is the ysql.load.batch extension: rows are held and sent
// every db.batchsize-th insert as one multi-row INSERT or one COPY.
func (d *db) insertGrouped(ctx context.Context, s *shard, table string, vals []ycsb.Field, key string) ycsb.Status {
	row := make([]any, 0, len(vals)+1)
	row = append(row, key)
	for _, f := range vals {
		row = append(row, f.Value.AppendTo(make([]byte, 0, f.Value.Len())))
	}
	if len(s.rows) == 0 {
		s.rows = make([][]any, 0, d.b.cfg.BatchSize)
		d.groupCols = append([]string{keyColumn}, fieldNames(vals)...)
	}
	s.rows = append(s.rows, row)
	if int64(len(s.rows)) < d.b.cfg.BatchSize {
		return ycsb.BatchedOK
	}
	return d.flushGroup(ctx, s, table)
}

func (d *db) flushGroup(ctx context.Context, s *shard, table string) ycsb.Status {
	if len(s.rows) == 0 {
		return ycsb.OK
	}
	defer func() { s.rows = s.rows[:0] }()
	var err error
	if d.b.cfg.LoadBatch == "copy" {
		var n int64
		n, err = s.conn.CopyFrom(ctx, pgx.Identifier{table}, d.groupCols, pgx.CopyFromRows(s.rows))
		if err == nil && n != int64(len(s.rows)) {
			err = fmt.Errorf("copied %d rows of %d", n, len(s.rows))
		}
	} else {
		sql := insertSQL(table, d.groupCols[1:], len(s.rows))
		args := make([]any, 0, len(s.rows)*len(d.groupCols))
		for _, r := range s.rows {
			args = append(args, r...)
		}
		var tag pgconn.CommandTag
		tag, err = d.exec(ctx, s, sql, args...)
		if err == nil && tag.RowsAffected() != int64(len(s.rows)) {
			err = fmt.Errorf("inserted %d rows of %d", tag.RowsAffected(), len(s.rows))
		}
	}
	if err != nil {
		d.b.logError("Error in processing batched insert to table: "+table, err)
		return ycsb.Error
	}
	return ycsb.OK
}

func (d *db) commit(ctx context.Context, s *shard) error {
	if s.tx == nil {
		return nil
	}
	err := s.tx.Commit(ctx)
	s.tx = nil
	return err
}

func (d *db) Delete(ctx context.Context, table, key string) ycsb.Status {
	ctx = d.stmtCtx(ctx)
	d.args = append(d.args[:0], d.keyParam(key))
	tag, err := d.exec(ctx, d.shardFor(key), d.b.del, d.args...)
	if err != nil {
		d.b.logError("Error in processing delete to table: "+table, err)
		return ycsb.Error
	}
	if tag.RowsAffected() == 1 {
		return ycsb.OK
	}
	return ycsb.UnexpectedState
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

// stmtCache maps a field list to its statement text without allocating
// on a hit: a worker sees few distinct lists (one per field for updates,
// one for inserts).
type stmtCache []struct {
	names []string
	sql   string
}

func (c *stmtCache) get(vals []ycsb.Field, build func([]string) string) string {
next:
	for _, e := range *c {
		if len(e.names) != len(vals) {
			continue
		}
		for i := range vals {
			if e.names[i] != vals[i].Name {
				continue next
			}
		}
		return e.sql
	}
	names := fieldNames(vals)
	sql := build(names)
	*c = append(*c, struct {
		names []string
		sql   string
	}{names, sql})
	return sql
}

func fieldNames(vals []ycsb.Field) []string {
	n := make([]string, len(vals))
	for i, f := range vals {
		n[i] = f.Name
	}
	return n
}
