package inventory

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/infra"
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
var userRE = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)

// entryCheck validates one host's entry. It holds the entry's node and the
// defaults' so that each problem names the line that wrote the value, be
// it the host's own or the defaults' it inherited.
type entryCheck struct {
	v       *validator
	file    string // the inventory file as named: relative paths are read from its directory
	absFile string // the same, absolute (a host key's source outlives the working directory)
	i       int    // the host's index in hosts
	// node is the host's entry (nil when the decoder found no node for
	// it); defaults is the defaults' mapping (nil when there is none).
	node, defaults *yaml.Node
}

// roleCount is how many hosts of the file have each role: a cluster needs
// both.
type roleCount struct{ dbs, clients int }

// at is the line of one of the entry's own fields, or the entry's.
func (c *entryCheck) at(field string) int { return line(child(c.node, field), c.node) }

// field is a field's path in the document, as errors name it.
func (c *entryCheck) field(s string) string { return fmt.Sprintf("hosts[%d].%s", c.i, s) }

// from adds a problem with a value the host may take from the defaults:
// reported at the defaults' line, once whatever the number of hosts,
// unless the host sets the value itself.
func (c *entryCheck) from(path, msg string) {
	f, l := origin(c.i, c.node, c.defaults, path)
	c.v.add(l, f, msg)
}

// host checks the merged entry h and turns it into the cluster's host,
// with the defaults filled in and paths made absolute; kh is its
// ssh.known_hosts, absolute ("" if none). seen maps the names met so far
// to their index.
func (c *entryCheck) host(h HostEntry, seen map[string]int, roles *roleCount) (host infra.Host, kh string) {
	c.name(h.Name, seen)
	host = infra.Host{Name: h.Name, PublicIP: h.Address, PrivateIP: h.PrivateAddress, Zone: h.Zone, Region: h.Region,
		Cloud: "onprem", Base: h.Base, DataDirs: h.DataDirs, ServiceUser: h.ServiceUser, Shared: h.Shared,
		SSH: infra.SSH{User: h.SSH.User, Port: h.SSH.Port, KeyFile: h.SSH.Key}}
	host.Roles = c.roles(h.Roles, roles)
	host.PrivateIP = c.addresses(h.Address, host.PrivateIP)
	c.login(&host.SSH)
	c.hostKey(h.SSH.HostKey, &host.SSH)
	kh = c.knownHosts(h.SSH.KnownHosts)
	host.Base = c.dirs(host.Base, host.DataDirs)
	host.ServiceUser = c.serviceUser(host.ServiceUser)
	return host, kh
}

// name checks the host's name: a plain lower-case label, used in paths
// and as a node's name, and the file's only one of that name.
func (c *entryCheck) name(name string, seen map[string]int) {
	if !nameRE.MatchString(name) {
		c.v.add(c.at("name"), c.field("name"), fmt.Sprintf("%q is not a host name (lower-case letters, digits and -)", name))
	} else if prev, dup := seen[name]; dup {
		c.v.add(c.at("name"), c.field("name"), fmt.Sprintf("%q is already the name of hosts[%d]", name, prev))
	}
	seen[name] = c.i
}

// roles checks and counts the host's roles.
func (c *entryCheck) roles(names []string, count *roleCount) []infra.Role {
	if len(names) == 0 {
		c.v.add(c.at("roles"), c.field("roles"), "a host needs a role: db or client")
	}
	var out []infra.Role
	for _, r := range names {
		switch infra.Role(r) {
		case infra.RoleDB:
			count.dbs++
		case infra.RoleClient:
			count.clients++
		default:
			c.from("roles", fmt.Sprintf("unknown role %q (want db or client)", r))
		}
		out = append(out, infra.Role(r))
	}
	return out
}

// addresses checks the address dialed and the one other hosts use, and
// returns the latter (the address dialed when the entry gives none).
func (c *entryCheck) addresses(address, private string) string {
	if address == "" {
		c.v.add(c.at("address"), c.field("address"), "missing: the address the orchestrator dials")
	} else if !validAddress(address) {
		c.v.add(c.at("address"), c.field("address"), fmt.Sprintf("%q is neither an IP address nor a host name", address))
	}
	if private == "" {
		return address
	}
	if !validAddress(private) {
		c.v.add(c.at("private_address"), c.field("private_address"), fmt.Sprintf("%q is neither an IP address nor a host name", private))
	}
	return private
}

// login checks the SSH user, port and private key, filling in the
// defaults (root, 22). The key must be a file only its owner reads, as
// ssh would refuse it later, after the machines are up.
func (c *entryCheck) login(s *infra.SSH) {
	if s.User == "" {
		s.User = "root"
	} else if !userRE.MatchString(s.User) {
		c.from("ssh.user", fmt.Sprintf("%q is not a user name", s.User))
	}
	if s.Port == 0 {
		s.Port = 22
	} else if s.Port < 1 || s.Port > 65535 {
		c.from("ssh.port", fmt.Sprintf("%d is not a port (1-65535)", s.Port))
	}
	if s.KeyFile != "" {
		// Kept absolute: a later `ybbench down` may run from elsewhere.
		s.KeyFile = c.path(s.KeyFile)
	}
	if s.KeyFile == "" {
		c.v.add(line(child(c.node, "ssh"), c.node), c.field("ssh.key"), "missing: the private key to log in with")
	} else if st, err := os.Stat(s.KeyFile); err != nil {
		c.from("ssh.key", err.Error())
	} else if !st.Mode().IsRegular() {
		c.from("ssh.key", s.KeyFile+" is not a file")
	} else if st.Mode().Perm()&0o077 != 0 {
		c.from("ssh.key", fmt.Sprintf("%s is readable by others (mode %v): ssh refuses it; chmod 600", s.KeyFile, st.Mode().Perm()))
	}
}

// hostKey pins the entry's ssh.host_key, if it gives one, and records
// where it came from (the line of the file), for the run's ledger.
func (c *entryCheck) hostKey(text string, s *infra.SSH) {
	if text == "" {
		return
	}
	at := line(child(child(c.node, "ssh"), "host_key"), c.node)
	key, err := parseHostKey(text)
	if err != nil {
		c.v.add(at, c.field("ssh.host_key"), err.Error())
		return
	}
	s.HostKey = strings.TrimSpace(string(xssh.MarshalAuthorizedKey(key)))
	s.HostKeySource = fmt.Sprintf("ssh.host_key in %s:%d", c.absFile, at)
}

// knownHosts checks the entry's ssh.known_hosts file now, so that a bad
// one is said with the file's other problems, and returns its absolute
// path ("" if none). Its keys are looked up later (pinHostKeys).
func (c *entryCheck) knownHosts(kh string) string {
	if kh == "" {
		return ""
	}
	kh = c.path(kh)
	if st, err := os.Stat(kh); err != nil {
		c.from("ssh.known_hosts", err.Error())
	} else if !st.Mode().IsRegular() {
		c.from("ssh.known_hosts", kh+" is not a file")
	} else if _, err := knownhosts.New(kh); err != nil {
		c.from("ssh.known_hosts", err.Error())
	}
	return kh
}

// dirs checks the base and data directories (flavors remove what they
// make under them, so none may be a system directory) and returns the
// base, infra.DefaultBase when the entry gives none.
func (c *entryCheck) dirs(base string, data []string) string {
	if base == "" {
		base = infra.DefaultBase
	} else if why := infra.CheckHostDir(base); why != "" {
		c.from("base", fmt.Sprintf("%q: %s", base, why))
	}
	for j, d := range data {
		if why := infra.CheckHostDir(d); why != "" {
			f, l := origin(c.i, c.node, c.defaults, "data_dirs")
			c.v.add(l, fmt.Sprintf("%s[%d]", f, j), fmt.Sprintf("%q: %s", d, why))
		}
	}
	return base
}

// serviceUser checks the user the database servers run as, and returns
// it (infra.DefaultServiceUser when the entry gives none): never root.
func (c *entryCheck) serviceUser(u string) string {
	if u == "" {
		return infra.DefaultServiceUser
	}
	if !userRE.MatchString(u) || u == "root" {
		c.from("service_user", fmt.Sprintf("%q: database servers need an unprivileged user name", u))
	}
	return u
}

// path makes a path of the file absolute, relative to the file's own
// directory: what the file means wherever ybbench runs from.
func (c *entryCheck) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if abs, err := filepath.Abs(filepath.Join(filepath.Dir(c.file), p)); err == nil {
		return abs
	}
	return p
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

func validAddress(s string) bool {
	if net.ParseIP(s) != nil {
		return true
	}
	return regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?$`).MatchString(s)
}
