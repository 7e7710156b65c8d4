package sysbench

import (
	"fmt"
	"strconv"
	"strings"
)

// Step is one step of prepare for one table: a statement, or the bulk load
// of the table's rows.
type Step struct {
	// SQL is the statement ("" for the load step).
	SQL string
	// Rows is the number of rows the load step inserts (Load only).
	Rows int64
	// Load marks the bulk load.
	Load bool
}

// String renders a step for logs and golden files.
func (s Step) String() string {
	if s.Load {
		return fmt.Sprintf("-- bulk load: %d rows", s.Rows)
	}
	return s.SQL
}

// Plan is what prepare does to every table, and what it left out.
type Plan struct {
	// Tables holds, per table (index 0 is sbtest1), the steps in order.
	Tables [][]Step
	// Dropped names the parts of the fork's DDL left out because the server
	// is PostgreSQL, not YugabyteDB (ASC in the key, SPLIT AT VALUES).
	Dropped []string
}

// SplitClause is the fork's split clause for range-partitioned tables:
// SPLIT AT VALUES((v1),…,(v_{S−1})) with v_i = trunc(table_size / S · i),
// in floating point as the fork's Lua computes it (spec §3.7).
func SplitClause(tableSize, splits int64) string {
	var b strings.Builder
	b.WriteString("SPLIT AT VALUES(")
	for i := int64(1); i < splits; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		v := float64(tableSize) / float64(splits) * float64(i)
		fmt.Fprintf(&b, "(%d)", int64(v))
	}
	b.WriteByte(')')
	return b.String()
}

// rowsToLoad is the number of rows prepare loads per table: oltp_insert
// with auto_inc off creates the tables empty so its run-time ids cannot
// collide with loaded ones (spec §3.6).
func rowsToLoad(o *Options) int64 {
	if o.Workload == "oltp_insert" && !o.AutoInc {
		return 0
	}
	return o.TableSize
}

// PreparePlan returns the DDL and load steps of every table in the order
// the chosen sysbench sends them (spec §3.1, §3.2, §3.7):
//
//   - 1.0.20: CREATE TABLE, bulk load, CREATE INDEX.
//   - the fork: CREATE TABLE (with ASC and the split clause when
//     range_key_partitioning), ALTER SEQUENCE … cache (auto_inc and a cache
//     size), CREATE INDEX, bulk load.
//
// On PostgreSQL (yugabyte false) the fork's sequence is kept but ASC and
// SPLIT AT, which PostgreSQL rejects, are left out and named in Dropped.
// The fork applies the split clause only to the tables created by the
// thread that created sbtest1; ybload applies it to every table (spec §3.7).
func PreparePlan(o *Options, yugabyte bool) *Plan {
	p := &Plan{}
	idDef := "SERIAL"
	if !o.AutoInc {
		idDef = "INTEGER NOT NULL"
	}
	order := "" // 1.0.20: "(id)"
	options := ""
	rows := rowsToLoad(o)
	if o.Mode == ModeFork {
		order = " " // the fork always writes a space before its optional ASC
		options = o.CreateTableOptions
		if o.RangeKeyPartitioning {
			if yugabyte {
				order = " ASC"
			} else {
				p.Dropped = append(p.Dropped, "ASC in PRIMARY KEY (id ASC)")
			}
			if o.ManualRangeSplitting {
				// The fork computes the clause from the table size its
				// prepare loads (0 for oltp_insert without auto_inc) and
				// prepends it to create_table_options with no space.
				split := SplitClause(rows, o.NumTableSplits)
				if yugabyte {
					options = split + options
				} else {
					p.Dropped = append(p.Dropped, fmt.Sprintf("%s (%d tablets)", split, o.NumTableSplits))
				}
			}
		}
	}
	for t := 1; t <= int(o.Tables); t++ {
		create := fmt.Sprintf("CREATE TABLE sbtest%d(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id%s)\n) %s %s",
			t, idDef, order, "", options)
		index := fmt.Sprintf("CREATE INDEX k_%d ON sbtest%d(k)", t, t)
		load := Step{Load: true, Rows: rows}
		steps := []Step{{SQL: create}}
		if o.Mode == Mode1020 {
			steps = append(steps, load)
			if o.CreateSecondary {
				steps = append(steps, Step{SQL: index})
			}
		} else {
			if o.AutoInc && o.SerialCacheSize > 0 {
				steps = append(steps, Step{SQL: fmt.Sprintf("ALTER SEQUENCE sbtest%d_id_seq cache %d", t, o.SerialCacheSize)})
			}
			if o.CreateSecondary {
				steps = append(steps, Step{SQL: index})
			}
			steps = append(steps, load)
		}
		p.Tables = append(p.Tables, steps)
	}
	return p
}

// bulkMax is the size of sysbench's bulk insert buffer, prefix included
// (src/db_driver.c BULK_PACKET_SIZE, spec §3.4).
const bulkMax = 524288

// bulkInsert builds sysbench's multi-row INSERTs: rows appended to
// "INSERT INTO sbtestN(k, c, pad) VALUES" joined by ",", a new statement
// whenever the next row and its separator (and the C string's terminator)
// would not fit in bulkMax bytes.
type bulkInsert struct {
	prefix []byte
	buf    []byte
	rows   int
	flush  func(sql []byte, rows int) error
}

func newBulkInsert(table int, autoInc bool, flush func(sql []byte, rows int) error) *bulkInsert {
	cols := "id, k, c, pad"
	if autoInc {
		cols = "k, c, pad"
	}
	b := &bulkInsert{prefix: []byte(fmt.Sprintf("INSERT INTO sbtest%d(%s) VALUES", table, cols)), flush: flush}
	b.buf = append(make([]byte, 0, bulkMax), b.prefix...)
	return b
}

// add appends one row tuple such as (123, '…', '…').
func (b *bulkInsert) add(tuple []byte) error {
	sep := 0
	if b.rows > 0 {
		sep = 1
	}
	if b.rows > 0 && len(b.buf)+sep+len(tuple)+1 > bulkMax {
		if err := b.done(); err != nil {
			return err
		}
		sep = 0
	}
	if sep == 1 {
		b.buf = append(b.buf, ',')
	}
	b.buf = append(b.buf, tuple...)
	b.rows++
	return nil
}

// done sends what is buffered.
func (b *bulkInsert) done() error {
	if b.rows == 0 {
		return nil
	}
	err := b.flush(b.buf, b.rows)
	b.buf = append(b.buf[:0], b.prefix...)
	b.rows = 0
	return err
}

// appendRow appends one row literal of the bulk load: (k, 'c', 'pad') with
// auto_inc, else (id, k, 'c', 'pad') (spec §3.3).
func appendRow(dst []byte, id int64, autoInc bool, k int64, c, pad []byte) []byte {
	dst = append(dst, '(')
	if !autoInc {
		dst = strconv.AppendInt(dst, id, 10)
		dst = append(dst, ", "...)
	}
	dst = strconv.AppendInt(dst, k, 10)
	dst = append(dst, ", '"...)
	dst = append(dst, c...)
	dst = append(dst, "', '"...)
	dst = append(dst, pad...)
	return append(dst, "')"...)
}
