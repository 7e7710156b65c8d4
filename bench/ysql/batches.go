package ysql

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// flushBatch sends the inserts jdbc.batchupdateapi queued as one pgx batch
// and commits when autocommit is off; a statement that did not insert
// exactly one row fails the batch.
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

// flushGroup sends the rows insertGrouped held as one multi-row INSERT or
// one COPY, checking that every row arrived.
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
