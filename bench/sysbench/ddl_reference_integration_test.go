//go:build integration

package sysbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// schemaOf is what a prepare made in a database, as PostgreSQL's catalog
// says it: each table's columns (type, length, default, nullability), its
// indexes' definitions and its sequences, and each table's row count.
func (d *testDB) schemaOf(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, q := range []string{
		`SELECT table_name, column_name, data_type, coalesce(character_maximum_length, 0), coalesce(column_default, ''), is_nullable
		   FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
		`SELECT tablename, indexname, indexdef, '', '', '' FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`,
		`SELECT sequencename, data_type::text, start_value::text, increment_by::text, '', '' FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`,
	} {
		rows, err := d.conn.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var c [6]any
			if err := rows.Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5]); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, c[:]...)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		b.WriteString("--\n")
	}
	for i := 1; ; i++ {
		var exists bool
		if err := d.conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", fmt.Sprintf("sbtest%d", i)).Scan(&exists); err != nil || !exists {
			break
		}
		fmt.Fprintf(&b, "sbtest%d rows %d\n", i, d.int(t, fmt.Sprintf("SELECT count(*) FROM sbtest%d", i)))
	}
	return b.String()
}

// What ybload sysbench --compat=1.0.20 prepares is what real sysbench
// 1.0.20 prepares, as PostgreSQL's catalog sees it: the same tables,
// columns (types, lengths, defaults, nullability), primary keys, secondary
// indexes, sequences and row counts, with auto_inc on and off and without
// the secondary index. (ybload's DDL text, testdata/ddl_1.0.20*.sql, is
// its own rendering, which no sysbench prints; this is what it must make.)
func TestIntegrationPrepareAgainstSysbench1020(t *testing.T) {
	sb, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench on PATH (scripts/setup.sh installs Debian's)")
	}
	for _, opts := range [][]string{
		{},
		{"--auto_inc=off"},
		{"--create_secondary=off"},
	} {
		t.Run(strings.Join(append([]string{"defaults"}, opts...), " "), func(t *testing.T) {
			common := append([]string{"oltp_read_write", "--tables=2", "--table-size=150"}, opts...)
			real := newTestDB(t)
			cmd := exec.Command(sb, append(append(append([]string{}, common...), real.args()...), "prepare")...)
			cmd.Env = append(os.Environ(), "PGPASSWORD="+real.pg.Password)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sysbench prepare: %v\n%s", err, out)
			}
			ours := newTestDB(t)
			ours.must(t, append(append([]string{"--compat=1.0.20"}, common...), "prepare")...)
			want, got := real.schemaOf(t), ours.schemaOf(t)
			if !strings.Contains(want, "sbtest2 rows 150") {
				t.Fatalf("sysbench's prepare made:\n%s", want)
			}
			t.Logf("catalog:\n%s", got)
			if got != want {
				t.Errorf("ybload's prepare differs from sysbench 1.0.20's\n--- sysbench\n%s--- ybload\n%s", want, got)
			}
		})
	}
}
