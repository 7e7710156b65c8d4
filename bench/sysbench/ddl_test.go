package sysbench

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

func renderPlan(p *Plan) string {
	var b strings.Builder
	for i, steps := range p.Tables {
		fmt.Fprintf(&b, "-- table %d\n", i+1)
		for _, s := range steps {
			b.WriteString(s.String() + ";\n")
		}
	}
	for _, d := range p.Dropped {
		fmt.Fprintf(&b, "-- dropped on PostgreSQL: %s\n", d)
	}
	return b.String()
}

// Golden DDL lists of prepare per mode and server: statement texts and
// order (the fork: sequence cache and index before the load; 1.0.20: index
// after it), the split clause on every table.
func TestPreparePlanGolden(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []string
		yugabyte bool
	}{
		{"fork_yugabyte_range", []string{"--range_key_partitioning=true", "--table-size=100000"}, true},
		{"fork_yugabyte_hash", nil, true},
		{"fork_postgres_range", []string{"--range_key_partitioning=true", "--table-size=100000"}, false},
		{"fork_yugabyte_options_noautoinc", []string{"--range_key_partitioning=true", "--create_table_options=COLOCATION = false", "--auto_inc=off", "--create_secondary=off"}, true},
		{"fork_yugabyte_insert_noautoinc", []string{"--range_key_partitioning=true", "--auto_inc=off", "--num_table_splits=4", "--create_table_options=COLOCATION = false"}, true},
		{"1.0.20", []string{"--compat=1.0.20"}, false},
		{"1.0.20_noautoinc", []string{"--compat=1.0.20", "--auto_inc=off"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			workload := "oltp_read_write"
			if strings.Contains(c.name, "insert") {
				workload = "oltp_insert"
			}
			o := parse(t, append([]string{workload, "prepare", "--tables=2"}, c.args...)...)
			golden.Check(t, "ddl_"+c.name+".sql", []byte(renderPlan(PreparePlan(o, c.yugabyte))))
		})
	}
}

// Spec §3.1: the clause for table_size 100000 and 24 splits.
func TestSplitClauseMatchesSpec(t *testing.T) {
	want := "SPLIT AT VALUES((4166),(8333),(12500),(16666),(20833),(25000),(29166),(33333),(37500),(41666),(45833),(50000),(54166),(58333),(62500),(66666),(70833),(75000),(79166),(83333),(87500),(91666),(95833))"
	if got := SplitClause(100000, 24); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	o := parse(t, "oltp_read_write", "prepare", "--tables=3", "--range_key_partitioning=true", "--table-size=100000")
	for i, steps := range PreparePlan(o, true).Tables {
		if !strings.HasSuffix(steps[0].SQL, "PRIMARY KEY (id ASC)\n)  "+want) {
			t.Errorf("table %d lacks the split clause: %q", i+1, steps[0].SQL)
		}
	}
}

// The fork's DDL of sbtest1 exactly as specs/sysbench.md §3.1 records it
// from the fork's build (--range_key_partitioning=true --table-size=100000),
// and the clause glued to --create_table_options with no space (§3.7: it is
// prepended to the option's value).
func TestForkDDLMatchesSpec(t *testing.T) {
	const spec = "CREATE TABLE sbtest1(\n  id SERIAL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id ASC)\n)  SPLIT AT VALUES((4166),(8333),(12500),(16666),(20833),(25000),(29166),(33333),(37500),(41666),(45833),(50000),(54166),(58333),(62500),(66666),(70833),(75000),(79166),(83333),(87500),(91666),(95833))"
	o := parse(t, "oltp_read_write", "prepare", "--range_key_partitioning=true", "--table-size=100000")
	if got := PreparePlan(o, true).Tables[0][0].SQL; got != spec {
		t.Errorf("got\n%s\nwant (spec §3.1)\n%s", got, spec)
	}
	o = parse(t, "oltp_read_write", "prepare", "--range_key_partitioning=true", "--table-size=100000", "--create_table_options=WITH (colocation = false)")
	if got := PreparePlan(o, true).Tables[0][0].SQL; got != spec+"WITH (colocation = false)" {
		t.Errorf("with create_table_options: %q", got)
	}
}

// oltp_insert without auto_inc prepares with a table size of 0 (spec §3.6),
// and the fork builds its split values from that size.
func TestInsertWithoutAutoIncSplitsAtZero(t *testing.T) {
	o := parse(t, "oltp_insert", "prepare", "--table-size=1000", "--auto_inc=off", "--range_key_partitioning=true", "--num_table_splits=3")
	if got := PreparePlan(o, true).Tables[0][0].SQL; !strings.HasSuffix(got, ")  SPLIT AT VALUES((0),(0))") {
		t.Errorf("got %q", got)
	}
}

func TestInsertWithoutAutoIncPreparesEmptyTables(t *testing.T) {
	o := parse(t, "oltp_insert", "prepare", "--auto_inc=off")
	for _, s := range PreparePlan(o, false).Tables[0] {
		if s.Load && s.Rows != 0 {
			t.Errorf("oltp_insert --auto_inc=off loads %d rows, want 0", s.Rows)
		}
	}
}

// Observed with Debian's sysbench 1.0.20 (server log): a 10000-row table
// with 4-digit k values goes in INSERTs of 2716, 2716, 2716 and 1852 rows,
// the full ones 524224 bytes long.
func TestBulkInsertBatching(t *testing.T) {
	var sizes, rows []int
	var first []byte
	b := newBulkInsert(1, true, func(sql []byte, n int) error {
		if first == nil {
			first = bytes.Clone(sql[:200])
		}
		sizes = append(sizes, len(sql))
		rows = append(rows, n)
		return nil
	})
	c, pad := bytes.Repeat([]byte("1"), cLen), bytes.Repeat([]byte("2"), padLen)
	var row []byte
	for i := int64(1); i <= 10000; i++ {
		row = appendRow(row[:0], i, true, 5000, c, pad)
		if err := b.add(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.done(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows) != "[2716 2716 2716 1852]" || sizes[0] != 524224 {
		t.Errorf("rows per INSERT %v, sizes %v; want [2716 2716 2716 1852], 524224 bytes", rows, sizes)
	}
	if !bytes.HasPrefix(first, []byte("INSERT INTO sbtest1(k, c, pad) VALUES(5000, '111")) {
		t.Errorf("statement starts %q", first[:60])
	}
	if got := string(appendRow(nil, 7, false, 42, []byte("c"), []byte("p"))); got != "(7, 42, 'c', 'p')" {
		t.Errorf("explicit-id row %q", got)
	}
}
