package main

import (
	"runtime"
	"strings"
	"testing"
)

// The built binary, stdout and stderr apart: help goes to stdout with
// exit 0, bad input to stderr with exit 2, and nothing cobra adds by itself
// (help, completion, --version) ignores an argument.
func TestCLIHelpVersionAndRefusals(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"help", "run"}, {"plan", "-h"}, {"runs", "--help"}, {}} {
		r := cli(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:") || r.stderr != "" {
			t.Errorf("ybbench %q: exit %d, stdout %d bytes, stderr %q; want 0, the usage on stdout, nothing on stderr", args, r.code, len(r.stdout), r.stderr)
		}
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := cli(t, nil, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "ybbench ") || !strings.Contains(r.stdout, runtime.Version()) || r.stderr != "" {
			t.Errorf("ybbench %q: exit %d, %q, %q", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "bogus"}, `unknown command "bogus"`},
		{[]string{"completion", "bogus"}, `unknown shell "bogus"`},
		{[]string{"--version", "extra"}, `unknown command "extra"`},
		{[]string{"version", "extra"}, "takes no argument"},
		{[]string{"--bogus"}, "unknown flag: --bogus (ybbench --help lists the flags)"},
		{[]string{"status", "--bogus"}, "unknown flag: --bogus (ybbench status --help lists the flags)"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"profiles", "nope"}, "nope"},
		{[]string{"runs", "--runs-dir", "/etc/passwd"}, "--runs-dir /etc/passwd: runs directory:"},
	} {
		r := cli(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("ybbench %q: exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}
