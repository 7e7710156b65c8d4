package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// ybloadBinary builds this command once per test binary, so that the
// tests below run it as a user does: its exit status and its two streams
// as the operating system sees them.
func ybloadBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ybload-help-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ybload")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = errors.New("build ybload: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// runBinary runs the built ybload and returns its exit code and streams.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(ybloadBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("ybload %q: %v", args, err)
	return 0, "", ""
}

// Every way of asking the agent or one of its commands for help prints
// that help on stdout, nothing on stderr, and exits 0 — as ybbench --help
// does — without reaching for a database or a file.
func TestBinaryHelp(t *testing.T) {
	const (
		top      = "Usage: ybload <command> [arguments]"
		ycsbHelp = "Usage: ybload load|run <binding> [options]"
		kvHelp   = "Usage: ybload kv --workload <workload>"
		kvOne    = "Usage: ybload kv --workload CassandraKeyValue "
		kvBatch  = "Usage: ybload kv --workload CassandraBatchKeyValue "
		sbHelp   = "Usage: ybload sysbench <workload>"
	)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, top}, {[]string{"-h"}, top}, {[]string{"-help"}, top}, {[]string{"help"}, top},
		{[]string{"run", "--help"}, ycsbHelp}, {[]string{"run", "-h"}, ycsbHelp},
		{[]string{"load", "--help"}, ycsbHelp}, {[]string{"load", "-h"}, ycsbHelp},
		{[]string{"run", "ysql", "-h"}, ycsbHelp}, {[]string{"run", "ysql", "--help"}, ycsbHelp},
		{[]string{"load", "ycql", "-P", "no-such-file", "-p", "threadcount=2", "-help"}, ycsbHelp},
		{[]string{"help", "run"}, ycsbHelp}, {[]string{"help", "load"}, ycsbHelp},
		{[]string{"kv", "--help"}, kvHelp}, {[]string{"kv", "-h"}, kvHelp}, {[]string{"help", "kv"}, kvHelp},
		{[]string{"kv", "--help", "CassandraKeyValue"}, kvOne},
		{[]string{"kv", "--workload", "CassandraBatchKeyValue", "--help"}, kvBatch},
		{[]string{"sysbench", "--help"}, sbHelp}, {[]string{"sysbench", "-h"}, sbHelp},
		{[]string{"sysbench", "help"}, sbHelp}, {[]string{"help", "sysbench"}, sbHelp},
		{[]string{"sysbench", "oltp_read_only", "help"}, sbHelp},
		{[]string{"sysbench", "oltp_point_select", "--help"}, sbHelp},
		{[]string{"sysbench", "--compat=1.0.20", "--help"}, sbHelp},
	} {
		code, out, errs := runBinary(t, c.args...)
		if code != 0 || !strings.HasPrefix(out, c.want) || errs != "" {
			t.Errorf("ybload %s: exit %d, stdout %.60q, stderr %q; want 0, %q…, nothing", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// The YCSB help names every binding the agent accepts (its short names).
func TestBinaryHelpNamesBindings(t *testing.T) {
	_, out, _ := runBinary(t, "run", "--help")
	for name := range bindings() {
		if !strings.Contains(name, ".") && !strings.Contains(out, name) {
			t.Errorf("ybload run --help does not name the binding %s", name)
		}
	}
}

// Bad input still goes to stderr with exit 2 and nothing on stdout: a
// bad flag, a missing argument, an unknown command.
func TestBinaryUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: ybload <command>"},
		{[]string{"bench"}, `unknown command "bench"`},
		{[]string{"help", "bench"}, `unknown command "bench"`},
		{[]string{"run"}, "ybload run --help lists the options"},
		{[]string{"run", "ysql", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"kv", "--bogus"}, "unknown flag --bogus"},
		{[]string{"kv", "--help", "RedisKeyValue"}, "RedisKeyValue"},
		{[]string{"kv"}, "--workload is required"},
		{[]string{"sysbench"}, "missing the workload and the command"},
		{[]string{"sysbench", "oltp_read_only", "run", "--bogus=1"}, "invalid option: --bogus=1"},
		{[]string{"sysbench", "--compat=2", "--help"}, "--compat=2"},
	} {
		code, out, errs := runBinary(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("ybload %s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// The overview is golden: a change to it is seen in review.
func TestUsageGolden(t *testing.T) {
	golden.Check(t, "usage.txt", []byte(usage()))
}
