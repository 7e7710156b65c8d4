//go:build integration && !race

package ysql

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/bench/ycsb"
)

// fakeConn stands below the binding in pgx's place: it answers every
// statement at once without allocating, so that what a statement allocates
// in the test is the binding's and the workload's alone (pgx's own costs
// are not the agent's). It keeps the parameters' kinds to check that every
// statement got its key.
type fakeConn struct {
	rows     fakeRows
	calls    int
	withKeys int
}

func (f *fakeConn) note(args []any) {
	f.calls++
	for _, a := range args {
		if p, ok := a.(*string); ok && len(*p) > len("user") {
			f.withKeys++
			return
		}
	}
}

func (f *fakeConn) Query(_ context.Context, _ string, args ...any) (pgx.Rows, error) {
	f.note(args)
	f.rows.left = 1
	return &f.rows, nil
}

func (f *fakeConn) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	f.note(args)
	return pgconn.NewCommandTag("UPDATE 1"), nil
}

// fakeRows is a result of one row.
type fakeRows struct{ left int }

func (r *fakeRows) Close()                                       {}
func (r *fakeRows) Err() error                                   { return nil }
func (r *fakeRows) CommandTag() pgconn.CommandTag                { return pgconn.NewCommandTag("SELECT 1") }
func (r *fakeRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (r *fakeRows) Scan(...any) error                            { return nil }
func (r *fakeRows) Values() ([]any, error)                       { return nil, nil }
func (r *fakeRows) RawValues() [][]byte                          { return nil }
func (r *fakeRows) Conn() *pgx.Conn                              { return nil }
func (r *fakeRows) TypeMap() *pgtype.Map                         { return nil }
func (r *fakeRows) Next() bool {
	r.left--
	return r.left >= 0
}

// fakeBinding gives every worker a db on the fake connection.
type fakeBinding struct {
	b    *Binding
	conn *fakeConn
}

func (f fakeBinding) NewDB(context.Context, int, int) (ycsb.DB, error) {
	return &db{b: f.b, conns: []*shard{{stmts: f.conn}}}, nil
}

// TestIntegrationYSQLOperationsAllocateNothing: a YCSB operation through
// the workload, the YSQL binding and the recorder allocates nothing, for
// every kind of operation (reads and updates of A, scans and inserts of E,
// read-modify-writes of F, the load phase's inserts). The recorder's buffer
// grows a block of 1024 samples at a time and keeps its blocks from tick
// to tick in a run: amortised over the runs, its growth rounds to zero.
func TestIntegrationYSQLOperationsAllocateNothing(t *testing.T) {
	for _, c := range []struct {
		workload string
		load     bool
	}{{"workloada", false}, {"workloade", false}, {"workloadf", false}, {"workloada", true}} {
		name := c.workload
		if c.load {
			name += "/load"
		}
		t.Run(name, func(t *testing.T) {
			p := ycsb.NewProps()
			data, _ := ycsb.BuiltinWorkload(c.workload)
			if err := p.LoadFile(c.workload, data); err != nil {
				t.Fatal(err)
			}
			p.SetFlag("recordcount", "1000000", "-p")
			cfg, err := ycsb.ReadConfig(p)
			if err != nil {
				t.Fatal(err)
			}
			table := cfg.Table
			b := &Binding{cfg: &Config{AutoCommit: true, Table: table}, read: readSQL(table), scan: scanSQL(table, ""), del: deleteSQL(table)}
			conn := &fakeConn{}
			core, err := ycsb.NewCore(cfg, c.load, fakeBinding{b: b, conn: conn}, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			w, err := core.NewWorker(ctx, 0, bench.NewRecorder())
			if err != nil {
				t.Fatal(err)
			}
			do := func() {
				if err := w.Do(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for range 1000 { // the statement caches and buffers fill up
				do()
			}
			if got := testing.AllocsPerRun(20_000, do); got != 0 {
				t.Errorf("%v allocations per operation, want 0", got)
			}
			if conn.calls < 21_000 || conn.withKeys != conn.calls {
				t.Errorf("%d statements, %d with a key: the operations did not reach the connection", conn.calls, conn.withKeys)
			}
		})
	}
}

// BenchmarkYSQLWorkloadAFake is one workload A operation through the
// workload, the YSQL binding and the recorder, on the fake connection: the
// agent's own cost per statement, without pgx's and the server's.
func BenchmarkYSQLWorkloadAFake(b *testing.B) {
	p := ycsb.NewProps()
	data, _ := ycsb.BuiltinWorkload("workloada")
	p.LoadFile("workloada", data)
	p.SetFlag("recordcount", "1000000", "-p")
	cfg, err := ycsb.ReadConfig(p)
	if err != nil {
		b.Fatal(err)
	}
	table := cfg.Table
	bd := &Binding{cfg: &Config{AutoCommit: true, Table: table}, read: readSQL(table), scan: scanSQL(table, ""), del: deleteSQL(table)}
	core, err := ycsb.NewCore(cfg, false, fakeBinding{b: bd, conn: &fakeConn{}}, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	w, err := core.NewWorker(ctx, 0, bench.NewRecorder())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Do(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
