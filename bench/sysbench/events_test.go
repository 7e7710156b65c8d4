package sysbench

import (
	"fmt"
	"strings"
	"testing"
)

// call is one statement the fake runner saw.
type call struct {
	k     kind
	table int
	args  []arg
	sql   string // simple-protocol statements
}

// fakeRunner records the statements and answers as a database whose rows
// all exist: SELECTs are reads, updates, deletes and inserts writes, BEGIN
// and COMMIT other.
type fakeRunner struct{ calls []call }

func (f *fakeRunner) exec(k kind, t int, args []arg) (class, error) {
	cp := make([]arg, len(args))
	for i, a := range args {
		cp[i] = arg{i: a.i, s: append([]byte(nil), a.s...)}
	}
	f.calls = append(f.calls, call{k: k, table: t, args: cp})
	switch k {
	case kBegin, kCommit:
		return classOther, nil
	case kIndexUpdate, kNonIndexUpdate, kDelete, kInsert, kInsertAutoinc:
		return classWrite, nil
	}
	return classRead, nil
}

func (f *fakeRunner) execSQL(sql []byte) (class, error) {
	f.calls = append(f.calls, call{k: kInsert, sql: string(sql)})
	return classWrite, nil
}

func runEvent(t *testing.T, wl string, args ...string) (*fakeRunner, tally) {
	t.Helper()
	o := parse(t, append([]string{wl, "run", "--tables=4", "--table-size=1000"}, args...)...)
	f := &fakeRunner{}
	var tl tally
	s := newScript(o, f, newRNG(5, 0), newDist(o), newUniqueSeq(5, 0, 1), &tl)
	if err := s.event(s); err != nil {
		t.Fatal(err)
	}
	return f, tl
}

// Spec §6.2: statements per event and the read/write/other split with the
// defaults, all rows present.
func TestEventCountsPerWorkload(t *testing.T) {
	for _, c := range []struct {
		wl                  string
		n, read, write, oth int64
	}{
		{"oltp_point_select", 1, 1, 0, 0},
		{"oltp_read_only", 16, 14, 0, 2},
		{"oltp_read_write", 20, 14, 4, 2},
		{"oltp_write_only", 6, 0, 4, 2},
		{"oltp_insert", 1, 0, 1, 0},
		{"oltp_update_index", 1, 0, 1, 0},
		{"oltp_update_non_index", 1, 0, 1, 0},
		{"oltp_delete", 1, 0, 1, 0},
	} {
		f, tl := runEvent(t, c.wl)
		if int64(len(f.calls)) != c.n || tl.reads != c.read || tl.writes != c.write || tl.other != c.oth {
			t.Errorf("%s: %d statements, r/w/o %d/%d/%d; want %d, %d/%d/%d", c.wl, len(f.calls), tl.reads, tl.writes, tl.other, c.n, c.read, c.write, c.oth)
		}
	}
}

// The general formula of spec §6.2 with the YugabyteDB documents' flags:
// 34 statements per oltp_read_write event.
func TestEventCountsWithDocumentFlags(t *testing.T) {
	f, _ := runEvent(t, "oltp_read_write", "--point_selects=10", "--index_updates=10", "--non_index_updates=10", "--range_selects=false")
	if len(f.calls) != 34 {
		t.Errorf("%d statements, want 34", len(f.calls))
	}
	f, _ = runEvent(t, "oltp_read_only", "--skip_trx=on", "--point_selects=3", "--simple_ranges=2")
	if len(f.calls) != 3+2+1+1+1 || f.calls[0].k != kPointSelect {
		t.Errorf("skip_trx read_only: %d statements starting with %v", len(f.calls), f.calls[0].k)
	}
	f, _ = runEvent(t, "oltp_point_select", "--point_selects=7")
	if len(f.calls) != 1 {
		t.Errorf("oltp_point_select ran %d statements: --point_selects must not apply", len(f.calls))
	}
}

// The order of oltp_read_write, one table per statement group, the same id
// deleted and re-inserted, ranges id..id+range_size−1, strings of the
// templates.
func TestReadWriteSequence(t *testing.T) {
	f, _ := runEvent(t, "oltp_read_write", "--range_size=50")
	var kinds []string
	for _, c := range f.calls {
		kinds = append(kinds, stmtDefs[c.k].key)
	}
	want := "begin " + strings.Repeat("point_selects ", 10) +
		"simple_ranges sum_ranges order_ranges distinct_ranges index_updates non_index_updates deletes inserts commit"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("sequence\n%s\nwant\n%s", got, want)
	}
	for i := 2; i <= 10; i++ {
		if f.calls[i].table != f.calls[1].table {
			t.Errorf("point select %d on table %d, the first on %d: one table per group", i, f.calls[i].table, f.calls[1].table)
		}
	}
	for _, c := range f.calls[1:15] {
		if c.table < 1 || c.table > 4 || c.args[0].i < 1 || c.args[0].i > 1000 {
			t.Errorf("%s: table %d id %d out of range", stmtDefs[c.k].key, c.table, c.args[0].i)
		}
	}
	r := f.calls[11]
	if r.args[1].i != r.args[0].i+49 {
		t.Errorf("range %d..%d, want a width of 50", r.args[0].i, r.args[1].i)
	}
	del, ins := f.calls[17], f.calls[18]
	if del.table != ins.table || del.args[0].i != ins.args[0].i {
		t.Errorf("delete %d/%d and insert %d/%d differ", del.table, del.args[0].i, ins.table, ins.args[0].i)
	}
	if len(ins.args[2].s) != cLen || len(ins.args[3].s) != padLen || len(f.calls[16].args[0].s) != cLen {
		t.Error("c/pad of the wrong length")
	}
}

func TestInsertStatement(t *testing.T) {
	f, _ := runEvent(t, "oltp_insert")
	sql := f.calls[0].sql
	var tb, k int
	if n, _ := fmt.Sscanf(sql, "INSERT INTO sbtest%d (k, c, pad) VALUES (%d,", &tb, &k); n != 2 || tb < 1 || tb > 4 || k < 1 || k > 1000 {
		t.Errorf("auto_inc insert %q", sql)
	}
	if !strings.HasSuffix(sql, "')") || strings.Count(sql, "'") != 4 {
		t.Errorf("auto_inc insert %q", sql)
	}
	f, _ = runEvent(t, "oltp_insert", "--auto_inc=off")
	var id int64
	if n, _ := fmt.Sscanf(f.calls[0].sql, "INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d,", &tb, &id, &k); n != 3 {
		t.Errorf("explicit-id insert %q", f.calls[0].sql)
	}
}
