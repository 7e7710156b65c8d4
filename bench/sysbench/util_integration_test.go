//go:build integration

package sysbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/internal/testenv"
)

// testDB is a database of the test's own on the shared PostgreSQL.
type testDB struct {
	pg   *testenv.Postgres
	name string
	conn *pgx.Conn // for checks, connected to the database
}

// newTestDB creates a database of the test's own; setup statements (e.g.
// ALTER DATABASE … SET …) run on it before the check connection opens.
func newTestDB(t *testing.T, setup ...string) *testDB {
	t.Helper()
	pg := testenv.PostgresFor(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.URL(pg.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	if len(name) > 45 {
		name = name[len(name)-45:]
	}
	name = fmt.Sprintf("sb_%s_%d", strings.Trim(name, "_"), rand.IntN(1e6))
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
	for _, s := range setup {
		if _, err := admin.Exec(ctx, strings.ReplaceAll(s, "{db}", name)); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, pg.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return &testDB{pg: pg, name: name, conn: conn}
}

// args are the connection options; the password comes from the
// environment, as a user would give it.
func (d *testDB) args() []string {
	return []string{"--db-driver=pgsql", "--pgsql-host=" + d.pg.Host, "--pgsql-port=" + strconv.Itoa(d.pg.Port),
		"--pgsql-user=" + d.pg.User, "--pgsql-db=" + d.name}
}

func (d *testDB) int(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n *int64
	if err := d.conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if n == nil {
		return 0
	}
	return *n
}

func (d *testDB) exec(t *testing.T, sql string) {
	t.Helper()
	if _, err := d.conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// result is one ybload sysbench invocation.
type result struct {
	code           int
	stdout, stderr string
	summary        *Summary
}

// line returns the first number after a report label ("read:", "transactions:").
func (r *result) num(t *testing.T, label string) int64 {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(l, label); ok {
			f := strings.Fields(rest)
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				t.Fatalf("%s %q: %v", label, l, err)
			}
			return n
		}
	}
	t.Fatalf("no %q in the report:\n%s\n%s", label, r.stdout, r.stderr)
	return 0
}

// counts returns the report's transactions and read/write/other.
func (r *result) counts(t *testing.T) (events, read, write, other, errs int64) {
	return r.num(t, "transactions:"), r.num(t, "read:"), r.num(t, "write:"), r.num(t, "other:"), r.num(t, "ignored errors:")
}

// sb runs ybload sysbench with the database's connection options and a JSON
// summary.
func (d *testDB) sb(t *testing.T, ctx context.Context, args ...string) *result {
	t.Helper()
	return d.sbStarted(t, ctx, nil, args...)
}

// sbStarted is sb that closes started once the agent prints "Threads
// started!", the line sysbench prints after every thread's init (its
// connection and prepared statements) succeeded: what a test that acts on
// running events waits for.
func (d *testDB) sbStarted(t *testing.T, ctx context.Context, started chan<- struct{}, args ...string) *result {
	t.Helper()
	sum := filepath.Join(t.TempDir(), "summary.json")
	all := append(append(append([]string{}, args...), d.args()...), "--ybload-summary="+sum)
	var errb bytes.Buffer
	out := &watchWriter{want: []byte("Threads started!"), seen: started}
	env := &Env{Stdout: out, Stderr: &errb, Version: "test", Getenv: func(k string) string {
		if k == "YBLOAD_YSQL_PASSWORD" {
			return d.pg.Password
		}
		return ""
	}}
	r := &result{code: Main(ctx, all, env)}
	r.stdout, r.stderr = out.String(), errb.String()
	if started != nil && !out.fired {
		close(started) // the run ended without starting: release the waiter
	}
	if b, err := os.ReadFile(sum); err == nil {
		r.summary = &Summary{}
		if err := json.Unmarshal(b, r.summary); err != nil {
			t.Fatalf("summary: %v", err)
		}
	}
	return r
}

// must runs ybload sysbench and fails the test unless it exits 0.
func (d *testDB) must(t *testing.T, args ...string) *result {
	t.Helper()
	r := d.sb(t, context.Background(), args...)
	if r.code != 0 {
		t.Fatalf("ybload sysbench %s: exit %d\n%s\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// watchWriter keeps what is written and closes seen (when not nil) the
// first time the kept text contains want.
type watchWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	want  []byte
	seen  chan<- struct{}
	fired bool
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if !w.fired && w.seen != nil && bytes.Contains(w.buf.Bytes(), w.want) {
		w.fired = true
		close(w.seen)
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
