package local

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"path/filepath"
)

// Names on the machine derive from the run id, as hosts.sh derives them (a
// unit test compares the two): R is the first 8 hex digits of sha256(run id).
//
//	bridge      yb<R>br          (12 characters: Linux allows 15)
//	namespace   yb<R>-<host>
//	host veth   yb<R>v<offset>   (offset of the host's address in the subnet, hex)
type names struct {
	prefix string
	bridge string
}

func namesFor(runID string) names {
	sum := sha256.Sum256([]byte(runID))
	p := "yb" + hex.EncodeToString(sum[:])[:8]
	return names{prefix: p, bridge: p + "br"}
}

func (n names) namespace(host string) string { return n.prefix + "-" + host }

// hostNames names a run's hosts in cluster order: db-1…db-N, then
// client-1…client-M.
func hostNames(db, client int) []hostVar {
	hosts := make([]hostVar, 0, db+client)
	for i := 1; i <= db; i++ {
		hosts = append(hosts, hostVar{Name: fmt.Sprintf("db-%d", i), Role: "db"})
	}
	for i := 1; i <= client; i++ {
		hosts = append(hosts, hostVar{Name: fmt.Sprintf("client-%d", i), Role: "client"})
	}
	return hosts
}

// HostNames are the names the local provider gives db and client hosts,
// in order (db-1…, client-1…).
func HostNames(db, client int) (dbs, clients []string) {
	for _, h := range hostNames(db, client) {
		if h.Role == "db" {
			dbs = append(dbs, h.Name)
		} else {
			clients = append(clients, h.Name)
		}
	}
	return dbs, clients
}

// hostVar is an element of the module's hosts variable.
type hostVar struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// parseSubnet accepts what hosts.sh and the module accept: IPv4, a prefix
// length of 16 to 30 (host veths carry the offset in at most 4 hex digits),
// no host bits, room for the hosts besides network, bridge and broadcast.
func parseSubnet(s string, hosts int) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("subnet %q: want an IPv4 CIDR such as %s", s, DefaultSubnet)
	}
	if p.Bits() < 16 || p.Bits() > 30 {
		return netip.Prefix{}, fmt.Errorf("subnet %q: the prefix length must be 16 to 30", s)
	}
	if p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("subnet %q has host bits set; did you mean %s?", s, p.Masked())
	}
	// As hosts.sh refuses them: "this" network, loopback, multicast and
	// reserved addresses, and link-local ones, carry no hosts.
	switch first := p.Addr().As4()[0]; {
	case first == 0 || first == 127 || first >= 224:
		return netip.Prefix{}, fmt.Errorf("subnet %q is not usable for hosts (this, loopback, multicast or reserved range)", s)
	case p.Addr().IsLinkLocalUnicast():
		return netip.Prefix{}, fmt.Errorf("subnet %q is link-local", s)
	}
	if room := 1<<(32-p.Bits()) - 3; hosts > room {
		return netip.Prefix{}, fmt.Errorf("subnet %q has room for %d hosts, not %d", s, room, hosts)
	}
	return p, nil
}

// hostDir is a host's directory: everything of the host lives under it.
func hostDir(runDir, host string) string { return filepath.Join(runDir, "hosts", host) }
