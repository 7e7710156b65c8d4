package ycql

import (
	"context"
	"unsafe"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycsb"
)

// ycsbDB is one worker's side of the shared session: statement texts and
// reusable buffers, so that an operation allocates little beyond what the
// driver needs.
type ycsbDB struct {
	b     *YCSBBinding
	s     *gocql.Session
	retry *RetryPolicy // this worker's: its statements' retry counts
	// reuse is the partition-aware pick's state for the statements that
	// return one page at most (all but Scan, which may page).
	reuse PickReuse

	key   textArg
	limit intArg
	vals  []bytesArg // one per field of the statement in hand
	args  []interface{}
	buf   []byte // the values' bytes
	cols  [][]byte
	dest  []interface{}
	names []string
	cache map[string]string // statement text by kind and field list
	ck    []byte            // cache key being built
	done  bool
}

func newYCSBDB(b *YCSBBinding, s *Session) *ycsbDB {
	return &ycsbDB{b: b, s: s.S, retry: s.StatementRetry(), cache: map[string]string{}}
}

// textArg, bytesArg and intArg bind values without boxing a copy per call:
// the worker owns them and the driver reads them while it encodes the frame.
type textArg struct{ s string }

// MarshalCQL returns the text's bytes without a copy.
func (a *textArg) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	// The driver only reads the bytes, while the call is in progress.
	return unsafe.Slice(unsafe.StringData(a.s), len(a.s)), nil
}

type bytesArg struct{ b []byte }

// MarshalCQL returns the bytes as they are.
func (a *bytesArg) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return a.b, nil }

type intArg struct{ n int32 }

// MarshalCQL encodes the number as the column's type.
func (a *intArg) MarshalCQL(info gocql.TypeInfo) ([]byte, error) { return gocql.Marshal(info, a.n) }

// stmt returns the cached text of a statement kind over fields.
func (d *ycsbDB) stmt(kind byte, table string, fields []string, build func(string, []string) string) string {
	d.ck = append(d.ck[:0], kind)
	d.ck = append(d.ck, table...)
	if fields == nil {
		d.ck = append(d.ck, 0, '*')
	}
	for _, f := range fields {
		d.ck = append(d.ck, 0)
		d.ck = append(d.ck, f...)
	}
	if s, ok := d.cache[string(d.ck)]; ok {
		return s
	}
	s := build(table, fields)
	d.cache[string(d.ck)] = s
	return s
}

// bindValues materializes the values into the worker's buffer and binds
// them, with the key first (insert) or last (update).
func (d *ycsbDB) bindValues(key string, vals []ycsb.Field, keyFirst bool) []interface{} {
	d.buf = d.buf[:0]
	ends := make([]int, 0, 16)
	for _, f := range vals {
		d.buf = f.Value.AppendTo(d.buf)
		ends = append(ends, len(d.buf))
	}
	for len(d.vals) < len(vals) {
		d.vals = append(d.vals, bytesArg{})
	}
	d.key.s = key
	d.args = d.args[:0]
	if keyFirst {
		d.args = append(d.args, &d.key)
	}
	start := 0
	for i, end := range ends {
		d.vals[i].b = d.buf[start:end]
		d.args = append(d.args, &d.vals[i])
		start = end
	}
	if !keyFirst {
		d.args = append(d.args, &d.key)
	}
	return d.args
}

func (d *ycsbDB) query(ctx context.Context, stmt string, cl gocql.Consistency, args ...interface{}) *gocql.Query {
	return d.s.Query(stmt, args...).Consistency(cl).WithContext(ctx).RetryPolicy(d.retry)
}

// scanRow reads the iterator's next row into the worker's buffers.
func (d *ycsbDB) scanRow(iter *gocql.Iter) bool {
	n := len(iter.Columns())
	for len(d.cols) < n {
		d.cols = append(d.cols, nil)
	}
	d.dest = d.dest[:0]
	for i := 0; i < n; i++ {
		d.dest = append(d.dest, &d.cols[i])
	}
	return iter.Scan(d.dest...)
}

// Read reads one record: SELECT * (or the fields) … WHERE y_id = ? LIMIT 1.
// Every returned column is copied into result when one is given.
func (d *ycsbDB) Read(ctx context.Context, table, key string, fields []string, result map[string][]byte) ycsb.Status {
	d.key.s = key
	iter := d.query(d.reuse.Arm(ctx), d.stmt('r', table, fields, readCQL), d.b.readCL, &d.key).Iter()
	found := d.scanRow(iter)
	if err := iter.Close(); err != nil {
		d.b.fail("read", err)
		return ycsb.Error
	}
	if !found {
		return ycsb.NotFound
	}
	if result != nil {
		for i, c := range iter.Columns() {
			result[c.Name] = append([]byte(nil), d.cols[i]...)
		}
	}
	return ycsb.OK
}

// Scan reads up to count rows in token order from the key's token:
// SELECT … WHERE token(y_id) >= token(?) LIMIT ?.
func (d *ycsbDB) Scan(ctx context.Context, table, startKey string, count int, fields []string) (int, ycsb.Status) {
	d.key.s = startKey
	d.limit.n = int32(count)
	iter := d.query(ctx, d.stmt('s', table, fields, scanCQL), d.b.readCL, &d.key, &d.limit).Iter()
	rows := 0
	for d.scanRow(iter) {
		rows++
	}
	if err := iter.Close(); err != nil {
		d.b.fail("scan", err)
		return rows, ycsb.Error
	}
	return rows, ycsb.OK
}

// Update writes the given fields: UPDATE … SET f = ? … WHERE y_id = ?.
func (d *ycsbDB) Update(ctx context.Context, table, key string, values []ycsb.Field) ycsb.Status {
	stmt := d.stmt('u', table, fieldNames(d, values), updateCQL)
	if err := d.query(d.reuse.Arm(ctx), stmt, d.b.writeCL, d.bindValues(key, values, false)...).Exec(); err != nil {
		d.b.fail("update", err)
		return ycsb.Error
	}
	return ycsb.OK
}

// Insert writes a record: INSERT … (y_id, fields…) VALUES (?, …), in the
// values' order (Java HashMap order for YCSB's ten fields).
func (d *ycsbDB) Insert(ctx context.Context, table, key string, values []ycsb.Field) ycsb.Status {
	stmt := d.stmt('i', table, fieldNames(d, values), insertCQL)
	if err := d.query(d.reuse.Arm(ctx), stmt, d.b.writeCL, d.bindValues(key, values, true)...).Exec(); err != nil {
		d.b.fail("insert", err)
		return ycsb.Error
	}
	return ycsb.OK
}

// Delete removes a record: DELETE … WHERE y_id = ?.
func (d *ycsbDB) Delete(ctx context.Context, table, key string) ycsb.Status {
	d.key.s = key
	if err := d.query(d.reuse.Arm(ctx), d.stmt('d', table, nil, func(t string, _ []string) string { return deleteCQL(t) }), d.b.writeCL, &d.key).Exec(); err != nil {
		d.b.fail("delete", err)
		return ycsb.Error
	}
	return ycsb.OK
}

// Cleanup releases the worker's reference to the shared session; the last
// worker's cleanup closes it (and is timed as CLEANUP, as in YCSB).
func (d *ycsbDB) Cleanup(context.Context) error {
	if !d.done {
		d.done = true
		d.b.release()
	}
	return nil
}

// fieldNames lists the values' names in a reused slice.
func fieldNames(d *ycsbDB, values []ycsb.Field) []string {
	d.names = d.names[:0]
	for _, v := range values {
		d.names = append(d.names, v.Name)
	}
	return d.names
}
