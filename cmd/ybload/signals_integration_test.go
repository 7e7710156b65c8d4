//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/bench/ycsb"
	"github.com/ybbench/ybbench/internal/testenv"
)

// The second signal to the real ybload binary cuts off operations in
// flight. Every read is blocked on a table lock the test holds: the first
// signal stops the workers, which cannot finish (the grace period is an
// hour); the second aborts them, and the agent exits, with its report and
// summary, while the lock is still held — so nothing it counted completed.
func TestIntegrationSecondSignalAbortsOperationsInFlight(t *testing.T) {
	bin := buildYbload(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			props, conn, db := ownDatabase(t)
			dir := t.TempDir()
			if out, err := exec.Command(bin, "load", "ysql", "-P", props, "-P", "workloads/workloadc", "-p", "recordcount=100",
				"-p", "threadcount=2", "-p", "ysql.createtable=true").CombinedOutput(); err != nil {
				t.Fatalf("load: %v\n%s", err, out)
			}
			ctx := context.Background()
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, "LOCK TABLE usertable IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			summary, stderr := filepath.Join(dir, "summary.json"), filepath.Join(dir, "stderr")
			errf, err := os.Create(stderr)
			if err != nil {
				t.Fatal(err)
			}
			defer errf.Close()
			cmd := exec.Command(bin, "run", "ysql", "-P", props, "-P", "workloads/workloadc", "-p", "recordcount=100",
				"-p", "operationcount=100000000", "-p", "threadcount=3", "-p", "maxexecutiontime=3600",
				"-p", "ybload.stop.grace=1h", "-p", "ybload.summary="+summary)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, errf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer cmd.Process.Kill()

			admin := testenv.PostgresFor(t)
			poll(t, exited, stderr, "3 reads waiting on the lock", func() bool {
				var n int
				c, err := pgx.Connect(ctx, admin.URL(admin.Database))
				if err != nil {
					return false
				}
				defer c.Close(ctx)
				c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", db).Scan(&n)
				return n == 3
			})
			cmd.Process.Signal(sig)
			poll(t, exited, stderr, "the first signal's message", func() bool { return fileHas(stderr, "ybload: stopping") })
			cmd.Process.Signal(sig)
			var code int
			select {
			case err := <-exited:
				code = exitStatus(err)
			case <-time.After(2 * time.Minute): // a bound on a hang, not a measurement
				t.Fatalf("ybload did not end after a second %v:\n%s", sig, readFile(stderr))
			}
			// The lock is still held: the transaction is open.
			var held bool
			if err := tx.QueryRow(ctx, "SELECT true").Scan(&held); err != nil || !held {
				t.Fatalf("the test's lock was lost before ybload ended: %v", err)
			}
			if code != 0 || !fileHas(stderr, "ybload: aborting operations in flight") {
				t.Errorf("exit %d; want 0 and the abort said:\n%s", code, readFile(stderr))
			}
			var s ycsb.Summary
			if err := json.Unmarshal([]byte(readFile(summary)), &s); err != nil {
				t.Fatalf("no summary after the abort: %v", err)
			}
			if s.Ops != 0 || s.Cancelled != 3 || s.Stop != "interrupted" {
				t.Errorf("summary: %d operations, %d cancelled, stopped by %q; want 0, the 3 blocked reads, interrupted", s.Ops, s.Cancelled, s.Stop)
			}
			if !strings.Contains(out.String(), "[OVERALL], RunTime(ms)") {
				t.Errorf("no report on stdout:\n%s", out.String())
			}
		})
	}
}

// buildYbload builds this package's binary.
func buildYbload(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ybload")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build ybload: %v\n%s", err, out)
	}
	return bin
}

// ownDatabase makes a database of the test's own on the shared PostgreSQL
// and returns a YCSB properties file for it, a connection and its name.
func ownDatabase(t *testing.T) (string, *pgx.Conn, string) {
	t.Helper()
	pg := testenv.PostgresFor(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.URL(pg.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("ybload_signals_%d", rand.IntN(1e9))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), pg.URL(pg.Database)); err == nil {
			c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	conn, err := pgx.Connect(ctx, pg.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	props := filepath.Join(t.TempDir(), "db.properties")
	content := fmt.Sprintf("db.url=jdbc:postgresql://%s:%d/%s\ndb.user=%s\ndb.passwd=%s\n", pg.Host, pg.Port, name, pg.User, pg.Password)
	if err := os.WriteFile(props, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return props, conn, name
}

// poll waits until cond holds; it fails the test if ybload exits first or
// nothing is seen within a generous bound (the machine is shared).
func poll(t *testing.T, exited <-chan error, stderr, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		select {
		case err := <-exited:
			t.Fatalf("%s: ybload exited first (%v):\n%s", what, err, readFile(stderr))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 2 minutes:\n%s", what, readFile(stderr))
		}
	}
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func fileHas(path, s string) bool { return strings.Contains(readFile(path), s) }

// exitStatus is a finished process's exit code (-1 when it did not exit).
func exitStatus(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
