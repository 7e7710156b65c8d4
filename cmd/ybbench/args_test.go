package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline/parts"
)

// ybbenchIn runs the command line in this process and returns its exit
// code and what it printed.
func ybbenchIn(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return ybbenchWithRegistry(t, parts.Builtin(), args...)
}

// ybbenchWithRegistry is ybbenchIn with the parts of reg: how a test gives
// a provider a module with files of its own, or a seam only tests reach.
func ybbenchWithRegistry(t *testing.T, reg *parts.Registry, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	root := newRootWith(&out, &out, reg)
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		out.WriteString("\nerror: " + err.Error())
	}
	return exitcode.Of(err), out.String()
}

// No argument is ignored: each is taken, or refused with exit 2.
func TestNoArgumentIsIgnored(t *testing.T) {
	t.Setenv("YBBENCH_TERRAFORM", versionOnly(t, "1.5.7")) // plan --local checks it
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		// The profile as the one positional argument of plan (and run, up).
		{[]string{"plan", "sysbench-ysql", "--local", "--quick"}, 0, "oltp_read_only"},
		{[]string{"plan", "kv-ycql", "--local"}, 0, "CassandraKeyValue"},
		{[]string{"plan", "kv-ycql", "--profile", "kv-ycql", "--local"}, 0, "CassandraKeyValue"},
		{[]string{"plan", "kv-ycql", "--profile", "ycsb-ysql", "--local"}, 2, `the profile is given twice: "kv-ycql" and --profile ycsb-ysql`},
		{[]string{"plan", "kv-ycql", "ycsb-ysql", "--local"}, 2, "takes one argument, the profile"},
		{[]string{"plan", "no-such-profile", "--local"}, 2, "no-such-profile"},
		{[]string{"run", "a", "b"}, 2, "takes one argument, the profile"},
		// Commands that take no argument refuse one.
		{[]string{"down", "runs/x"}, 2, `ybbench down takes no argument, got ["runs/x"]`},
		{[]string{"status", "x"}, 2, "takes no argument"},
		{[]string{"version", "x"}, 2, "takes no argument"},
		// Unknown commands and flags are bad input.
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate" for ybbench`},
		{[]string{"plan", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"--bogus"}, 2, "unknown flag: --bogus"},
		// profiles NAME shows that one.
		{[]string{"profiles", "kv-ycql"}, 0, "kv-ycql: key-value"},
		{[]string{"profiles", "nope"}, 2, `no profile "nope"`},
	} {
		code, out := ybbenchIn(t, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("ybbench %s: exit %d, want %d with %q:\n%s", strings.Join(c.args, " "), code, c.code, c.want, out)
		}
	}
	// The positional profile is the one planned, not the default.
	if _, out := ybbenchIn(t, "plan", "sysbench-ysql", "--local"); strings.Contains(out, "ycsb") {
		t.Errorf("plan sysbench-ysql printed a YCSB plan:\n%s", out)
	}
	if _, out := ybbenchIn(t, "profiles", "kv-ycql"); strings.Contains(out, "ycsb-ysql") {
		t.Errorf("profiles kv-ycql listed others:\n%s", out)
	}
	if code, out := ybbenchIn(t); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("ybbench alone: exit %d, want its help:\n%s", code, out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out := ybbenchIn(t, args...)
		if code != 0 || !strings.HasPrefix(out, "ybbench "+version+" (") || !strings.Contains(out, runtime.Version()) || !strings.Contains(out, "commit") {
			t.Errorf("ybbench %s: exit %d: %q", args[0], code, out)
		}
	}
}
