package sysbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// PrepareResult is what prepare (or the fork's create or load) did.
type PrepareResult struct {
	Plan *Plan
	// Statements counts the statements sent, Rows the rows inserted.
	Statements, Rows int64
}

// printer serialises the lines of the prepare threads.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) printf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, a...)
}

// Prepare creates and loads the tables as sysbench's prepare does: with
// --threads=T, thread i (0-based) handles tables i+1, i+1+T, …, each on its
// own connection (to host i mod n); rows are generated as sysbench generates
// them and sent in its multi-row INSERTs over the simple protocol. ddl and
// load select the fork's halves (create: DDL only; load: rows only).
func Prepare(ctx context.Context, out io.Writer, o *Options, plan *Plan, seed uint64, ddl, load bool) (*PrepareResult, error) {
	eps := endpoints(o)
	pr := &printer{w: out}
	res := &PrepareResult{Plan: plan}
	var stmts, rows atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, o.Threads)
	var wg sync.WaitGroup
	for tid := 0; tid < o.Threads && tid < int(o.Tables); tid++ {
		wg.Add(1)
		go func(tid int) {
			defer wg.Done()
			err := prepareThread(ctx, pr, o, plan, eps[tid%len(eps)], newRNG(seed, tid), tid, ddl, load, &stmts, &rows)
			if err != nil {
				errs[tid] = err
				cancel()
			}
		}(tid)
	}
	wg.Wait()
	res.Statements, res.Rows = stmts.Load(), rows.Load()
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			first = err
		}
	}
	return res, first
}

func prepareThread(ctx context.Context, pr *printer, o *Options, plan *Plan, ep endpoint, g *rng, tid int, ddl, load bool, stmts, rows *atomic.Int64) error {
	conn, err := connect(ctx, ep)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	d := newDist(o)
	exec := func(sql string) error {
		stmts.Add(1)
		if err := conn.Exec(ctx, sql).Close(); err != nil {
			return fmt.Errorf("%s: %w", firstLine(sql), err)
		}
		return nil
	}
	// The fork's prepare is its create then its load within each thread:
	// every table of the thread is created before the first is loaded.
	// 1.0.20 creates and loads table after table.
	passes := []int{passAll}
	if o.Mode == ModeFork {
		passes = []int{passDDL, passLoad}
	}
	for _, pass := range passes {
		if err := prepareTables(ctx, pr, o, plan, conn, d, g, tid, ddl && pass != passLoad, load && pass != passDDL, exec, stmts, rows); err != nil {
			return err
		}
	}
	return nil
}

// The passes of a prepare thread over its tables.
const (
	passAll = iota
	passDDL
	passLoad
)

// prepareTables runs thread tid's steps of its tables, the DDL when ddl,
// the loads when load.
func prepareTables(ctx context.Context, pr *printer, o *Options, plan *Plan, conn *pgconn.PgConn, d *dist, g *rng, tid int, ddl, load bool, exec func(string) error, stmts, rows *atomic.Int64) error {
	for t := tid + 1; t <= int(o.Tables); t += o.Threads {
		for _, st := range plan.Tables[t-1] {
			switch {
			case st.Load:
				if !load {
					continue
				}
				pr.printf("Inserting %d records into 'sbtest%d'\n", st.Rows, t)
				n, err := loadTable(ctx, conn, o, d, g, t, st.Rows, stmts)
				rows.Add(n)
				if err != nil {
					return fmt.Errorf("load sbtest%d: %w", t, err)
				}
			case !ddl:
			case strings.HasPrefix(st.SQL, "CREATE TABLE"):
				pr.printf("Creating table 'sbtest%d'...\n", t)
				if err := exec(st.SQL); err != nil {
					return err
				}
			case strings.HasPrefix(st.SQL, "ALTER SEQUENCE"):
				pr.printf("alter sequence with cache size: %d\n", o.SerialCacheSize)
				if err := exec(st.SQL); err != nil {
					return err
				}
			case strings.HasPrefix(st.SQL, "CREATE INDEX"):
				pr.printf("Creating a secondary index on 'sbtest%d'...\n", t)
				if err := exec(st.SQL); err != nil {
					return err
				}
			default:
				if err := exec(st.SQL); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// loadTable inserts rows 1..n of table t: k from the default distribution,
// c and pad from their templates, ids from the SERIAL or explicit.
func loadTable(ctx context.Context, conn *pgconn.PgConn, o *Options, d *dist, g *rng, t int, n int64, stmts *atomic.Int64) (int64, error) {
	var inserted int64
	b := newBulkInsert(t, o.AutoInc, func(sql []byte, rows int) error {
		stmts.Add(1)
		tag, err := conn.Exec(ctx, string(sql)).ReadAll()
		if err != nil {
			return err
		}
		if len(tag) == 1 {
			inserted += tag[0].CommandTag.RowsAffected()
		}
		return nil
	})
	c, pad := make([]byte, cLen), make([]byte, padLen)
	var row []byte
	for i := int64(1); i <= n; i++ {
		k := d.draw(g, 1, o.TableSize)
		g.randString(c)
		g.randString(pad)
		row = appendRow(row[:0], i, o.AutoInc, k, c, pad)
		if err := b.add(row); err != nil {
			return inserted, err
		}
	}
	err := b.done()
	return inserted, err
}

// Cleanup drops the tables sbtest1..N on one connection, as sysbench's
// cleanup does.
func Cleanup(ctx context.Context, out io.Writer, o *Options) error {
	ep := endpoints(o)[0]
	conn, err := connect(ctx, ep)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for t := 1; t <= int(o.Tables); t++ {
		fmt.Fprintf(out, "Dropping table 'sbtest%d'...\n", t)
		if err := conn.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS sbtest%d", t)).Close(); err != nil {
			return fmt.Errorf("drop sbtest%d on %s: %w", t, ep, err)
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
