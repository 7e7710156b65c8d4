//go:build integration

package testenv_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ybbench/ybbench/internal/testenv"
)

// TestIntegrationPostgres checks that the shared PostgreSQL server is the one
// scripts/testenv/postgres.sh promises: password auth over TCP, the fixed
// configuration, and an unprivileged server process.
func TestIntegrationPostgres(t *testing.T) {
	p := testenv.PostgresFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	conn, err := pgx.Connect(ctx, p.URL(p.Database))
	if err != nil {
		t.Fatalf("connect with the password from the test environment: %v", err)
	}
	defer conn.Close(ctx)

	t.Run("WrongPasswordRefused", func(t *testing.T) {
		bad := *p
		bad.Password = p.Password + "x"
		c, err := pgx.Connect(ctx, bad.URL(p.Database))
		if err == nil {
			c.Close(ctx)
			t.Fatal("connecting with a wrong password succeeded; host connections must require the password")
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "28P01" { // invalid_password
			t.Fatalf("wrong password: want SQLSTATE 28P01 (invalid_password), got %v", err)
		}
	})

	t.Run("Version", func(t *testing.T) {
		got := show(ctx, t, conn, "server_version")
		if got != p.Version {
			t.Errorf("server_version = %q, the test environment says %q", got, p.Version)
		}
	})

	t.Run("MaxConnectionsFromFixedConfig", func(t *testing.T) {
		confPath := filepath.Join(testenv.RepoRoot(), "scripts", "testenv", "postgresql.conf")
		if !sameFile(t, confPath, p.Config) {
			t.Errorf("the server's config is %s, want the committed %s", p.Config, confPath)
		}
		want := confValue(t, confPath, "max_connections")
		if got := show(ctx, t, conn, "max_connections"); got != want {
			t.Errorf("max_connections = %s, %s says %s", got, confPath, want)
		}
	})

	t.Run("PgStatStatementsPreloaded", func(t *testing.T) {
		libs := show(ctx, t, conn, "shared_preload_libraries")
		for _, l := range strings.Split(libs, ",") {
			if strings.TrimSpace(l) == "pg_stat_statements" {
				return
			}
		}
		t.Errorf("shared_preload_libraries = %q, want pg_stat_statements in it", libs)
	})

	t.Run("RunsAsUnprivilegedOSUser", func(t *testing.T) {
		u, err := user.Lookup(p.OSUser)
		if err != nil {
			t.Fatalf("os_user %q: %v", p.OSUser, err)
		}
		if u.Uid == "0" {
			t.Fatalf("os_user %q is root", p.OSUser)
		}
		pid := postmasterPID(ctx, t, conn, p.DataDir)
		uids := procUids(t, pid)
		for i, uid := range uids {
			if uid != u.Uid {
				t.Errorf("postmaster pid %d: uid #%d is %s, want %s (%s); all: %v", pid, i, uid, u.Uid, p.OSUser, uids)
			}
		}
	})
}

func show(ctx context.Context, t *testing.T, conn *pgx.Conn, name string) string {
	t.Helper()
	var v string
	// SHOW takes no parameters; name is one of our own constants.
	if err := conn.QueryRow(ctx, "SHOW "+name).Scan(&v); err != nil {
		t.Fatalf("SHOW %s: %v", name, err)
	}
	return v
}

// confValue returns the last value of name in a postgresql.conf-style file
// (the server, too, takes the last one).
func confValue(t *testing.T, path, name string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(name) + `\s*=?\s*'?([^'#\s]+)'?`)
	val := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			val = m[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if val == "" {
		t.Fatalf("%s sets no %s", path, name)
	}
	return val
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		t.Fatalf("config file of the test environment: %v", err)
	}
	return os.SameFile(fa, fb)
}

// postmasterPID reads the first line of data_dir/postmaster.pid. The data
// directory is private to the server's OS user; a test that is neither root nor
// that user reads the same file through the server (pg_read_file, superuser).
func postmasterPID(ctx context.Context, t *testing.T, conn *pgx.Conn, dataDir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if errors.Is(err, os.ErrPermission) {
		var s string
		if qerr := conn.QueryRow(ctx, "SELECT pg_read_file('postmaster.pid')").Scan(&s); qerr != nil {
			t.Fatalf("postmaster.pid: %v; through the server: %v", err, qerr)
		}
		b, err = []byte(s), nil
	}
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		t.Fatalf("postmaster.pid: first line %q is not a pid", first)
	}
	return pid
}

// procUids returns the real, effective, saved and filesystem uids of pid.
func procUids(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("postmaster process: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("/proc/%d/status has no Uid line", pid)
	return nil
}
