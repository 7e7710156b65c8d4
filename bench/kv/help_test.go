package kv

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

// The flag table is consistent with the parser's other lists: each name
// once, the refused flags exactly those the parser refuses, the flags
// without effect known to it.
func TestFlagDefs(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range flagDefs {
		if seen[d.name] {
			t.Errorf("--%s is listed twice", d.name)
		}
		seen[d.name] = true
		if _, refused := unsupported[d.name]; refused != (d.group == groupRefused) {
			t.Errorf("--%s: refused by the parser %v, in the help's refused group %v", d.name, refused, d.group == groupRefused)
		}
		if (d.kind == kindBool) != (d.arg == "") || d.help == "" {
			t.Errorf("--%s: kind %v, arg %q, help %q", d.name, d.kind, d.arg, d.help)
		}
	}
	for name := range noEffect {
		if !seen[name] {
			t.Errorf("--%s has no effect but is not a flag", name)
		}
	}
}

// The help texts are golden: a change to them is seen in review.
func TestHelpGolden(t *testing.T) {
	for file, workload := range map[string]string{"help.txt": "", "help-batch.txt": WorkloadBatchKV, "help-kv.txt": WorkloadKV} {
		text, err := Help(workload)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, file, []byte(text))
	}
	if _, err := Help("CassandraTimeseries"); err == nil {
		t.Error("help of a workload ybload does not run")
	}
}

// Help is asked for as yb-sample-apps is (--help, --help <workload>), and
// with -h; a flag's value that looks like a help flag is not a request.
func TestHelpRequest(t *testing.T) {
	for _, c := range []struct {
		args     []string
		asked    bool
		workload string
	}{
		{[]string{"--help"}, true, ""},
		{[]string{"-h"}, true, ""},
		{[]string{"--help", WorkloadKV}, true, WorkloadKV},
		{[]string{"--help=" + WorkloadBatchKV}, true, WorkloadBatchKV},
		{[]string{"--workload", WorkloadBatchKV, "--nodes", "h:9042", "--help"}, true, WorkloadBatchKV},
		{[]string{"--help", "--nodes", "h:9042"}, true, ""},
		{[]string{"--password", "-h", "--workload", WorkloadKV}, false, WorkloadKV},
		{[]string{"--workload", WorkloadKV}, false, WorkloadKV},
		{nil, false, ""},
	} {
		w, asked := helpRequest(c.args)
		if asked != c.asked || (asked && w != c.workload) {
			t.Errorf("%q: asked %v for %q, want %v for %q", c.args, asked, w, c.asked, c.workload)
		}
	}
}

// Asked for help, Main prints it on standard output only and exits 0,
// whatever else is on the line; an unknown workload's help and a bad flag
// exit 2 on standard error.
func TestMainHelp(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &Env{Stdout: &out, Stderr: &errb})
		return code, out.String(), errb.String()
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"--help", WorkloadKV}, {"--workload", WorkloadKV, "--value_size", "-5", "--help"}} {
		code, out, errs := run(args...)
		if code != 0 || !strings.HasPrefix(out, "Usage: ybload kv --workload") || errs != "" {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q", args, code, out, errs)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help", "RedisKeyValue"}, "--help RedisKeyValue"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
	} {
		code, out, errs := run(c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}
