package yugabyte

import (
	"os/exec"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/internal/testenv"
)

func TestRenderedScriptsGolden(t *testing.T) {
	c := sampleCluster()
	db1, _ := c.Host("db1")
	db2, _ := c.Host("db2")
	l1, l2 := layoutOf(*db1), layoutOf(*db2)
	tarball := l1.Download + "/yugabyte-2.20.1.3-b3-linux-x86_64.tar.gz"
	topo := sampleTopology(flagSettings{})
	cases := []struct {
		name   string
		render func() (string, error)
	}{
		{"prepare", func() (string, error) {
			return renderPrepare(prepareData{Host: "db1", User: "yugabyte", THPDir: DefaultTHPDir, Tarball: tarball, RunID: "r1", Version: "v0.9", layout: l1})
		}},
		{"prepare-shared", func() (string, error) {
			return renderPrepare(prepareData{Host: "db2", User: "yugabyte", Shared: true, THPDir: DefaultTHPDir, Tarball: tarball, RunID: "r1", Version: "v0.9", layout: l2})
		}},
		{"install-upload", func() (string, error) {
			return renderInstall(installData{Host: "db1", User: "yugabyte", Tarball: tarball, SHA256: strings.Repeat("ab", 32), layout: l1})
		}},
		{"install-url", func() (string, error) {
			return renderInstall(installData{Host: "db1", User: "yugabyte", Tarball: tarball, Download: true, Proto: "=https",
				URL: "https://software.yugabyte.com/releases/2.20.1.3/yugabyte-2.20.1.3-b3-linux-x86_64.tar.gz?REDACTED", layout: l1})
		}},
		{"start-master", func() (string, error) {
			return renderStart(startData{Host: "db1", User: "yugabyte", Software: l1.Root + "/yugabyte-2.20.1.3",
				Flags: flagStrings(serverFlags(master, *db1, topo)), Limits: ulimits, proc: procOf(l1, master), layout: l1})
		}},
		{"start-tserver", func() (string, error) {
			return renderStart(startData{Host: "db1", User: "yugabyte", Software: l1.Root + "/yugabyte-2.20.1.3",
				Flags: flagStrings(serverFlags(tserver, *db1, topo)), Limits: ulimits, proc: procOf(l1, tserver), layout: l1})
		}},
		{"stop", func() (string, error) {
			return renderStop(stopData{Host: "db1", Grace: 30, Procs: []proc{procOf(l1, tserver), procOf(l1, master)}, RunID: "r1", layout: l1})
		}},
		{"auth", func() (string, error) {
			return renderAuth(authData{Host: "db1", Software: l1.Root + "/yugabyte-2.20.1.3", Addr: "10.0.0.1", YSQLPort: ysqlPort, YCQLPort: ycqlPort,
				YSQL: true, User: dbUser, Timeout: 300, layout: l1})
		}},
		{"auth-ycql-only", func() (string, error) {
			return renderAuth(authData{Host: "db2", Software: l2.Root + "/yugabyte-2.20.1.3", Addr: "10.0.0.2", YSQLPort: ysqlPort, YCQLPort: ycqlPort,
				User: dbUser, Timeout: 300, layout: l2})
		}},
		{"status", func() (string, error) {
			return renderStatus(stopData{Host: "db1", Procs: []proc{procOf(l1, master), procOf(l1, tserver)}, layout: l1})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.render()
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, c.name+".sh"+".golden", []byte(got))
			golden.BashSyntax(t, c.name, got)
		})
	}
}

// TestTemplatesQuoteEveryValue walks every template: each action that
// prints something must end in q or qjoin, so no value reaches bash
// unquoted, whatever later edits add.
func TestTemplatesQuoteEveryValue(t *testing.T) {
	var walk func(name string, n parse.Node)
	walk = func(name string, n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(name, c)
			}
		case *parse.ActionNode:
			cmds := n.Pipe.Cmds
			last := cmds[len(cmds)-1]
			id, ok := last.Args[0].(*parse.IdentifierNode)
			if len(n.Pipe.Decl) > 0 || !ok || (id.Ident != "q" && id.Ident != "qjoin") {
				t.Errorf("%s: %s prints a value that is not passed through q or qjoin", name, n)
			}
		case *parse.IfNode:
			walk(name, n.List)
			walk(name, n.ElseList)
		case *parse.RangeNode:
			walk(name, n.List)
			walk(name, n.ElseList)
		case *parse.WithNode:
			walk(name, n.List)
			walk(name, n.ElseList)
		case *parse.TextNode, *parse.TemplateNode, *parse.CommentNode:
		default:
			t.Errorf("%s: unexpected node %T (%s): extend this check", name, n, n)
		}
	}
	count := 0
	for _, tmpl := range scripts.Templates() {
		// "own" is provision's library of the run's directories, checked
		// (golden and through bash) in provision; it prints only its
		// fixed pattern list.
		if tmpl.Tree == nil || tmpl.Name() == "own" {
			continue
		}
		count++
		walk(tmpl.Name(), tmpl.Tree.Root)
	}
	if count < 7 {
		t.Errorf("walked %d templates, expected every scripts/*.sh.tmpl and lib", count)
	}
}

// TestStartScriptKeepsHostileValues renders the start script with flag
// values and paths full of shell syntax and has bash evaluate its
// variable and array assignments: every value must come back exactly.
func TestStartScriptKeepsHostileValues(t *testing.T) {
	testenv.Need(t, testenv.OnPath("bash"), "no bash on PATH")
	hostile := []string{"--ysql_hba_conf_csv=host all all 0.0.0.0/0 trust,local all yugabyte trust", "--x=$(touch /tmp/pwned)", "--y=it's \"q\" `id` ; rm -rf / #", "--z=a\nb"}
	base := "/tmp/base with space/$(id)/it's"
	h := infra.Host{Name: "h;1", PrivateIP: "10.0.0.1", Base: base, ServiceUser: "yb"}
	l := layoutOf(h)
	script, err := renderStart(startData{Host: h.Name, User: h.ServiceUser, Software: l.Root + "/yugabyte-1", Flags: hostile, Limits: ulimits, proc: procOf(l, master), layout: l})
	if err != nil {
		t.Fatal(err)
	}
	golden.BashSyntax(t, "hostile start", script)
	// Keep the assignments (from host= to the closing parenthesis of
	// flags), then print them back NUL-separated.
	i := strings.Index(script, "\nhost=")
	j := strings.Index(script[i:], "\n)\n")
	if i < 0 || j < 0 {
		t.Fatalf("no assignments found in:\n%s", script)
	}
	prog := script[i:i+j+3] + `printf '%s\0' "$host" "$root" "$pidfile" "$bin" "${flags[@]}"`
	out, err := exec.Command("bash", "-c", prog).Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, prog)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	want := append([]string{h.Name, l.Root, procOf(l, master).PIDFile, l.Root + "/yugabyte-1/bin/yb-master"}, hostile...)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("values came back changed:\n got %q\nwant %q", got, want)
	}
}
