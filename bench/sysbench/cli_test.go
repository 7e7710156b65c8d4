package sysbench

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

func mainFor(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &Env{Stdout: &out, Stderr: &errb, Version: "test"})
	return code, out.String(), errb.String()
}

// Bad input exits 2 with a message naming the problem, before any
// connection is attempted (the port below has no server).
func TestMainBadInputExits2(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_nothing", "run"}, "unknown workload"},
		{[]string{"oltp_read_write", "run", "--nope=1"}, "invalid option: --nope=1"},
		{[]string{"oltp_read_write", "run", "--tables=0"}, "--tables=0"},
		{[]string{"oltp_read_write", "run", "--threads=many"}, "--threads=many: not an integer"},
		{[]string{"oltp_read_write", "run", "--rand-type=gaussian"}, "gaussian"},
		{[]string{"oltp_read_write", "run", "--ybload-start-at=noon"}, "--ybload-start-at=noon"},
		{[]string{"oltp_read_write", "run", "--ybload-metrics-addr=9464"}, "--ybload-metrics-addr=9464: want HOST:PORT"},
	} {
		code, _, stderr := mainFor(append(c.args, "--pgsql-host=127.0.0.1", "--pgsql-port=1")...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// A metrics port another process holds is refused (exit 2) naming the
// option, before the database is reached (the port below has no server).
func TestMainMetricsPortInUseExits2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	code, _, stderr := mainFor("oltp_point_select", "run", "--pgsql-host=127.0.0.1", "--pgsql-port=1", "--ybload-metrics-addr="+addr)
	if code != 2 || !strings.Contains(stderr, "--ybload-metrics-addr="+addr) || !strings.Contains(stderr, "the port is in use") || strings.Contains(stderr, "connect to") {
		t.Errorf("exit %d, stderr %q; want 2, the option and the port in use, no connection", code, stderr)
	}
}

// A server that cannot be reached is a database error: exit 5.
func TestMainUnreachableServerExits5(t *testing.T) {
	code, _, stderr := mainFor("oltp_point_select", "run", "--pgsql-host=127.0.0.1", "--pgsql-port=1", "--pgsql-password=x")
	if code != 5 || !strings.Contains(stderr, "connect to 127.0.0.1:1/sbtest") || strings.Contains(stderr, "password=x") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestMainHelp(t *testing.T) {
	code, out, _ := mainFor("oltp_read_write", "help", "--compat=1.0.20")
	if code != 0 || !strings.Contains(out, "--rand-spec-iter=") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
}

// --version prints the tool line of the --compat mode and exits 0 before
// anything else on the line is checked, as sysbench prints its version.
func TestMainVersion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--version"}, ToolLine("test", ModeFork)},
		{[]string{"oltp_read_only", "--threads=many", "run", "--version", "--compat=1.0.20"}, ToolLine("test", Mode1020)},
	} {
		code, out, errs := mainFor(c.args...)
		if code != 0 || out != c.want+"\n" || errs != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
}
