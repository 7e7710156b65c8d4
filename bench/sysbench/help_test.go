package sysbench

import (
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

// The help of each mode is golden: a change to it is seen in review.
func TestHelpGolden(t *testing.T) {
	golden.Check(t, "help-fork.txt", []byte(Help(ModeFork)))
	golden.Check(t, "help-1.0.20.txt", []byte(Help(Mode1020)))
}

// Every way of asking sysbench (and ybload) for help prints the options of
// the --compat mode on standard output only and exits 0, whatever else is
// on the line; a bad --compat beside it, and a bad option without it, exit
// 2 on standard error.
func TestMainHelpForms(t *testing.T) {
	for _, c := range []struct {
		args   []string
		compat string
	}{
		{[]string{"--help"}, "yb"},
		{[]string{"-h"}, "yb"},
		{[]string{"help"}, "yb"},
		{[]string{"--help=on"}, "yb"},
		{[]string{"oltp_read_only", "help"}, "yb"},
		{[]string{"oltp_read_only", "--help"}, "yb"},
		{[]string{"oltp_read_only", "--threads=many", "run", "-h"}, "yb"},
		{[]string{"--compat=1.0.20", "--help"}, "1.0.20"},
		{[]string{"oltp_read_write", "help", "--compat=1.0.20"}, "1.0.20"},
	} {
		code, out, errs := mainFor(c.args...)
		if code != 0 || !strings.HasPrefix(out, "Usage: ybload sysbench <workload>") || !strings.Contains(out, "(here --compat="+c.compat+")") || errs != "" {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q", c.args, code, out, errs)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compat=0.5", "--help"}, "--compat=0.5"},
		{[]string{"--help=off"}, "invalid option: --help=off"},
		{[]string{"oltp_read_only", "run", "--bogus=1"}, "invalid option: --bogus=1"},
		{[]string{"oltp_read_only"}, "missing the command after oltp_read_only"},
	} {
		code, out, errs := mainFor(c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}
