package inventory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func key(t *testing.T, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "id")
	os.WriteFile(p, []byte("key"), mode)
	return p
}

func TestValidInventory(t *testing.T) {
	k := key(t, 0o600)
	src := "defaults:\n  ssh: {user: ubuntu, key: " + k + "}\n  base: /srv/yb\nhosts:\n" +
		"  - {name: db1, roles: [db], address: 10.0.0.1}\n" +
		"  - {name: db2, roles: [db], address: 10.0.0.2, private_address: 192.168.0.2, ssh: {port: 2222}}\n" +
		"  - {name: client1, roles: [client], address: loadgen.example.com, data_dirs: [/mnt/d0]}\n"
	hosts, err := Parse("hosts.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 3 || hosts[1].SSH.Port != 2222 || hosts[1].PrivateIP != "192.168.0.2" || hosts[0].PrivateIP != "10.0.0.1" {
		t.Errorf("%+v", hosts)
	}
	if hosts[0].SSH.User != "ubuntu" || hosts[0].Base != "/srv/yb" || hosts[0].ServiceUser != "ybbench" || hosts[2].SSH.Port != 22 {
		t.Errorf("defaults not applied: %+v", hosts[0])
	}
}

// A table of bad files: each error names the file, the line and the field.
func TestBadInventories(t *testing.T) {
	k := key(t, 0o600)
	loose := key(t, 0o644)
	h := func(extra string) string {
		return "hosts:\n  - name: db1\n    roles: [db]\n    address: 10.0.0.1\n    ssh: {key: " + k + "}\n  - name: client1\n    roles: [client]\n    address: 10.0.0.9\n    ssh: {key: " + k + "}\n" + extra
	}
	cases := []struct {
		name, src, want string
	}{
		{"unknown field", h("    colour: red\n"), "hosts.yaml:10: hosts[1].colour: unknown field"},
		{"bad port", strings.Replace(h(""), "ssh: {key: "+k+"}\n  - name: client1", "ssh: {key: "+k+", port: 70000}\n  - name: client1", 1), "hosts.yaml:5: hosts[0].ssh.port: 70000 is not a port"},
		{"duplicate name", strings.Replace(h(""), "name: client1", "name: db1", 1), "hosts.yaml:6: hosts[1].name: \"db1\" is already the name of hosts[0]"},
		{"unknown role", strings.Replace(h(""), "roles: [client]", "roles: [client, witness]", 1), "hosts.yaml:7: hosts[1].roles: unknown role \"witness\""},
		{"no client", strings.Replace(h(""), "roles: [client]", "roles: [db]", 1), "hosts: no host has the client role"},
		{"missing address", strings.Replace(h(""), "    address: 10.0.0.9\n", "", 1), "hosts[1].address: missing"},
		{"bad address", strings.Replace(h(""), "10.0.0.9", "not_a host!", 1), "hosts.yaml:8: hosts[1].address: \"not_a host!\" is neither"},
		{"loose key", strings.Replace(h(""), "ssh: {key: "+k+"}\n  - name: client1", "ssh: {key: "+loose+"}\n  - name: client1", 1), "hosts[0].ssh.key: " + loose + " is readable by others"},
		{"relative base", h("    base: opt/yb\n"), "hosts.yaml:10: hosts[1].base: \"opt/yb\": not an absolute path"},
		{"client base in a system tree", h("    base: /usr/local\n"), "hosts.yaml:10: hosts[1].base: \"/usr/local\": inside the system tree /usr"},
		{"client base is /", h("    base: /\n"), "hosts.yaml:10: hosts[1].base: \"/\": a system directory"},
		{"data dir a system directory", h("    data_dirs: [/mnt/d0, /var/lib]\n"), "hosts.yaml:10: hosts[1].data_dirs[1]: \"/var/lib\": a system directory"},
		{"root service user", h("    service_user: root\n"), "hosts[1].service_user: \"root\": database servers need an unprivileged user"},
		{"empty", "hosts: []\n", "hosts: the inventory lists no hosts"},
		{"not yaml", "hosts: [\n", "hosts.yaml:1: did not find expected node content"},
		{"empty file", "", "hosts.yaml: the file is empty: the inventory lists no hosts"},
		{"comments only", "# nothing yet\n", "hosts.yaml: the file is empty: the inventory lists no hosts"},
		{"port not a number", strings.Replace(h(""), "ssh: {key: "+k+"}\n  - name: client1", "ssh: {key: "+k+", port: abc}\n  - name: client1", 1), "hosts.yaml:5: cannot unmarshal !!str `abc`"},
		{"key is a directory", strings.Replace(h(""), "ssh: {key: "+k+"}\n  - name: client1", "ssh: {key: "+filepath.Dir(k)+"}\n  - name: client1", 1), "hosts[0].ssh.key: " + filepath.Dir(k) + " is not a file"},
		{"host fields in defaults", "defaults:\n  name: db9\n  address: 10.0.0.5\n" + h(""), "hosts.yaml:2: defaults.name: belongs to a host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("hosts.yaml", []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
}

// A relative ssh.key is relative to the inventory file, and kept absolute.
func TestRelativeKeyIsRelativeToTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "id"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "defaults:\n  ssh: {key: id}\nhosts:\n  - {name: db1, roles: [db], address: 10.0.0.1}\n  - {name: c1, roles: [client], address: 10.0.0.2}\n"
	hosts, err := Parse(filepath.Join(dir, "hosts.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "id"); hosts[0].SSH.KeyFile != want {
		t.Errorf("key %q, want %q", hosts[0].SSH.KeyFile, want)
	}
}

// Inventory errors read well: a problem of the defaults is said once, at
// its own line, not once per host; a tab is named as such with its line
// and column; no error points at a line 0.
func TestInventoryErrorsReadWell(t *testing.T) {
	k := key(t, 0o600)
	loose := key(t, 0o644)
	three := "hosts:\n  - {name: db1, roles: [db], address: 10.0.0.1}\n  - {name: db2, roles: [db], address: 10.0.0.2}\n  - {name: c1, roles: [client], address: 10.0.0.9}\n"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"a loose key in the defaults", "defaults:\n  ssh:\n    key: " + loose + "\n" + three,
			[]string{"hosts.yaml:3: defaults.ssh.key: " + loose + " is readable by others"}},
		{"a system base and a bad port in the defaults", "defaults:\n  ssh: {key: " + k + ", port: 99999}\n  base: /usr\n" + three,
			[]string{"hosts.yaml:2: defaults.ssh.port: 99999 is not a port", `hosts.yaml:3: defaults.base: "/usr"`}},
		{"a host's own value is its own", "defaults:\n  ssh: {key: " + k + "}\n" + strings.Replace(three, "address: 10.0.0.2}", "address: 10.0.0.2, base: /usr}", 1),
			[]string{`hosts.yaml:5: hosts[1].base: "/usr"`}},
		{"a tab", "defaults:\n  ssh: {key: " + k + "}\nhosts:\n\t- {name: db1, roles: [db], address: 10.0.0.1}\n",
			[]string{"hosts.yaml:4:1: tabs are not allowed in YAML; use spaces"}},
		{"a tab after spaces", "hosts:\n  - name: db1\n  \troles: [db]\n",
			[]string{"hosts.yaml:3:3: tabs are not allowed in YAML; use spaces"}},
		{"empty", "", []string{"hosts.yaml: the file is empty"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("hosts.yaml", []byte(c.src))
			if err == nil {
				t.Fatal("accepted")
			}
			got := err.Error()
			for _, w := range c.want {
				if strings.Count(got, w) != 1 {
					t.Errorf("%q is in the error %d times, want once:\n%s", w, strings.Count(got, w), got)
				}
			}
			if n := strings.Count(got, "\n") + 1; n != len(c.want) {
				t.Errorf("%d problems, want %d:\n%s", n, len(c.want), got)
			}
			if strings.Contains(got, ":0:") {
				t.Errorf("an error points at line 0:\n%s", got)
			}
		})
	}
}

// An unknown field does not hide the other problems of the file: they are
// reported together, each at its line.
func TestUnknownFieldWithOtherProblems(t *testing.T) {
	k := key(t, 0o600)
	src := "defaults:\n  ssh:\n    bogus: 1\n    key: " + k + "\nhosts:\n  - name: db1\n    address: 10.0.0.1\n  - name: client1\n    roles: [client]\n    address: 10.0.0.9\n"
	_, err := Parse("inv.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"inv.yaml:3: defaults.ssh.bogus: unknown field", "no host has the db role"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant %q", err, want)
		}
	}
}

// An unknown field is named by its path in the file, as the other
// problems are: in a host of the list, in its ssh block, at the top.
func TestUnknownFieldPath(t *testing.T) {
	k := key(t, 0o600)
	src := "hosts:\n  - name: db1\n    address: 10.0.0.1\n    ssh: {key: " + k + "}\n  - name: client1\n    roles: [client]\n    colour: blue\n    address: 10.0.0.9\n    ssh:\n      key: " + k + "\n      hue: 1\nextra: 2\n"
	_, err := Parse("inv.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"inv.yaml:7: hosts[1].colour: unknown field", "inv.yaml:11: hosts[1].ssh.hue: unknown field", "inv.yaml:12: extra: unknown field"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant it to say %q", err, want)
		}
	}
}
