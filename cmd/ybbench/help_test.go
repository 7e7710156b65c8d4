package main

import (
	"strings"
	"testing"
)

// Every command's help shows an example of it, and flags show what they
// hold rather than "string": the settings their type, --spec a path,
// --run a directory or id; --db-hosts says it is a count, and the
// defaults users ask about are shown.
func TestHelpShowsExamplesAndTypes(t *testing.T) {
	root := newRoot(nil, nil)
	cmds := root.Commands()
	for i := 0; i < len(cmds); i++ {
		c := cmds[i]
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		cmds = append(cmds, c.Commands()...)
		path := strings.Fields(strings.TrimPrefix(c.CommandPath(), "ybbench "))
		_, out := ybbenchIn(t, append(path, "--help")...)
		if !strings.Contains(out, "Examples:\n  ybbench "+strings.Join(path, " ")) {
			t.Errorf("ybbench %s --help has no example of it:\n%s", strings.Join(path, " "), out)
		}
		if strings.Contains(out, " string ") {
			t.Errorf("ybbench %s --help shows a flag of type string:\n%s", strings.Join(path, " "), out)
		}
	}
	_, run := ybbenchIn(t, "run", "--help")
	for _, w := range []string{"--spec path", "--threads integer", "--duration duration", "--max-clock-skew duration",
		"--db-hosts integer                         how many db hosts", "default ycsb-ysql", "default 10.213.0.0/24", "default runs;", "default 250ms"} {
		if !strings.Contains(run, w) {
			t.Errorf("run --help lacks %q:\n%s", w, run)
		}
	}
	if _, down := ybbenchIn(t, "down", "--help"); !strings.Contains(down, "--run dir-or-id") {
		t.Errorf("down --help:\n%s", down)
	}
}
