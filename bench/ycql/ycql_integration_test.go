//go:build integration

package ycql

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
)

// cassandra returns the shared node's address and a session without a
// keyspace to check the data with.
func cassandra(t *testing.T) (*testenv.Cassandra, *gocql.Session) {
	t.Helper()
	c := testenv.CassandraFor(t)
	cl := gocql.NewCluster(c.Hosts...)
	cl.Port = c.Port
	cl.ProtoVersion = 4
	cl.Consistency = gocql.One
	cl.Timeout = 30 * time.Second // schema changes on a busy 2-core machine
	cl.ConnectTimeout = 10 * time.Second
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("connect to the shared Cassandra: %v", err)
	}
	t.Cleanup(s.Close)
	return c, s
}

// keyspace names a keyspace of the test's own and drops it at the end.
func keyspace(t *testing.T, s *gocql.Session) string {
	t.Helper()
	ks := fmt.Sprintf("ybit_%s_%d", strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name())), rand.IntN(1e6))
	if len(ks) > 48 {
		ks = ks[:40] + strconv.Itoa(rand.IntN(1e6))
	}
	t.Cleanup(func() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
		}
	})
	return ks
}

type report struct {
	code   int
	lines  map[string]string
	stdout string
	stderr string
}

func (r *report) int(metric, m string) int64 {
	v, _ := strconv.ParseInt(r.lines["["+metric+"], "+m], 10, 64)
	return v
}

func runYCSB(t *testing.T, args ...string) *report {
	t.Helper()
	var out, errb bytes.Buffer
	f := func(p *ycsb.Props, log *slog.Logger) (ycsb.Binding, error) { return NewYCSB(p, log, os.Getenv) }
	env := &ycsb.Env{Stdout: &out, Stderr: &errb, Version: "test", Bindings: map[string]ycsb.BindingFactory{
		"yugabyteCQL": f, "ycql": f, "site.ycsb.db.CassandraCQLClient": f,
	}}
	code := ycsb.Main(context.Background(), args, env)
	r := &report{code: code, lines: map[string]string{}, stdout: out.String(), stderr: errb.String()}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ", ", 3)
		if len(parts) == 3 && strings.HasPrefix(parts[0], "[") {
			r.lines[parts[0]+", "+parts[1]] = parts[2]
		}
	}
	return r
}

// dbProperties writes the seed's db.properties for the node: hosts, port,
// cassandra.username=yugabyte (the server does not ask for it), and the
// test's keyspace.
func dbProperties(t *testing.T, c *testenv.Cassandra, ks string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "db.properties")
	content := fmt.Sprintf("hosts=%s\nport=%d\ncassandra.username=yugabyte\ncassandra.keyspace=%s\n", strings.Join(c.Hosts, ","), c.Port, ks)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const records = 2000

func countRows(t *testing.T, s *gocql.Session, ks string) int64 {
	t.Helper()
	var n int64
	if err := s.Query("SELECT COUNT(*) FROM " + ks + ".usertable").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func loadYCSB(t *testing.T, props string, s *gocql.Session, ks string) {
	t.Helper()
	r := runYCSB(t, "load", "yugabyteCQL", "-P", props, "-P", "workloads/workloada", "-p", "recordcount="+strconv.Itoa(records),
		"-p", "threadcount=8", "-p", "ycql.createtable=true", "-p", "ycql.droptable=true")
	if r.code != 0 {
		t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
	}
	if got := r.int("INSERT", "Return=OK"); got != records {
		t.Fatalf("load reported %d OK inserts, want %d\n%s", got, records, r.stdout)
	}
	if n := countRows(t, s, ks); n != records {
		t.Fatalf("table holds %d rows after loading %d", n, records)
	}
}

// snapshot reads every row: key → its ten fields.
func snapshot(t *testing.T, s *gocql.Session, ks string) map[string][10]string {
	t.Helper()
	iter := s.Query("SELECT y_id, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM " + ks + ".usertable").PageSize(5000).Iter()
	out := map[string][10]string{}
	var k string
	var f [10]string
	for iter.Scan(&k, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]) {
		out[k] = f
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The load writes every record of YCSB's key set with ten 100-byte fields
// of YCSB's alphabet, and the run phases of A–F then leave the table as the
// operations they report say.
func TestIntegrationYCSBLoadThenWorkloadsOnCassandra(t *testing.T) {
	c, s := cassandra(t)
	ks := keyspace(t, s)
	props := dbProperties(t, c, ks)
	for _, w := range []string{"workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf"} {
		t.Run(w, func(t *testing.T) {
			loadYCSB(t, props, s, ks) // a fresh table per workload, as run_ycql.sh does
			before := snapshot(t, s, ks)
			checkLoaded(t, before)
			summary := filepath.Join(t.TempDir(), "summary.json")
			r := runYCSB(t, "run", "ycql", "-P", props, "-P", "workloads/"+w, "-p", "recordcount="+strconv.Itoa(records),
				"-p", "operationcount=3000", "-p", "threadcount=8", "-p", "ybload.summary="+summary)
			if r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", w, r.code, r.stderr)
			}
			expect := map[string][]string{
				"workloada": {"READ", "UPDATE"}, "workloadb": {"READ", "UPDATE"}, "workloadc": {"READ"},
				"workloadd": {"READ", "INSERT"}, "workloade": {"SCAN", "INSERT"}, "workloadf": {"READ", "UPDATE", "READ-MODIFY-WRITE"},
			}[w]
			for _, op := range expect {
				if n := r.int(op, "Operations"); n <= 0 {
					t.Errorf("%s has %d operations", op, n)
				}
			}
			for _, op := range []string{"READ", "UPDATE", "INSERT", "SCAN"} {
				if n := r.int(op, "Return=ERROR") + r.int(op, "Return=NOT_FOUND"); n > 0 {
					t.Errorf("%d %s errors or misses:\n%s", n, op, r.stderr)
				}
			}
			after := snapshot(t, s, ks)
			sum := readSummary(t, summary)
			inserted := r.int("INSERT", "Return=OK")
			if got := int64(len(after) - len(before)); got != inserted || got != sum.Counters["insert_ok"] {
				t.Errorf("table grew by %d rows; report says %d inserts, counter %d", got, inserted, sum.Counters["insert_ok"])
			}
			changed := 0
			for k, old := range before {
				nw, ok := after[k]
				if !ok {
					t.Fatalf("row %s disappeared", k)
				}
				for i := range old {
					if old[i] != nw[i] {
						changed++
						if len(nw[i]) != 100 {
							t.Errorf("row %s field%d rewritten with %d bytes", k, i, len(nw[i]))
						}
					}
				}
			}
			// Each update rewrites one field: at most one changed field per
			// update, and some when there were updates.
			if updates := r.int("UPDATE", "Return=OK"); int64(changed) > updates || (updates > 50 && changed == 0) {
				t.Errorf("%d fields changed for %d updates", changed, updates)
			}
			if w == "workloade" && (sum.Counters["scan_rows"] == 0 || sum.Counters["scans"] != r.int("SCAN", "Operations")) {
				t.Errorf("scans %d returned %d rows; report says %d scans", sum.Counters["scans"], sum.Counters["scan_rows"], r.int("SCAN", "Operations"))
			}
			if w == "workloadf" {
				rmw, reads, updates := r.int("READ-MODIFY-WRITE", "Operations"), r.int("READ", "Operations"), r.int("UPDATE", "Operations")
				if updates != rmw || reads+updates != 3000+rmw {
					t.Errorf("F: %d reads, %d updates, %d RMW for 3000 operations", reads, updates, rmw)
				}
			}
			for k, want := range map[string]string{"ycql.server_flavor": "cassandra", "ycql.read_consistency": "ONE",
				"ycql.connections_per_host": "2", "ycql.release_version": c.Version} {
				if sum.Settings[k] != want {
					t.Errorf("summary setting %s = %q, want %q", k, sum.Settings[k], want)
				}
			}
			if !strings.Contains(sum.Settings["ycql.driver"], "gocql") || !strings.HasPrefix(sum.Settings["ycql.routing"], "round robin (no YugabyteDB partition map") {
				t.Errorf("driver %q routing %q", sum.Settings["ycql.driver"], sum.Settings["ycql.routing"])
			}
		})
	}
}

// checkLoaded checks the loaded rows: YCSB's keys (record 0's hashed key is
// there), ten fields of 100 bytes in YCSB's alphabet (ASCII 32–127).
func checkLoaded(t *testing.T, rows map[string][10]string) {
	t.Helper()
	if _, ok := rows["user6284781860667377211"]; !ok {
		t.Error("record 0's YCSB key user6284781860667377211 is missing")
	}
	for k, f := range rows {
		if !strings.HasPrefix(k, "user") {
			t.Fatalf("key %q", k)
		}
		for i, v := range f {
			if len(v) != 100 {
				t.Fatalf("row %s field%d has %d bytes", k, i, len(v))
			}
			for _, ch := range []byte(v) {
				if ch < 32 || ch > 127 {
					t.Fatalf("row %s field%d byte %d outside YCSB's alphabet", k, i, ch)
				}
			}
		}
	}
}

func readSummary(t *testing.T, path string) *ycsb.Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s ycsb.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// Bad properties are input errors (exit 2), an unreachable cluster a
// database error (exit 5), each one clear line.
func TestIntegrationYCSBBadInputs(t *testing.T) {
	c, s := cassandra(t)
	ks := keyspace(t, s)
	props := dbProperties(t, c, ks)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown consistency", []string{"-p", "cassandra.readconsistencylevel=MOSTLY"}, exitcode.Config, `unknown consistency level "MOSTLY"`},
		{"no hosts", []string{"-p", "hosts="}, exitcode.Config, "missing property hosts"},
		{"unreachable", []string{"-p", "hosts=127.0.0.1", "-p", "port=1", "-p", "cassandra.connecttimeoutmillis=500"}, exitcode.Workload, "connect to 127.0.0.1"},
		{"missing table", nil, exitcode.Workload, "ycql.createtable=true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "yugabyteCQL", "-P", props, "-P", "workloads/workloada", "-p", "recordcount=10", "-p", "operationcount=10"}, tc.args...)
			r := runYCSB(t, args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
			if strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("a panic:\n%s", r.stderr)
			}
		})
	}
}
