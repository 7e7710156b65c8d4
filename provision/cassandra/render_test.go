package cassandra

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/internal/testenv"
)

// sampleCluster: db1 a shared local host, db2 a host of our own with two
// data dirs, db3 plain; one client.
func sampleCluster() *infra.Cluster {
	return &infra.Cluster{Name: "r1", Hosts: []infra.Host{
		{Name: "db1", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.213.0.2", Base: "/runs/r1/hosts/db1", ServiceUser: "ybbench", Shared: true},
		{Name: "db2", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.0.0.2", Base: "/opt/ybbench", DataDirs: []string{"/mnt/d0", "/mnt/d1"}, ServiceUser: "ybbench"},
		{Name: "db3", Roles: []infra.Role{infra.RoleDB}, PrivateIP: "10.0.0.3", Base: "/opt/ybbench", ServiceUser: "ybbench"},
		{Name: "client1", Roles: []infra.Role{infra.RoleClient}, PrivateIP: "10.0.0.9", Base: "/opt/ybbench"},
	}}
}

// sampleArtifacts stands for an artifact cache as readSource reads it.
func sampleArtifacts() artifacts {
	return artifacts{Dir: "/root/.cache/ybbench/cassandra/5.0.9/home", Version: "5.0.9", Jar: "lib/cassandra-all-5.0.9.jar",
		Jamm: "lib/jamm-0.4.0.jar", Options: []string{"-XX:+UseG1GC", "-Xss256k", "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"}}
}

func TestRenderedScriptsGolden(t *testing.T) {
	c := sampleCluster()
	db1, db2 := c.Hosts[0], c.Hosts[1]
	l1, l2 := layoutOf(db1), layoutOf(db2)
	a := sampleArtifacts()
	yamlText, err := renderYAML(nodeYAML(db1, "ybbench-r1", Tokens(3)[0], db1.PrivateIP, false, nil))
	if err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("ab", 32)
	cases := []struct {
		name   string
		render func() (string, error)
	}{
		{"prepare-shared", func() (string, error) {
			return renderPrepare(prepareData{Host: "db1", User: "ybbench", Shared: true, RunID: "r1", Version: "v0.9.0", layout: l1})
		}},
		{"prepare-own", func() (string, error) {
			return renderPrepare(prepareData{Host: "db2", User: "ybbench", Java: "/opt/jdk-17/bin/java", RunID: "r1", Version: "v0.9.0", layout: l2})
		}},
		{"install", func() (string, error) {
			return renderInstall(installData{Host: "db2", User: "ybbench", Tarball: l2.Dist + "/cassandra-5.0.9-0123456789abcdef.tar.gz",
				SHA256: sha, Jar: a.Jar, JavaBin: "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", layout: l2})
		}},
		{"start", func() (string, error) {
			return renderStart(startData{Host: "db1", User: "ybbench", Address: db1.PrivateIP, NativePort: NativePort, StoragePort: StoragePort,
				Grace: 60, YAML: yamlText, Command: command("/usr/lib/jvm/java-17-openjdk-amd64/bin/java", l1, a, "512M", 5*time.Second), layout: l1})
		}},
		{"stop", func() (string, error) { return renderStop(stopData{Host: "db1", Grace: 60, RunID: "r1", layout: l1}) }},
		{"wipe", func() (string, error) { return renderWipe(stopData{Host: "db1", Grace: 60, RunID: "r1", layout: l1}) }},
		{"wipe-datadirs", func() (string, error) { return renderWipe(stopData{Host: "db2", Grace: 60, RunID: "r1", layout: l2}) }},
		{"status", func() (string, error) { return renderStatus(stopData{Host: "db1", layout: l1}) }},
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

func TestRenderedYAMLGolden(t *testing.T) {
	c := sampleCluster()
	dbs := c.ByRole(infra.RoleDB)
	tokens := Tokens(len(dbs))
	overrides := map[string]string{"concurrent_writes": "64", "memtable_allocation_type": "offheap_objects"}
	for i, h := range dbs {
		got, err := renderYAML(nodeYAML(h, clusterName(c.Name), tokens[i], dbs[0].PrivateIP, false, overrides))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "cassandra-"+h.Name+".yaml"+".golden", []byte(got))
		flat, err := flattenYAML(got)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]string{
			"num_tokens": "1", "initial_token": tokens[i], "auto_bootstrap": "false", "seed_provider": "10.213.0.2:7000",
			"listen_address": h.PrivateIP, "rpc_address": h.PrivateIP, "native_transport_port": "9042", "storage_port": "7000",
			"authenticator": "PasswordAuthenticator", "authorizer": "AllowAllAuthorizer", "concurrent_writes": "64", "memtable_allocation_type": "offheap_objects",
			"commitlog_sync_period": "10000ms", "cluster_name": "ybbench-r1",
		} {
			if flat[k] != want {
				t.Errorf("%s: %s = %q, want %q", h.Name, k, flat[k], want)
			}
		}
		// Data in the data dirs' own directories (or Root/data), one data
		// directory per data dir.
		if want := len(layoutOf(h).DataRoots); strings.Count(flat["data_file_directories"], ",")+1 != want {
			t.Errorf("%s: data_file_directories %q, want %d", h.Name, flat["data_file_directories"], want)
		}
	}
}

// TestYAMLKeepsHostileValues renders a yaml whose strings are full of YAML
// syntax and parses it back: each value must come back exactly, and no
// key may be added.
func TestYAMLKeepsHostileValues(t *testing.T) {
	d := nodeYAML(infra.Host{Name: "h", PrivateIP: "10.0.0.1", Base: "/b"}, "x\": y\nauthenticator: PasswordAuthenticator #", "0", "10.0.0.1", true, nil)
	d.Host = "h\n- [evil]"
	got, err := renderYAML(d)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if doc["cluster_name"] != d.ClusterName || doc["authenticator"] != "AllowAllAuthenticator" {
		t.Errorf("cluster_name %q, authenticator %q", doc["cluster_name"], doc["authenticator"])
	}
	// raw refuses anything but a plain token.
	d.Tunables = []kv{{"concurrent_reads", "8\nauthenticator: x"}}
	if _, err := renderYAML(d); err == nil {
		t.Errorf("raw wrote a value with a newline")
	}
}

// TestTemplatesQuoteEveryValue walks every template: each action that
// prints must end in q or qjoin (scripts) or y or raw (the yaml), so no
// value reaches bash or the yaml unquoted, whatever later edits add.
func TestTemplatesQuoteEveryValue(t *testing.T) {
	entries, err := scriptFS.ReadDir("scripts")
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, e := range entries {
		text, err := scriptFS.ReadFile("scripts/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		allowed := map[string]bool{"q": true, "qjoin": true}
		funcs := template.FuncMap{"q": strings.ToUpper, "qjoin": strings.Join}
		if strings.HasSuffix(e.Name(), ".yaml.tmpl") {
			allowed = map[string]bool{"y": true, "raw": true}
			funcs = yamlFuncs
		}
		tmpl, err := template.New(e.Name()).Funcs(funcs).Parse(string(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tmpl.Templates() {
			if tt.Tree == nil {
				continue
			}
			count++
			walkActions(t, e.Name(), tt.Tree.Root, allowed)
		}
	}
	if count < 9 {
		t.Errorf("walked %d templates, want every scripts/*.tmpl and lib", count)
	}
}

func walkActions(t *testing.T, name string, n parse.Node, allowed map[string]bool) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkActions(t, name, c, allowed)
		}
	case *parse.ActionNode:
		cmds := n.Pipe.Cmds
		last := cmds[len(cmds)-1]
		id, ok := last.Args[0].(*parse.IdentifierNode)
		if len(n.Pipe.Decl) > 0 || !ok || !allowed[id.Ident] {
			t.Errorf("%s: %s prints a value that is not quoted", name, n)
		}
	case *parse.IfNode:
		walkActions(t, name, n.List, allowed)
		walkActions(t, name, n.ElseList, allowed)
	case *parse.RangeNode:
		walkActions(t, name, n.List, allowed)
		walkActions(t, name, n.ElseList, allowed)
	case *parse.WithNode:
		walkActions(t, name, n.List, allowed)
		walkActions(t, name, n.ElseList, allowed)
	case *parse.TextNode, *parse.TemplateNode, *parse.CommentNode:
	default:
		t.Errorf("%s: unexpected node %T (%s): extend this check", name, n, n)
	}
}

// TestStartScriptKeepsHostileValues renders the start script with a yaml
// and a command line full of shell syntax and has bash evaluate its
// assignments: every value must come back exactly.
func TestStartScriptKeepsHostileValues(t *testing.T) {
	testenv.Need(t, testenv.OnPath("bash"), "no bash on PATH")
	h := infra.Host{Name: "h;1 $(id)", PrivateIP: "10.0.0.1", Base: "/tmp/b", ServiceUser: "yb"}
	l := layoutOf(h)
	yamlText := "cluster_name: \"it's $(touch /tmp/pwned) `id`\"\n# end\n"
	cmd := []string{"/usr/bin/java", "-Dx=$(touch /tmp/pwned)", "-Dy=it's \"q\" ; rm -rf / #", "-Dz=a\nb", "-cp", "/c:/h/lib/*"}
	script, err := renderStart(startData{Host: h.Name, User: h.ServiceUser, Address: h.PrivateIP, NativePort: 9042, StoragePort: 7000,
		Grace: 1, YAML: yamlText, Command: cmd, layout: l})
	if err != nil {
		t.Fatal(err)
	}
	golden.BashSyntax(t, "hostile start", script)
	i := strings.Index(script, "\nhost=")
	j := strings.Index(script[i:], "\n)\n")
	if i < 0 || j < 0 {
		t.Fatalf("no assignments in:\n%s", script)
	}
	prog := script[i:i+j+3] + `printf '%s\0' "$host" "$yaml" "$pidfile" "${cmd[@]}"`
	out, err := exec.Command("bash", "-c", prog).Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, prog)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	want := append([]string{h.Name, yamlText, l.PIDFile}, cmd...)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("values came back changed:\n got %q\nwant %q", got, want)
	}
}

// Everything the flavor writes is inside the run's own directories:
// Base/ybbench/cassandra and <data dir>/ybbench/cassandra, never a
// <data dir>/cassandra a user (or a distribution's package) may have.
func TestLayoutKeepsEverythingInTheOwnDirectories(t *testing.T) {
	hosts := sampleCluster().ByRole(infra.RoleDB)
	// A data dir that is the base itself: the data still has a directory
	// of its own, inside the run's.
	hosts = append(hosts, infra.Host{Name: "db4", Base: "/srv/yb", DataDirs: []string{"/srv/yb", "/mnt/d0"}})
	for _, h := range hosts {
		l := layoutOf(h)
		for _, p := range []string{l.Root, l.Dist, l.Home, l.Conf, l.Logs, l.Run, l.Tmp, l.PIDFile, l.Out, l.Log} {
			if !strings.HasPrefix(p, h.Base+"/ybbench/cassandra") {
				t.Errorf("%s: %s is outside Base/ybbench/cassandra", h.Name, p)
			}
		}
		var want []string
		for _, d := range h.DataDirs {
			if d == h.Base {
				want = append(want, h.Base+"/ybbench/cassandra/data")
			} else {
				want = append(want, d+"/ybbench/cassandra")
			}
		}
		if len(want) == 0 {
			want = []string{h.Base + "/ybbench/cassandra/data"}
		}
		if strings.Join(l.DataRoots, " ") != strings.Join(want, " ") {
			t.Errorf("%s: data roots %v, want %v", h.Name, l.DataRoots, want)
		}
		for _, r := range l.DataRoots {
			if slices.Contains(h.DataDirs, filepath.Dir(r)) || r == filepath.Join(h.Base, "cassandra") {
				t.Errorf("%s: data root %s is not inside an own directory", h.Name, r)
			}
		}
		// Base and each data dir once: what Claim and Release get.
		wantParents := []string{h.Base}
		for _, d := range h.DataDirs {
			if !slices.Contains(wantParents, d) {
				wantParents = append(wantParents, d)
			}
		}
		if strings.Join(l.Parents, " ") != strings.Join(wantParents, " ") {
			t.Errorf("%s: parents %v, want %v", h.Name, l.Parents, wantParents)
		}
	}
}

func TestCommandLine(t *testing.T) {
	h := sampleCluster().Hosts[0]
	l := layoutOf(h)
	cmd := command("/usr/bin/java", l, sampleArtifacts(), "1G", 5*time.Second)
	line := strings.Join(cmd, " ")
	for _, want := range []string{
		"/usr/bin/java -XX:+UseG1GC -Xss256k --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -Xms1G -Xmx1G ",
		"-javaagent:/runs/r1/hosts/db1/ybbench/cassandra/home/lib/jamm-0.4.0.jar",
		"-Dcassandra.config=file:///runs/r1/hosts/db1/ybbench/cassandra/conf/cassandra.yaml",
		"-Dcassandra-foreground=yes", "-Dcassandra.skip_wait_for_gossip_to_settle=0", "-Dcassandra.ring_delay_ms=5000",
		"-Djava.io.tmpdir=/runs/r1/hosts/db1/ybbench/cassandra/tmp",
		"-cp /runs/r1/hosts/db1/ybbench/cassandra/conf:/runs/r1/hosts/db1/ybbench/cassandra/home/lib/* org.apache.cassandra.service.CassandraDaemon",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("command line lacks %q:\n%s", want, line)
		}
	}
	// JMX stays off: no JMX port property.
	if strings.Contains(line, "jmx") {
		t.Errorf("JMX enabled: %s", line)
	}
}
