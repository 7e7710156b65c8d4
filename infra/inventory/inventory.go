// Package inventory is the on-prem provider: machines listed in a YAML file.
// Create validates the file strictly and returns its hosts; Destroy deletes
// no machine (the pipeline stops and wipes what it installed).
package inventory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
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

// Error is a problem in the inventory file: file, line (0: the file as a
// whole), column (0: the line as a whole), field ("" for none).
type Error struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
}

func (e *Error) Error() string {
	at := e.File
	if e.Line > 0 {
		at += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			at += fmt.Sprintf(":%d", e.Column)
		}
	}
	if e.Field == "" {
		return at + ": " + e.Msg
	}
	return at + ": " + e.Field + ": " + e.Msg
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
var userRE = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)

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

func parse(name string, b []byte) ([]infra.Host, []hostExtra, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, nil, yamlsyntax.Explain(name, b, err)
	}
	var f File
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	// Unknown fields are reported with every other problem: the decoder
	// has filled in all the rest. A value of the wrong type stops here,
	// since the checks below would then judge its zero value.
	var unknown error
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // EOF: an empty file, said below
		if !onlyUnknownFields(err) {
			return nil, nil, yamlErrors(name, &root, err)
		}
		unknown = yamlErrors(name, &root, err)
	}
	v := validator{file: name}
	if unknown != nil {
		v.errs = append(v.errs, unknown)
	}
	doc := &root
	if len(root.Content) > 0 {
		doc = root.Content[0]
	}
	defaultsNode := child(doc, "defaults")
	for _, k := range []struct{ key, val string }{{"name", f.Defaults.Name}, {"address", f.Defaults.Address}, {"private_address", f.Defaults.PrivateAddress}} {
		if k.val != "" {
			v.add(line(child(defaultsNode, k.key), defaultsNode), "defaults."+k.key, "belongs to a host, not to the defaults")
		}
	}
	if f.Defaults.SSH.HostKey != "" {
		v.add(line(child(child(defaultsNode, "ssh"), "host_key"), defaultsNode), "defaults.ssh.host_key", "belongs to a host, not to the defaults (each machine has its own key)")
	}
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
	var dbs, clients int
	for i, e := range f.Hosts {
		var hn *yaml.Node
		if hostsNode != nil && i < len(hostsNode.Content) {
			hn = hostsNode.Content[i]
		}
		at := func(field string) int { return line(child(hn, field), hn) }
		field := func(s string) string { return fmt.Sprintf("hosts[%d].%s", i, s) }
		// from adds a problem with a value the host may take from the
		// defaults: reported at the defaults' line, once whatever the
		// number of hosts, unless the host sets the value itself.
		from := func(path, msg string) {
			f, l := origin(i, hn, defaultsNode, path)
			v.add(l, f, msg)
		}
		h := merge(f.Defaults, e)
		if !nameRE.MatchString(h.Name) {
			v.add(at("name"), field("name"), fmt.Sprintf("%q is not a host name (lower-case letters, digits and -)", h.Name))
		} else if prev, dup := seen[h.Name]; dup {
			v.add(at("name"), field("name"), fmt.Sprintf("%q is already the name of hosts[%d]", h.Name, prev))
		}
		seen[h.Name] = i
		host := infra.Host{Name: h.Name, PublicIP: h.Address, PrivateIP: h.PrivateAddress, Zone: h.Zone, Region: h.Region,
			Cloud: "onprem", Base: h.Base, DataDirs: h.DataDirs, ServiceUser: h.ServiceUser, Shared: h.Shared,
			SSH: infra.SSH{User: h.SSH.User, Port: h.SSH.Port, KeyFile: h.SSH.Key}}
		if len(h.Roles) == 0 {
			v.add(at("roles"), field("roles"), "a host needs a role: db or client")
		}
		for _, r := range h.Roles {
			switch infra.Role(r) {
			case infra.RoleDB:
				dbs++
			case infra.RoleClient:
				clients++
			default:
				from("roles", fmt.Sprintf("unknown role %q (want db or client)", r))
			}
			host.Roles = append(host.Roles, infra.Role(r))
		}
		if h.Address == "" {
			v.add(at("address"), field("address"), "missing: the address the orchestrator dials")
		} else if !validAddress(h.Address) {
			v.add(at("address"), field("address"), fmt.Sprintf("%q is neither an IP address nor a host name", h.Address))
		}
		if host.PrivateIP == "" {
			host.PrivateIP = h.Address
		} else if !validAddress(host.PrivateIP) {
			v.add(at("private_address"), field("private_address"), fmt.Sprintf("%q is neither an IP address nor a host name", host.PrivateIP))
		}
		if host.SSH.User == "" {
			host.SSH.User = "root"
		} else if !userRE.MatchString(host.SSH.User) {
			from("ssh.user", fmt.Sprintf("%q is not a user name", host.SSH.User))
		}
		if host.SSH.Port == 0 {
			host.SSH.Port = 22
		} else if host.SSH.Port < 1 || host.SSH.Port > 65535 {
			from("ssh.port", fmt.Sprintf("%d is not a port (1-65535)", host.SSH.Port))
		}
		if host.SSH.KeyFile != "" && !filepath.IsAbs(host.SSH.KeyFile) {
			// Relative to the inventory file, and kept absolute: a later
			// `ybbench down` may run from elsewhere.
			if abs, err := filepath.Abs(filepath.Join(filepath.Dir(name), host.SSH.KeyFile)); err == nil {
				host.SSH.KeyFile = abs
			}
		}
		if host.SSH.KeyFile == "" {
			v.add(line(child(hn, "ssh"), hn), field("ssh.key"), "missing: the private key to log in with")
		} else if st, err := os.Stat(host.SSH.KeyFile); err != nil {
			from("ssh.key", err.Error())
		} else if !st.Mode().IsRegular() {
			from("ssh.key", host.SSH.KeyFile+" is not a file")
		} else if st.Mode().Perm()&0o077 != 0 {
			from("ssh.key", fmt.Sprintf("%s is readable by others (mode %v): ssh refuses it; chmod 600", host.SSH.KeyFile, st.Mode().Perm()))
		}
		if h.SSH.HostKey != "" {
			at := line(child(child(hn, "ssh"), "host_key"), hn)
			if key, err := parseHostKey(h.SSH.HostKey); err != nil {
				v.add(at, field("ssh.host_key"), err.Error())
			} else {
				host.SSH.HostKey = strings.TrimSpace(string(xssh.MarshalAuthorizedKey(key)))
				host.SSH.HostKeySource = fmt.Sprintf("ssh.host_key in %s:%d", absName, at)
			}
		}
		kh := h.SSH.KnownHosts
		if kh != "" {
			if !filepath.IsAbs(kh) {
				if abs, err := filepath.Abs(filepath.Join(filepath.Dir(name), kh)); err == nil {
					kh = abs
				}
			}
			if st, err := os.Stat(kh); err != nil {
				from("ssh.known_hosts", err.Error())
			} else if !st.Mode().IsRegular() {
				from("ssh.known_hosts", kh+" is not a file")
			} else if _, err := knownhosts.New(kh); err != nil {
				from("ssh.known_hosts", err.Error())
			}
		}
		if host.Base == "" {
			host.Base = infra.DefaultBase
		} else if why := infra.CheckHostDir(host.Base); why != "" {
			from("base", fmt.Sprintf("%q: %s", host.Base, why))
		}
		for j, d := range host.DataDirs {
			if why := infra.CheckHostDir(d); why != "" {
				f, l := origin(i, hn, defaultsNode, "data_dirs")
				v.add(l, fmt.Sprintf("%s[%d]", f, j), fmt.Sprintf("%q: %s", d, why))
			}
		}
		if host.ServiceUser == "" {
			host.ServiceUser = infra.DefaultServiceUser
		} else if !userRE.MatchString(host.ServiceUser) || host.ServiceUser == "root" {
			from("service_user", fmt.Sprintf("%q: database servers need an unprivileged user name", host.ServiceUser))
		}
		out = append(out, host)
		extra = append(extra, hostExtra{line: line(hn, hostsNode), knownHosts: kh})
	}
	if len(f.Hosts) > 0 && dbs == 0 {
		v.add(line(hostsNode, doc), "hosts", "no host has the db role")
	}
	if len(f.Hosts) > 0 && clients == 0 {
		v.add(line(hostsNode, doc), "hosts", "no host has the client role")
	}
	if len(v.errs) > 0 {
		return nil, nil, errors.Join(v.errs...)
	}
	return out, extra, nil
}

// parseHostKey reads ssh.host_key: one public key, authorized_keys format
// without options ("ssh-ed25519 AAAA… [comment]").
func parseHostKey(s string) (xssh.PublicKey, error) {
	key, _, options, rest, err := xssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%q is not a public key (want one line as in a .pub file: ssh-ed25519 AAAA…): %v", abbrev(s), err)
	}
	if len(options) > 0 {
		return nil, fmt.Errorf("%q: want the key alone (type and base64), not a known_hosts or authorized_keys line with %q before it", abbrev(s), strings.Join(options, ","))
	}
	if len(strings.TrimSpace(string(rest))) > 0 {
		return nil, fmt.Errorf("%q: one key only (more than one key: use ssh.known_hosts)", abbrev(s))
	}
	return key, nil
}

func abbrev(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type .*$`)
	badValue     = regexp.MustCompile(`^line (\d+): (cannot unmarshal .*)$`)
)

// onlyUnknownFields reports whether err is the decoder's type error and
// names nothing but fields the inventory does not have.
func onlyUnknownFields(err error) bool {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return false
	}
	for _, e := range te.Errors {
		if !unknownField.MatchString(e) {
			return false
		}
	}
	return true
}

// yamlErrors rewrites the YAML decoder's errors as file:line: field:
// message, an unknown field named by its path in the document
// (hosts[0].colour), as every other problem is.
func yamlErrors(name string, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", name, err)
	}
	var out []error
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			field := m[2]
			if line, err := strconv.Atoi(m[1]); err == nil {
				if p := keyPath(root, line, field, ""); p != "" {
					field = p
				}
			}
			out = append(out, fmt.Errorf("%s:%s: %s: unknown field", name, m[1], field))
			continue
		}
		if m := badValue.FindStringSubmatch(e); m != nil {
			out = append(out, fmt.Errorf("%s:%s: %s", name, m[1], m[2]))
			continue
		}
		out = append(out, fmt.Errorf("%s: %s", name, e))
	}
	return errors.Join(out...)
}

type validator struct {
	file string
	errs []error
	seen map[Error]bool
}

// add records a problem once: a value of the defaults is every host's,
// and its problem is said once, at its own line.
func (v *validator) add(line int, field, msg string) {
	e := Error{File: v.file, Line: line, Field: field, Msg: msg}
	if v.seen[e] {
		return
	}
	if v.seen == nil {
		v.seen = map[Error]bool{}
	}
	v.seen[e] = true
	v.errs = append(v.errs, &e)
}

// origin says where a host's value of a field (a dotted path, ssh.key)
// is written: in the host's own entry when it sets it, else in the
// defaults when they do, else nowhere (it is missing: the host's entry).
func origin(i int, host, defaults *yaml.Node, path string) (string, int) {
	if n := walk(host, path); n != nil {
		return fmt.Sprintf("hosts[%d].%s", i, path), n.Line
	}
	if n := walk(defaults, path); n != nil {
		return "defaults." + path, n.Line
	}
	return fmt.Sprintf("hosts[%d].%s", i, path), line(host, nil)
}

// walk follows a dotted path of mapping keys from n (nil when absent).
func walk(n *yaml.Node, path string) *yaml.Node {
	for _, k := range strings.Split(path, ".") {
		n = child(n, k)
	}
	return n
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

func validAddress(s string) bool {
	if net.ParseIP(s) != nil {
		return true
	}
	return regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?$`).MatchString(s)
}

// child returns the value node of key in a mapping node.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func line(n, fallback *yaml.Node) int {
	if n != nil {
		return n.Line
	}
	if fallback != nil {
		return fallback.Line
	}
	return 1
}

// Provider is the inventory provider.
type Provider struct{ path string }

var _ infra.Provider = (*Provider)(nil)

// New returns the provider for an inventory file.
func New(path string) *Provider { return &Provider{path: path} }

// ProviderName is the provider's name in specs and cluster.json.
const ProviderName = "inventory"

// Name is "inventory".
func (p *Provider) Name() string { return ProviderName }

// Traits: see ProviderTraits.
func (p *Provider) Traits() infra.Traits { return ProviderTraits() }

// ProviderTraits are the inventory provider's traits, known without an
// inventory file (the run's settings are validated against them): an
// inventory's machines are the user's, listed in the file, up, and kept.
func ProviderTraits() infra.Traits {
	return infra.Traits{ReusesMachines: true, Running: true, FromFile: true}
}

// Plan reads and checks the inventory file (its errors name the file and
// line) and lists its hosts; it does not look up or pin host keys.
func (p *Provider) Plan(infra.ClusterSpec) ([]infra.PlannedHost, string, error) {
	hosts, err := Load(p.path)
	if err != nil {
		return nil, "", err
	}
	out := make([]infra.PlannedHost, len(hosts))
	for i, h := range hosts {
		out[i] = infra.PlannedHost{Name: h.Name, Roles: h.Roles, Where: fmt.Sprintf("%s (ssh %s@%s)", p.path, h.SSH.User, h.Addr())}
	}
	return out, "validate the inventory", nil
}

// OptionAcceptNewHostKeys is the ClusterSpec option ("true") that lets
// Create return hosts it knows no key for: their key is pinned at first
// contact, and HostKeySource says so.
const OptionAcceptNewHostKeys = "accept_new_host_keys"

// AcceptedOnFirstUse is the HostKeySource of a host whose key was not
// known and was trusted at first contact.
const AcceptedOnFirstUse = "accepted-on-first-use"

// Create validates the inventory and returns its hosts as the cluster,
// each with its host key pinned (see File); hosts without a known key are
// refused, all at once, before anything connects to any of them (exit 2),
// unless spec.Options[OptionAcceptNewHostKeys] is "true".
func (p *Provider) Create(_ context.Context, spec infra.ClusterSpec) (*infra.Cluster, error) {
	hosts, extra, err := load(p.path)
	if err != nil {
		return nil, err
	}
	if err := pinHostKeys(p.path, hosts, extra, spec.Options[OptionAcceptNewHostKeys] == "true"); err != nil {
		return nil, err
	}
	return &infra.Cluster{Name: spec.Name, Provider: p.Name(), Hosts: hosts, CreatedAt: time.Now().UTC(),
		Meta: map[string]string{"inventory": p.path}}, nil
}

var _ infra.Checker = (*Provider)(nil)

// Check validates the inventory as Create does, host keys included (each
// host's key known, unless spec.Options[OptionAcceptNewHostKeys] is
// "true"), without connecting to any host: every problem at once, exit 2.
func (p *Provider) Check(_ context.Context, spec infra.ClusterSpec) error {
	hosts, extra, err := load(p.path)
	if err != nil {
		return err
	}
	return pinHostKeys(p.path, hosts, extra, spec.Options[OptionAcceptNewHostKeys] == "true")
}

// Destroy deletes no machine: on-prem hosts stay; the pipeline has already
// stopped and wiped what it installed on them.
func (p *Provider) Destroy(context.Context, *infra.Cluster) error { return nil }

// keyPath is the path (hosts[0].ssh.port) of the mapping key named key on
// line line under n, at path at; "" when there is none.
func keyPath(n *yaml.Node, line int, key, at string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := keyPath(c, line, key, at); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if at != "" {
				p = at + "." + k.Value
			}
			if k.Line == line && k.Value == key {
				return p
			}
			if q := keyPath(v, line, key, p); q != "" {
				return q
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := keyPath(c, line, key, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}
