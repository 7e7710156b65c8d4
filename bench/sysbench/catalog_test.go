package sysbench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

func renderCatalogue(o *Options) string {
	var b strings.Builder
	for _, s := range Catalogue(o) {
		fmt.Fprintf(&b, "%-26s %v  %s\n", s.Name, s.OIDs, s.SQL)
	}
	return b.String()
}

// Golden catalogues of every workload in both modes (2 tables): the
// statements each worker prepares, their texts and parameter types (int4 =
// 23 in the fork, int8 = 20 in 1.0.20, varchar = 1043).
func TestCatalogueGolden(t *testing.T) {
	for _, mode := range []string{"yb", "1.0.20"} {
		var b strings.Builder
		for _, wl := range Workloads {
			o := parse(t, wl, "run", "--tables=2", "--compat="+mode)
			fmt.Fprintf(&b, "== %s\n%s", wl, renderCatalogue(o))
		}
		golden.Check(t, "catalogue_"+mode+".txt", []byte(b.String()))
	}
}

func TestCatalogueTypesAndSpecTexts(t *testing.T) {
	fork := parse(t, "oltp_read_write", "run", "--tables=10")
	old := parse(t, "oltp_read_write", "run", "--tables=10", "--compat=1.0.20")
	// spec §5.2: 10 tables × 9 kinds + BEGIN/COMMIT = 92; the fork adds
	// inserts_autoinc per table (102).
	if n := len(Catalogue(old)); n != 92 {
		t.Errorf("1.0.20 prepares %d statements, want 92", n)
	}
	if n := len(Catalogue(fork)); n != 102 {
		t.Errorf("the fork prepares %d statements, want 102", n)
	}
	want := map[string]string{
		"sb_point_selects_3":     "SELECT c FROM sbtest3 WHERE id=$1",
		"sb_simple_ranges_3":     "SELECT c FROM sbtest3 WHERE id BETWEEN $1 AND $2",
		"sb_sum_ranges_3":        "SELECT SUM(k) FROM sbtest3 WHERE id BETWEEN $1 AND $2",
		"sb_order_ranges_3":      "SELECT c FROM sbtest3 WHERE id BETWEEN $1 AND $2 ORDER BY c",
		"sb_distinct_ranges_3":   "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN $1 AND $2 ORDER BY c",
		"sb_index_updates_3":     "UPDATE sbtest3 SET k=k+1 WHERE id=$1",
		"sb_non_index_updates_3": "UPDATE sbtest3 SET c=$1 WHERE id=$2",
		"sb_deletes_3":           "DELETE FROM sbtest3 WHERE id=$1",
		"sb_inserts_3":           "INSERT INTO sbtest3 (id, k, c, pad) VALUES ($1, $2, $3, $4)",
		"sb_begin":               "BEGIN",
		"sb_commit":              "COMMIT",
	}
	// Every statement named is checked: one renamed or missing fails,
	// rather than leaving nothing to compare.
	seen := map[string]bool{}
	for _, s := range Catalogue(old) {
		if w, ok := want[s.Name]; ok {
			seen[s.Name] = true
			if w != s.SQL {
				t.Errorf("%s: %q, want %q", s.Name, s.SQL, w)
			}
		}
		if s.Name == "sb_non_index_updates_3" && !slices.Equal(s.OIDs, []uint32{oidVarchar, oidInt8}) {
			t.Errorf("1.0.20 non-index update types %v", s.OIDs)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("1.0.20 prepares no statement %s", name)
		}
	}
	forkInsert := false
	for _, s := range Catalogue(fork) {
		if s.Name == "sb_inserts_3" {
			forkInsert = true
			if !slices.Equal(s.OIDs, []uint32{oidInt4, oidInt4, oidVarchar, oidVarchar}) {
				t.Errorf("fork insert types %v", s.OIDs)
			}
		}
	}
	if !forkInsert {
		t.Errorf("the fork prepares no statement sb_inserts_3")
	}
	if n := len(Catalogue(parse(t, "oltp_read_write", "run", "--db-ps-mode=disable"))); n != 0 {
		t.Errorf("--db-ps-mode=disable prepares %d statements", n)
	}
	if n := len(Catalogue(parse(t, "oltp_insert", "run"))); n != 0 {
		t.Errorf("oltp_insert prepares %d statements", n)
	}
}

func TestLiteralSQL(t *testing.T) {
	got := string(literalSQL(nil, kNonIndexUpdate.sqlFor(4), []arg{{s: []byte("12-34")}, {i: 77}}))
	if want := "UPDATE sbtest4 SET c='12-34' WHERE id=77"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = string(literalSQL(nil, kSimpleRange.sqlFor(1), []arg{{i: 5}, {i: 104}}))
	if want := "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
