//go:build integration

package sysbench

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// perEvent are the statements of one event with the defaults, as spec §5.1
// and §6.1 give them, normalised as pg_stat_statements shows them (table
// numbers replaced by N), with their calls per event.
var perEvent = map[string]map[string]int64{
	"oltp_point_select": {"SELECT c FROM sbtestN WHERE id=$1": 1},
	"oltp_read_only": {
		"BEGIN": 1, "SELECT c FROM sbtestN WHERE id=$1": 10,
		"SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2":                     1,
		"SELECT SUM(k) FROM sbtestN WHERE id BETWEEN $1 AND $2":                1,
		"SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2 ORDER BY c":          1,
		"SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN $1 AND $2 ORDER BY c": 1,
		"COMMIT": 1,
	},
	"oltp_read_write": {
		"BEGIN": 1, "SELECT c FROM sbtestN WHERE id=$1": 10,
		"SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2":                     1,
		"SELECT SUM(k) FROM sbtestN WHERE id BETWEEN $1 AND $2":                1,
		"SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2 ORDER BY c":          1,
		"SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN $1 AND $2 ORDER BY c": 1,
		"UPDATE sbtestN SET k=k+1 WHERE id=$1":                                 1,
		"UPDATE sbtestN SET c=$1 WHERE id=$2":                                  1,
		"DELETE FROM sbtestN WHERE id=$1":                                      1,
		"INSERT INTO sbtestN (id, k, c, pad) VALUES ($1, $2, $3, $4)":          1,
		"COMMIT": 1,
	},
	"oltp_write_only": {
		"BEGIN": 1, "UPDATE sbtestN SET k=k+1 WHERE id=$1": 1, "UPDATE sbtestN SET c=$1 WHERE id=$2": 1,
		"DELETE FROM sbtestN WHERE id=$1": 1, "INSERT INTO sbtestN (id, k, c, pad) VALUES ($1, $2, $3, $4)": 1, "COMMIT": 1,
	},
	"oltp_insert":           {"INSERT INTO sbtestN (k, c, pad) VALUES ($1, $2, $3)": 1},
	"oltp_update_index":     {"UPDATE sbtestN SET k=k+1 WHERE id=$1": 1},
	"oltp_update_non_index": {"UPDATE sbtestN SET c=$1 WHERE id=$2": 1},
	"oltp_delete":           {"DELETE FROM sbtestN WHERE id=$1": 1},
}

var tableNum = regexp.MustCompile(`sbtest[0-9]+`)

// captured returns the statements pg_stat_statements recorded in the
// database since the last reset, normalised, with their calls: the agent's
// own look-ups and the test's queries left out.
func captured(t *testing.T, d *testDB) map[string]int64 {
	t.Helper()
	rows, err := d.conn.Query(context.Background(),
		`SELECT query, calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var q string
		var calls int64
		if err := rows.Scan(&q, &calls); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(q, "pg_stat_statements") || strings.Contains(q, "version()") || strings.Contains(q, "to_regclass") {
			continue
		}
		out[tableNum.ReplaceAllString(q, "sbtestN")] += calls
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func render(m map[string]int64) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, fmt.Sprintf("%6d  %s", v, k))
	}
	sort.Strings(ks)
	return strings.Join(ks, "\n")
}

// The statements sent, captured on the server with pg_stat_statements in a
// database of the test's own (filtered and reset by its id): the same
// normalised texts and calls per event as the spec, in both modes, prepared
// and as literal SQL (--db-ps-mode=disable), and on a blocking socket.
func TestIntegrationStatementsCaptured(t *testing.T) {
	const n = 40
	for _, v := range []struct{ name, mode, ps, socket string }{
		{"yb", "yb", "auto", "poller"}, {"1.0.20", "1.0.20", "auto", "poller"}, {"yb_literal", "yb", "disable", "poller"},
		// The blocking socket changes how the client waits, not what it sends.
		{"1.0.20_blocking_socket", "1.0.20", "auto", "blocking"},
	} {
		t.Run(v.name, func(t *testing.T) {
			d := newTestDB(t)
			d.exec(t, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
			common := []string{"--tables=3", "--table-size=500", "--compat=" + v.mode, "--db-ps-mode=" + v.ps, "--ybload-socket=" + v.socket}
			d.must(t, append([]string{"oltp_read_write", "prepare"}, common...)...)
			for _, wl := range Workloads {
				d.exec(t, "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)")
				d.must(t, append([]string{wl, "run", "--events=40", "--time=0", "--threads=1"}, common...)...)
				got := captured(t, d)
				want := map[string]int64{}
				for q, c := range perEvent[wl] {
					// pg_stat_statements also replaces the constant 1 of
					// k=k+1 by a parameter, numbered after the statement's
					// own ($2) or in text order (literal SQL).
					calls := c * n
					if v.ps == "auto" {
						q = strings.Replace(q, "k=k+1 WHERE id=$1", "k=k+$2 WHERE id=$1", 1)
						// PostgreSQL 15's pg_stat_statements counts a
						// utility statement executed as a prepared statement
						// once per connection (Debian's sysbench shows the
						// same: BEGIN 1, COMMIT 1); as literal SQL below,
						// every BEGIN and COMMIT counts.
						if q == "BEGIN" || q == "COMMIT" {
							calls = 1
						}
					} else {
						q = strings.Replace(q, "k=k+1 WHERE id=$1", "k=k+$1 WHERE id=$2", 1)
					}
					want[q] = calls
				}
				if render(got) != render(want) {
					t.Errorf("%s: statements sent\n%s\nwant\n%s", wl, render(got), render(want))
				}
			}
		})
	}
}

// The parameter types of the prepared statements, read back from the
// server's pg_prepared_statements on a worker's own connection: int4 in the
// fork, int8 in 1.0.20, varchar for strings.
func TestIntegrationParameterTypes(t *testing.T) {
	d := newTestDB(t)
	d.must(t, "oltp_read_write", "prepare", "--tables=1", "--table-size=10")
	for _, c := range []struct {
		mode, intType string
	}{{"yb", "integer"}, {"1.0.20", "bigint"}} {
		o, err := ParseArgs(append([]string{"oltp_read_write", "run", "--tables=1", "--compat=" + c.mode, "--pgsql-password=" + d.pg.Password}, d.args()...), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := newSession(o, endpoints(o), 0)
		if err := s.open(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		res, err := s.conn.Exec(context.Background(), "SELECT statement || ' ' || parameter_types::text FROM pg_prepared_statements ORDER BY name").ReadAll()
		s.close()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res[0].Rows {
			got = append(got, string(r[0]))
		}
		i, v := c.intType, "\"character varying\""
		want := []string{
			"BEGIN {}", "COMMIT {}",
			"DELETE FROM sbtest1 WHERE id=$1 {" + i + "}",
			"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN $1 AND $2 ORDER BY c {" + i + "," + i + "}",
			"SELECT c FROM sbtest1 WHERE id=$1 {" + i + "}",
			"UPDATE sbtest1 SET k=k+1 WHERE id=$1 {" + i + "}",
			"INSERT INTO sbtest1 (id, k, c, pad) VALUES ($1, $2, $3, $4) {" + i + "," + i + "," + v + "," + v + "}",
			"UPDATE sbtest1 SET c=$1 WHERE id=$2 {" + v + "," + i + "}",
			"SELECT c FROM sbtest1 WHERE id BETWEEN $1 AND $2 ORDER BY c {" + i + "," + i + "}",
			"SELECT c FROM sbtest1 WHERE id BETWEEN $1 AND $2 {" + i + "," + i + "}",
			"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN $1 AND $2 {" + i + "," + i + "}",
		}
		if c.mode == "yb" {
			want = append(want, "INSERT INTO sbtest1 (k, c, pad) VALUES ($1, $2, $3) {"+i+","+v+","+v+"}")
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: prepared statements\n%s\nwant\n%s", c.mode, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
