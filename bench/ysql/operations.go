package ysql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// Read reads one row by key, rerunning the statement on 40001/40P01 when
// ysql.retries allows; a read is a query, so it cannot go through exec.
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

// read is one attempt of Read; its error says whether to retry.
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

// Scan reads up to count rows from startKey on and returns how many came:
// the DB interface asks only for the count, so no value is copied.
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

// Update sets the given fields of one row; a count other than one row is
// UNEXPECTED_STATE, as in YCSB's JDBC binding.
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

// Insert adds one row at once or by one of the batching modes: queued for
// jdbc.batchupdateapi, held for ysql.load.batch, or committed every
// db.batchsize-th row with jdbc.autocommit=false.
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

// Delete removes one row; a count other than one row is UNEXPECTED_STATE,
// as in YCSB's JDBC binding.
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
