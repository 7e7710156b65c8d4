//go:build integration

package ysql

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/record/hist"
)

// testDB creates a database of the test's own and returns a db.properties
// file pointing at it (two JDBC URLs, as the seed's file has three) and a
// connection to check the data.
func testDB(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	pg := testenv.PostgresFor(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.URL(pg.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("ycsb_%s_%d", strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name())), rand.IntN(1e6))
	if len(name) > 60 {
		name = name[:60]
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), pg.URL(pg.Database))
		if err == nil {
			c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	conn, err := pgx.Connect(ctx, pg.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	url := fmt.Sprintf("jdbc:postgresql://%s:%d/%s", pg.Host, pg.Port, name)
	props := filepath.Join(t.TempDir(), "db.properties")
	content := fmt.Sprintf("db.driver=org.postgresql.Driver\ndb.url=%s;%s;\ndb.user=%s\ndb.passwd=%s\n", url, url, pg.User, pg.Password)
	if err := os.WriteFile(props, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return props, conn
}

type report struct {
	code   int
	lines  map[string]string // "[READ], Operations" → "123"
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
	env := &ycsb.Env{Stdout: &out, Stderr: &errb, Version: "test", Bindings: map[string]ycsb.BindingFactory{
		"ysql": func(p *ycsb.Props, log *slog.Logger) (ycsb.Binding, error) { return New(p, log, os.Getenv) },
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

func count(t *testing.T, conn *pgx.Conn) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM usertable").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

const records = 3000

func load(t *testing.T, props string, conn *pgx.Conn, extra ...string) {
	t.Helper()
	args := append([]string{"load", "ysql", "-P", props, "-P", "workloads/workloada", "-p", "recordcount=" + strconv.Itoa(records),
		"-p", "threadcount=8", "-p", "ysql.createtable=true"}, extra...)
	r := runYCSB(t, args...)
	if r.code != 0 {
		t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
	}
	if got := r.int("INSERT", "Return=OK"); got != records {
		t.Fatalf("load reported %d OK inserts, want %d", got, records)
	}
	if n := count(t, conn); n != records {
		t.Fatalf("table holds %d rows after loading %d", n, records)
	}
}

func TestIntegrationLoadWritesEveryRecord(t *testing.T) {
	props, conn := testDB(t)
	load(t, props, conn)
	var fields, minLen, maxLen int64
	err := conn.QueryRow(context.Background(), `SELECT count(*) FROM information_schema.columns WHERE table_name='usertable' AND column_name LIKE 'field%'`).Scan(&fields)
	if err != nil || fields != 10 {
		t.Fatalf("%d field columns (%v)", fields, err)
	}
	q := `SELECT min(least(length(field0),length(field1),length(field2),length(field3),length(field4),length(field5),length(field6),length(field7),length(field8),length(field9))),
	             max(greatest(length(field0),length(field1),length(field2),length(field3),length(field4),length(field5),length(field6),length(field7),length(field8),length(field9))) FROM usertable`
	if err := conn.QueryRow(context.Background(), q).Scan(&minLen, &maxLen); err != nil {
		t.Fatal(err)
	}
	if minLen != 100 || maxLen != 100 {
		t.Errorf("field lengths %d..%d, want 100", minLen, maxLen)
	}
	// Keys are YCSB's: the hashed key of record 0 is there.
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1 FROM usertable WHERE ycsb_key = 'user6284781860667377211'").Scan(&one); err != nil {
		t.Errorf("record 0's YCSB key is missing: %v", err)
	}
}

func runWorkload(t *testing.T, props, w string, extra ...string) *report {
	t.Helper()
	args := append([]string{"run", "ysql", "-P", props, "-P", "workloads/" + w, "-p", "recordcount=" + strconv.Itoa(records),
		"-p", "operationcount=4000", "-p", "threadcount=8", "-p", "ybload.summary=" + filepath.Join(t.TempDir(), "summary.json")}, extra...)
	r := runYCSB(t, args...)
	if r.code != 0 {
		t.Fatalf("%s: exit %d\n%s", w, r.code, r.stderr)
	}
	if got := r.int("OVERALL", "RunTime(ms)"); got <= 0 {
		t.Fatalf("%s: no RunTime in\n%s", w, r.stdout)
	}
	return r
}

// Each workload on a freshly created and loaded table, as YCSB's run
// scripts do (D's inserts would otherwise collide with E's).
func TestIntegrationWorkloadsAgainstTheDatabase(t *testing.T) {
	for _, w := range []string{"workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf"} {
		t.Run(w, func(t *testing.T) {
			props, conn := testDB(t)
			load(t, props, conn)
			rows := int64(records)
			summary := filepath.Join(t.TempDir(), "s.json")
			r := runWorkload(t, props, w, "-p", "ybload.summary="+summary)
			expect := map[string][]string{
				"workloada": {"READ", "UPDATE"}, "workloadb": {"READ", "UPDATE"}, "workloadc": {"READ"},
				"workloadd": {"READ", "INSERT"}, "workloade": {"SCAN", "INSERT"}, "workloadf": {"READ", "UPDATE", "READ-MODIFY-WRITE"},
			}[w]
			for _, op := range expect {
				if n := r.int(op, "Operations"); n <= 0 {
					t.Errorf("%s: %s has %d operations", w, op, n)
				}
			}
			for _, op := range []string{"READ", "UPDATE", "INSERT", "SCAN"} {
				if n := r.int(op, "Return=ERROR"); n > 0 {
					t.Errorf("%s: %d %s errors:\n%s", w, n, op, r.stderr)
				}
			}
			counters := readCounters(t, summary)
			grown := count(t, conn) - rows
			inserted := r.int("INSERT", "Return=OK")
			switch w {
			case "workloadd", "workloade":
				// The table grows by exactly the successful inserts, by the
				// report and by the workload's own counter.
				if grown != inserted || grown != counters["insert_ok"] || grown == 0 {
					t.Errorf("%s: table grew by %d, report says %d inserts, counter %d", w, grown, inserted, counters["insert_ok"])
				}
			default:
				if grown != 0 {
					t.Errorf("%s: table grew by %d rows", w, grown)
				}
			}
			if w == "workloade" && (counters["scan_rows"] == 0 || counters["scans"] != r.int("SCAN", "Operations")) {
				t.Errorf("scans %d returned %d rows; report says %d scans", counters["scans"], counters["scan_rows"], r.int("SCAN", "Operations"))
			}
			if w == "workloadf" {
				// Every RMW reads and updates: READ = plain reads + RMWs, UPDATE = RMWs.
				rmw, reads, updates := r.int("READ-MODIFY-WRITE", "Operations"), r.int("READ", "Operations"), r.int("UPDATE", "Operations")
				if updates != rmw || reads+updates != 4000+rmw {
					t.Errorf("F: %d reads, %d updates, %d RMW for 4000 operations", reads, updates, rmw)
				}
			}
			rows = count(t, conn)
		})
	}
}

// F rewrites single fields of existing rows: no row appears or disappears,
// and at most one field per RMW changes.
func TestIntegrationReadModifyWriteChangesOneFieldOfExistingRows(t *testing.T) {
	props, conn := testDB(t)
	load(t, props, conn)
	before := snapshot(t, conn)
	r := runWorkload(t, props, "workloadf", "-p", "readproportion=0", "-p", "readmodifywriteproportion=1", "-p", "operationcount=200")
	after := snapshot(t, conn)
	if len(after) != len(before) {
		t.Fatalf("%d rows before, %d after", len(before), len(after))
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
					t.Errorf("row %s field %d has length %d", k, i, len(nw[i]))
				}
			}
		}
	}
	if rmw := r.int("READ-MODIFY-WRITE", "Operations"); rmw != 200 || changed == 0 || changed > 200 {
		t.Errorf("%d RMWs changed %d fields (want 1..200)", rmw, changed)
	}
}

func snapshot(t *testing.T, conn *pgx.Conn) map[string][10]string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT ycsb_key, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][10]string{}
	for rows.Next() {
		var k string
		var f [10]string
		if err := rows.Scan(&k, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]); err != nil {
			t.Fatal(err)
		}
		out[k] = f
	}
	return out
}

// The summary's percentiles agree, within HDR precision, with the exact
// percentiles of the raw latencies the agent wrote.
func TestIntegrationSummaryPercentilesMatchRawSamples(t *testing.T) {
	props, conn := testDB(t)
	load(t, props, conn)
	raw := filepath.Join(t.TempDir(), "raw.txt")
	r := runWorkload(t, props, "workloada", "-p", "measurementtype=hdrhistogram+raw", "-p", "measurement.raw.output_file="+raw,
		"-p", "hdrhistogram.percentiles=50,95,99")
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string][]int64{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Split(l, ",")
		if len(f) != 3 || strings.Contains(l, "latency raw data") {
			continue
		}
		v, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatalf("bad raw line %q", l)
		}
		samples[f[0]] = append(samples[f[0]], v)
	}
	h := hist.New()
	for _, op := range []string{"READ", "UPDATE"} {
		s := samples["Raw"+op]
		if int64(len(s)) != r.int("Hdr"+op, "Operations") {
			t.Fatalf("%s: %d raw samples, report says %d", op, len(s), r.int("Hdr"+op, "Operations"))
		}
		slices.Sort(s)
		for _, p := range []struct {
			label string
			q     float64
		}{{"50th", 50}, {"95th", 95}, {"99th", 99}} {
			rank := int(p.q/100*float64(len(s)) + 0.5)
			exact := s[max(rank, 1)-1]
			got := r.int("Hdr"+op, p.label+"PercentileLatency(us)")
			if !h.Equivalent(got, exact) {
				t.Errorf("%s p%v: summary %d, raw %d: not within HDR precision", op, p.q, got, exact)
			}
		}
	}
}

func readCounters(t *testing.T, path string) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s ycsb.Summary
	if err := jsonUnmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Counters
}

func TestIntegrationDatabaseErrorsExitFive(t *testing.T) {
	props, _ := testDB(t)
	pg := testenv.PostgresFor(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	// A port nothing listens on: take a free one and close it.
	closed := freePort(t)
	cases := []struct {
		name  string
		props string
		want  string
	}{
		{"unreachable", write("u.properties", fmt.Sprintf("db.url=jdbc:postgresql://127.0.0.1:%d/x;\ndb.user=u\n", closed)), "connect to 127.0.0.1:"},
		{"wrong password", write("p.properties", fmt.Sprintf("db.url=jdbc:postgresql://%s:%d/%s;\ndb.user=%s\ndb.passwd=s3cr3t-7f2a\n", pg.Host, pg.Port, pg.Database, pg.User)), "password authentication failed"},
		{"missing table", props, "table usertable does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runYCSB(t, "run", "ysql", "-P", c.props, "-P", "workloads/workloada", "-p", "recordcount=10", "-p", "operationcount=10")
			if r.code != exitcode.Workload || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 5 and %q", r.code, r.stderr, c.want)
			}
			if strings.Contains(r.stderr+r.stdout, "s3cr3t-7f2a") {
				t.Error("the password appears in the output")
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Count(strings.TrimSpace(lastLines(r.stderr)), "\n") > 0 {
				t.Errorf("want one clear error line, got:\n%s", r.stderr)
			}
		})
	}
}

func lastLines(s string) string {
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.HasPrefix(l, "ybload:") {
			return l
		}
	}
	return s
}

// Statements blocked past maxexecutiontime and the grace period are cut off
// (a past deadline on their connections), not counted, and the run still
// ends with its report: on poller connections and on blocking sockets,
// whose reads wait in the kernel until the deadline shuts them down.
func TestIntegrationHungStatementsAreCutOff(t *testing.T) {
	for _, socket := range []string{"poller", "blocking"} {
		t.Run(socket, func(t *testing.T) {
			props, conn := testDB(t)
			load(t, props, conn)
			ctx := context.Background()
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, "LOCK TABLE usertable IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			summary := filepath.Join(t.TempDir(), "s.json")
			r := runYCSB(t, "run", "ysql", "-P", props, "-P", "workloads/workloada", "-p", "recordcount="+strconv.Itoa(records),
				"-p", "operationcount=1000", "-p", "threadcount=3", "-p", "maxexecutiontime=1", "-p", "ybload.stop.grace=1s",
				"-p", "ybload.summary="+summary, "-p", "ysql.socket="+socket)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			b, _ := os.ReadFile(summary)
			var s ycsb.Summary
			if err := jsonUnmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.Cancelled != 3 || s.Ops != 0 || s.Stop != "duration" {
				t.Errorf("cancelled %d ops %d stop %s; want 3 cut off, 0 counted, stopped by duration", s.Cancelled, s.Ops, s.Stop)
			}
			if r.int("OVERALL", "RunTime(ms)") <= 0 {
				t.Errorf("no report:\n%s", r.stdout)
			}
			if got := s.Settings["ysql.socket"]; got != socket {
				t.Errorf("settings say ysql.socket=%q, want %q", got, socket)
			}
		})
	}
}
