// Package inventory is the on-prem provider: machines listed in a YAML file.
// Create validates the file strictly and returns its hosts; Destroy deletes
// no machine (the pipeline stops and wipes what it installed).
package inventory

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/yamlsyntax"
)

// File is the inventory format.
//
//	defaults:                      # optional, applied to every host
//	  ssh: {user: root, port: 22, key: /root/.ssh/id_ed25519, known_hosts: known_hosts}
//	  base: /opt/ybbench
//	  service_user: ybbench
//	hosts:
//	  - name: db1
//	    roles: [db]
//	    address: 10.0.0.1          # the orchestrator dials it
//	    private_address: 10.0.0.1  # other hosts use it (default: address)
//	    zone: rack1
//	    data_dirs: [/mnt/d0]
//	    ssh: {host_key: "ssh-ed25519 AAAA..."}  # the host's key (host only)
//
// A host's key is pinned before the first command: its ssh.host_key, else
// the keys its ssh.known_hosts file gives for the address dialed, else
// those of the invoking user's ~/.ssh/known_hosts. A host with none is
// refused unless the run accepts new host keys (Create).
type File struct {
	Defaults HostEntry   `yaml:"defaults"`
	Hosts    []HostEntry `yaml:"hosts"`
}

// HostEntry is one host of the file (or the defaults).
type HostEntry struct {
	Name           string   `yaml:"name"`
	Roles          []string `yaml:"roles"`
	Address        string   `yaml:"address"`
	PrivateAddress string   `yaml:"private_address"`
	Zone           string   `yaml:"zone"`
	Region         string   `yaml:"region"`
	SSH            SSHEntry `yaml:"ssh"`
	Base           string   `yaml:"base"`
	DataDirs       []string `yaml:"data_dirs"`
	ServiceUser    string   `yaml:"service_user"`
	// Shared marks a host that shares this machine's filesystem and users
	// (hosts in network namespaces): flavors then install nothing there.
	Shared bool `yaml:"shared"`
}

// SSHEntry is how to log in.
type SSHEntry struct {
	User string `yaml:"user"`
	Port int    `yaml:"port"`
	Key  string `yaml:"key"`
	// HostKey is the host's public key, authorized_keys format (host only).
	HostKey string `yaml:"host_key"`
	// KnownHosts is an OpenSSH known_hosts file to take the host's key
	// from (relative to the inventory file).
	KnownHosts string `yaml:"known_hosts"`
}

// Load reads and validates an inventory file, reporting every problem at
// once (exit code 2).
func Load(path string) ([]infra.Host, error) {
	hosts, _, err := load(path)
	return hosts, err
}

func load(path string) ([]infra.Host, []hostExtra, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, exitcode.Errorf(exitcode.Config, "inventory: %v", err)
	}
	hosts, extra, err := parse(path, b)
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Config, err)
	}
	return hosts, extra, nil
}

// hostExtra is what the file says about a host beyond infra.Host.
type hostExtra struct {
	line       int    // of the host's entry
	knownHosts string // its ssh.known_hosts, absolute ("" if none)
}

// Parse validates inventory text; name is the file name used in errors.
func Parse(name string, b []byte) ([]infra.Host, error) {
	hosts, _, err := parse(name, b)
	return hosts, err
}

// parse checks the whole file and says every problem at once, each at the
// line that wrote the value: a user fixing a file wants one round, not one
// per mistake.
func parse(name string, b []byte) ([]infra.Host, []hostExtra, error) {
	f, root, unknown, err := decode(name, b)
	if err != nil {
		return nil, nil, err
	}
	v := validator{file: name}
	if unknown != nil {
		v.errs = append(v.errs, unknown)
	}
	doc := root
	if len(root.Content) > 0 {
		doc = root.Content[0]
	}
	defaultsNode := child(doc, "defaults")
	checkDefaults(&v, f.Defaults, defaultsNode)
	absName, err := filepath.Abs(name)
	if err != nil {
		absName = name
	}
	hostsNode := child(doc, "hosts")
	switch {
	case len(root.Content) == 0:
		// No line to point at: the file holds nothing but comments.
		v.add(0, "", "the file is empty: the inventory lists no hosts (want hosts: with db and client hosts)")
	case len(f.Hosts) == 0:
		v.add(line(hostsNode, doc), "hosts", "the inventory lists no hosts")
	}
	seen := map[string]int{}
	var out []infra.Host
	var extra []hostExtra
	var roles roleCount
	var addressLines []int
	for i, e := range f.Hosts {
		var hn *yaml.Node
		if hostsNode != nil && i < len(hostsNode.Content) {
			hn = hostsNode.Content[i]
		}
		c := entryCheck{v: &v, file: name, absFile: absName, i: i, node: hn, defaults: defaultsNode}
		host, kh := c.host(merge(f.Defaults, e), seen, &roles)
		out = append(out, host)
		extra = append(extra, hostExtra{line: line(hn, hostsNode), knownHosts: kh})
		addressLines = append(addressLines, c.at("address"))
	}
	checkOneMachineTwice(&v, out, addressLines)
	if len(f.Hosts) > 0 && roles.dbs == 0 {
		v.add(line(hostsNode, doc), "hosts", "no host has the db role")
	}
	if len(f.Hosts) > 0 && roles.clients == 0 {
		v.add(line(hostsNode, doc), "hosts", "no host has the client role")
	}
	if len(v.errs) > 0 {
		return nil, nil, errors.Join(v.errs...)
	}
	return out, extra, nil
}

// decode reads the file twice: as nodes, which know the line of every
// value, and strictly into File. Unknown fields come back apart (unknown),
// to be reported with every other problem: the decoder has filled in all
// the rest. A value of the wrong type is err and stops the parse, since the
// checks would then judge its zero value.
func decode(name string, b []byte) (f File, root *yaml.Node, unknown, err error) {
	root = new(yaml.Node)
	if err := yaml.Unmarshal(b, root); err != nil {
		return f, nil, nil, yamlsyntax.Explain(name, b, err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // EOF: an empty file, said by parse
		if !onlyUnknownFields(err) {
			return f, nil, nil, yamlErrors(name, root, err)
		}
		unknown = yamlErrors(name, root, err)
	}
	return f, root, unknown, nil
}

// checkDefaults refuses in the defaults what only one machine can have:
// applied to every host, it would give them all the same name or key.
func checkDefaults(v *validator, d HostEntry, node *yaml.Node) {
	for _, k := range []struct{ key, val string }{{"name", d.Name}, {"address", d.Address}, {"private_address", d.PrivateAddress}} {
		if k.val != "" {
			v.add(line(child(node, k.key), node), "defaults."+k.key, "belongs to a host, not to the defaults")
		}
	}
	if d.SSH.HostKey != "" {
		v.add(line(child(child(node, "ssh"), "host_key"), node), "defaults.ssh.host_key", "belongs to a host, not to the defaults (each machine has its own key)")
	}
}

// merge lays a host's own settings over the defaults.
func merge(d, h HostEntry) HostEntry {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	out := h
	out.Zone = pick(h.Zone, d.Zone)
	out.Region = pick(h.Region, d.Region)
	out.Base = pick(h.Base, d.Base)
	out.ServiceUser = pick(h.ServiceUser, d.ServiceUser)
	out.SSH.User = pick(h.SSH.User, d.SSH.User)
	out.SSH.Key = pick(h.SSH.Key, d.SSH.Key)
	out.SSH.KnownHosts = pick(h.SSH.KnownHosts, d.SSH.KnownHosts)
	if h.SSH.Port == 0 {
		out.SSH.Port = d.SSH.Port
	}
	if len(h.DataDirs) == 0 {
		out.DataDirs = d.DataDirs
	}
	if len(h.Roles) == 0 {
		out.Roles = d.Roles
	}
	out.Shared = h.Shared || d.Shared
	return out
}
