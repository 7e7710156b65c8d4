package ycsb

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

// The YCSB mode's help is golden: a change to it is seen in review.
func TestUsageGolden(t *testing.T) {
	golden.Check(t, "usage.txt", []byte(Usage()))
}

// Every way of asking for help, in the binding's place or among the
// options, prints the usage on standard output, nothing on standard error,
// and exits 0 without reading a file; a bad flag and a missing binding
// still exit 2 on standard error.
func TestMainHelp(t *testing.T) {
	unread := func(name string) ([]byte, error) {
		t.Errorf("help read %s", name)
		return nil, nil
	}
	for _, args := range [][]string{
		{"run", "--help"}, {"run", "-h"}, {"load", "-help"},
		{"run", "ysql", "-h"}, {"run", "ysql", "--help"}, {"load", "jdbc", "-P", "db.properties", "-p", "threadcount=4", "--help"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &Env{Stdout: &out, Stderr: &errb, ReadFile: unread})
		if code != 0 || !strings.HasPrefix(out.String(), "Usage: ybload load|run <binding>") || errb.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "ysql", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"run"}, "ybload run --help lists the options"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), c.args, &Env{Stdout: &out, Stderr: &errb, ReadFile: unread})
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out.String(), errb.String(), c.want)
		}
	}
}
