//go:build integration

package sysbench

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// tableState is what a workload may change in the tables.
type tableState struct {
	rows, sumK, ids int64
	digest          string // md5 over (id, k, c, pad) in id order
}

func state(t *testing.T, d *testDB, tables int) tableState {
	t.Helper()
	var s tableState
	var parts []string
	for i := 1; i <= tables; i++ {
		tb := "sbtest" + strconv.Itoa(i)
		s.rows += d.int(t, "SELECT count(*) FROM "+tb)
		s.sumK += d.int(t, "SELECT sum(k) FROM "+tb)
		s.ids += d.int(t, "SELECT count(DISTINCT id) FROM "+tb)
		var md5 string
		if err := d.conn.QueryRow(context.Background(), "SELECT coalesce(md5(string_agg(id||':'||k||':'||c||':'||pad, ',' ORDER BY id)), '') FROM "+tb).Scan(&md5); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, md5)
	}
	s.digest = strings.Join(parts, ",")
	return s
}

// Every workload, fixed number of events (--events=N --time=0): the report's
// read/write/other counts against spec §6.2's per-event table, and the
// tables afterwards against what the workload must have done.
func TestIntegrationWorkloadsFixedEvents(t *testing.T) {
	const tables, size = 2, 1000
	for _, mode := range []string{"yb", "1.0.20"} {
		t.Run(mode, func(t *testing.T) {
			d := newTestDB(t)
			common := []string{"--tables=" + strconv.Itoa(tables), "--table-size=" + strconv.Itoa(size), "--compat=" + mode}
			prep := d.must(t, append([]string{"oltp_read_write", "prepare"}, common...)...)
			if !strings.Contains(prep.stdout, "Inserting 1000 records into 'sbtest2'") {
				t.Errorf("prepare output:\n%s", prep.stdout)
			}
			for _, c := range []struct {
				wl                 string
				threads            int
				n                  int64
				read, write, other int64 // per event
				check              func(t *testing.T, before, after tableState, n int64, r *result)
			}{
				{"oltp_point_select", 4, 300, 1, 0, 0, unchanged},
				{"oltp_read_only", 4, 100, 14, 0, 2, unchanged},
				// One thread: concurrent delete/insert pairs on the same id
				// turn writes into "other" and retries (spec §12 #18).
				{"oltp_read_write", 1, 100, 14, 4, 2, sameRows},
				{"oltp_write_only", 1, 100, 0, 4, 2, sameRows},
				{"oltp_update_index", 4, 300, 0, 1, 0, func(t *testing.T, b, a tableState, n int64, _ *result) {
					if a.rows != b.rows || a.sumK != b.sumK+n {
						t.Errorf("sum(k) %d → %d after %d index updates", b.sumK, a.sumK, n)
					}
				}},
				{"oltp_update_non_index", 4, 300, 0, 1, 0, func(t *testing.T, b, a tableState, n int64, _ *result) {
					if a.rows != b.rows || a.sumK != b.sumK || a.digest == b.digest {
						t.Errorf("non-index updates: rows %d → %d, sum(k) %d → %d, c unchanged: %v", b.rows, a.rows, b.sumK, a.sumK, a.digest == b.digest)
					}
				}},
				{"oltp_insert", 4, 300, 0, 1, 0, func(t *testing.T, b, a tableState, n int64, _ *result) {
					if a.rows != b.rows+n || a.ids != a.rows {
						t.Errorf("rows %d → %d (%d distinct ids) after %d inserts", b.rows, a.rows, a.ids, n)
					}
				}},
				// Deletes: the first of each id writes, a repeat is "other".
				{"oltp_delete", 4, 300, -1, -1, -1, func(t *testing.T, b, a tableState, n int64, r *result) {
					ev, _, w, o, _ := r.counts(t)
					if w != b.rows-a.rows || w+o != ev || w == 0 {
						t.Errorf("deletes: %d writes, %d other, rows %d → %d", w, o, b.rows, a.rows)
					}
				}},
			} {
				t.Run(c.wl, func(t *testing.T) {
					before := state(t, d, tables)
					r := d.must(t, append([]string{c.wl, "run", "--events=" + strconv.FormatInt(c.n, 10), "--time=0",
						"--threads=" + strconv.Itoa(c.threads)}, common...)...)
					ev, read, write, other, errs := r.counts(t)
					if ev != c.n || errs != 0 {
						t.Fatalf("%d transactions, %d ignored errors; want %d and 0\n%s", ev, errs, c.n, r.stdout)
					}
					if c.read >= 0 && (read != c.read*c.n || write != c.write*c.n || other != c.other*c.n) {
						t.Errorf("r/w/o %d/%d/%d, want %d/%d/%d", read, write, other, c.read*c.n, c.write*c.n, c.other*c.n)
					}
					if r.num(t, "total:") != read+write+other {
						t.Error("total is not read+write+other")
					}
					if r.summary.HDR == nil || r.summary.HDR.Count != c.n || r.summary.Sysbench.Events != c.n {
						t.Errorf("summary: %+v %+v", r.summary.HDR, r.summary.Sysbench)
					}
					c.check(t, before, state(t, d, tables), c.n, r)
				})
			}
			d.must(t, append([]string{"oltp_read_write", "cleanup"}, common...)...)
			if n := d.int(t, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"); n != 0 {
				t.Errorf("cleanup left %d tables", n)
			}
		})
	}
}

func unchanged(t *testing.T, b, a tableState, _ int64, _ *result) {
	if a != b {
		t.Errorf("a read-only workload changed the tables: %+v → %+v", b, a)
	}
}

// sameRows: each delete is followed by the insert of the same id, so the
// tables keep their rows and ids while k changes.
func sameRows(t *testing.T, b, a tableState, _ int64, _ *result) {
	if a.rows != b.rows || a.ids != b.ids || a.digest == b.digest {
		t.Errorf("rows %d → %d, ids %d → %d, changed: %v", b.rows, a.rows, b.ids, a.ids, a.digest != b.digest)
	}
}

// Spec §13.9: oltp_delete on a 100-row table with more events than rows:
// 100 writes, everything else "other", the table empty. Only counting by
// result shape (rows affected) passes.
func TestIntegrationDeleteVector(t *testing.T) {
	d := newTestDB(t)
	d.must(t, "oltp_delete", "prepare", "--tables=1", "--table-size=100")
	r := d.must(t, "oltp_delete", "run", "--tables=1", "--table-size=100", "--events=3000", "--time=0", "--threads=2")
	ev, read, write, other, _ := r.counts(t)
	left := d.int(t, "SELECT count(*) FROM sbtest1")
	// 3000 uniform draws over 100 ids miss one with probability 100·0.99^3000 ≈ 1e-11.
	if ev != 3000 || read != 0 || write != 100 || other != 2900 || left != 0 {
		t.Errorf("%d events: r/w/o %d/%d/%d, %d rows left; want 3000: 0/100/2900, 0 left", ev, read, write, other, left)
	}
}

// oltp_insert without auto_inc: prepare creates empty tables, ids come from
// unique() over the int32 range.
func TestIntegrationInsertExplicitIDs(t *testing.T) {
	d := newTestDB(t)
	d.must(t, "oltp_insert", "prepare", "--auto_inc=off", "--tables=2")
	if n := d.int(t, "SELECT count(*) FROM sbtest1") + d.int(t, "SELECT count(*) FROM sbtest2"); n != 0 {
		t.Fatalf("prepare loaded %d rows, want none", n)
	}
	r := d.must(t, "oltp_insert", "run", "--auto_inc=off", "--tables=2", "--events=500", "--time=0", "--threads=3")
	if _, _, w, _, _ := r.counts(t); w != 500 {
		t.Errorf("%d writes, want 500", w)
	}
	rows := d.int(t, "SELECT count(*) FROM (SELECT id FROM sbtest1 UNION ALL SELECT id FROM sbtest2) x")
	neg := d.int(t, "SELECT count(*) FROM (SELECT id FROM sbtest1 UNION ALL SELECT id FROM sbtest2) x WHERE id < 0")
	if rows != 500 || neg == 0 || neg == 500 {
		t.Errorf("%d rows, %d with negative ids: want 500 spread over the int32 range", rows, neg)
	}
}

// prepare on PostgreSQL: the fork's sequence cache and index, its range
// options reported as dropped; 1.0.20's plain DDL; rows as sysbench makes them.
func TestIntegrationPrepare(t *testing.T) {
	d := newTestDB(t)
	r := d.must(t, "oltp_read_write", "prepare", "--tables=2", "--table-size=3000", "--range_key_partitioning=true", "--threads=2")
	if !strings.Contains(r.stdout, "without what PostgreSQL rejects: ASC in PRIMARY KEY (id ASC); SPLIT AT VALUES((125),") ||
		len(r.summary.Dropped) != 2 || len(r.summary.DDL) != 2 || r.summary.Rows != 6000 {
		t.Errorf("the dropped DDL is not named:\n%s\n%+v", r.stdout, r.summary)
	}
	for _, q := range []struct {
		sql  string
		want int64
	}{
		{"SELECT cache_size FROM pg_sequences WHERE sequencename = 'sbtest2_id_seq'", 1000},
		{"SELECT count(*) FROM pg_indexes WHERE indexname IN ('k_1', 'k_2')", 2},
		{"SELECT count(*) FROM sbtest1 WHERE c::text ~ '^[0-9]{11}(-[0-9]{11}){9}$' AND pad::text ~ '^[0-9]{11}(-[0-9]{11}){4}$'", 3000},
		{"SELECT count(*) FROM sbtest2 WHERE k BETWEEN 1 AND 3000", 3000},
		{"SELECT max(id) - min(id) + 1 FROM sbtest2", 3000},
		{"SELECT count(DISTINCT k) FROM sbtest1", -1},
	} {
		got := d.int(t, q.sql)
		if q.want >= 0 && got != q.want {
			t.Errorf("%s = %d, want %d", q.sql, got, q.want)
		}
		if q.want < 0 && got < 1500 { // uniform k over 3000 values: ≈1900 distinct
			t.Errorf("%s = %d: k is not uniform", q.sql, got)
		}
	}
	d.must(t, "oltp_read_write", "cleanup", "--tables=2")
	d.must(t, "oltp_read_write", "prepare", "--tables=1", "--table-size=3000", "--compat=1.0.20")
	if n := d.int(t, "SELECT cache_size FROM pg_sequences WHERE sequencename = 'sbtest1_id_seq'"); n != 1 {
		t.Errorf("1.0.20 sequence cache %d, want 1", n)
	}
	// 1.0.20's special k: concentrated in the middle (spec §3.3).
	if n := d.int(t, "SELECT count(*) FROM sbtest1 WHERE k BETWEEN 1400 AND 1600"); n < 2000 {
		t.Errorf("1.0.20 k values: only %d of 3000 near the middle", n)
	}
	r = d.sb(t, context.Background(), "oltp_read_write", "prepare", "--tables=1", "--compat=1.0.20")
	if r.code != 5 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("preparing existing tables: exit %d, %s", r.code, r.stderr)
	}
}
