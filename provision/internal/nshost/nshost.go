// Package nshost makes hosts of a test's own on this machine: a network
// namespace joined to the root namespace by a veth pair on a /30 of its
// own, so that the host has an address of its own that the orchestrator
// (the test, in the root namespace) reaches from another address, and a
// firewall of its own (iptables in the namespace) that can close ports
// to the orchestrator as a cloud security group does. Everything is
// removed in t.Cleanup. It needs root and ip(8), iptables(8).
package nshost

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// Host is one namespace host.
type Host struct {
	t testing.TB
	// NS is the namespace's name.
	NS string
	// Addr is the host's address (eth0 in the namespace); Orchestrator
	// the root namespace's end of the link, the address the test's
	// connections to Addr come from.
	Addr, Orchestrator string
}

// Require skips the test (or fails it when the environment is required)
// unless it runs as root with ip and iptables.
func Require(t testing.TB) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "needs root (network namespaces)"
	}
	for _, c := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(c); err != nil && why == "" {
			why = "needs " + c
		}
	}
	if why == "" {
		return
	}
	if testenv.Required() {
		t.Fatal(why)
	}
	t.Skip(why)
}

// New makes a namespace host on a free /30 of 10.216.0.0/16.
func New(t testing.TB) *Host {
	t.Helper()
	Require(t)
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	id := hex.EncodeToString(rnd[:])
	h := &Host{t: t, NS: "ybt-" + id}
	// Interface names: at most 15 characters.
	veth := "ybt" + id
	b, c, err := freeNet(rnd[2], rnd[3])
	if err != nil {
		t.Fatal(err)
	}
	h.Orchestrator = fmt.Sprintf("10.216.%d.%d", b, c+1)
	h.Addr = fmt.Sprintf("10.216.%d.%d", b, c+2)
	t.Cleanup(func() {
		// Deleting the namespace takes its end of the pair, its
		// firewall and its addresses with it; the root end goes with
		// the pair.
		run("ip", "netns", "del", h.NS)
		if _, err := net.InterfaceByName(veth); err == nil {
			run("ip", "link", "del", veth)
		}
	})
	for _, args := range [][]string{
		{"ip", "netns", "add", h.NS},
		{"ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", h.NS},
		{"ip", "addr", "add", h.Orchestrator + "/30", "dev", veth},
		{"ip", "link", "set", veth, "up"},
		{"ip", "-n", h.NS, "link", "set", "lo", "up"},
		{"ip", "-n", h.NS, "addr", "add", h.Addr + "/30", "dev", "eth0"},
		{"ip", "-n", h.NS, "link", "set", "eth0", "up"},
	} {
		if err := run(args...); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// freeNet picks a /30 of 10.216.0.0/16 that no address of this machine is
// in, starting from the random (b, c): another test or run may use some.
func freeNet(b, c byte) (byte, byte, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return 0, 0, err
	}
	for i := 0; i < 256; i++ {
		nb, nc := b+byte(i), c&^3
		_, n, _ := net.ParseCIDR(fmt.Sprintf("10.216.%d.%d/30", nb, nc))
		used := false
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && (n.Contains(ipn.IP) || ipn.Contains(n.IP)) {
				used = true
			}
		}
		if !used {
			return nb, nc, nil
		}
	}
	return 0, 0, fmt.Errorf("no free /30 in 10.216.0.0/16")
}

// OnlySSHFromOrchestrator closes every port of the host but 22 to the
// orchestrator's address, as a cloud firewall that opens SSH to the
// operator and the database ports inside the network only. Connections
// refused by it fail at once (administratively prohibited), not by
// timing out. The rules are removed in t.Cleanup (and go with the
// namespace anyway).
func (h *Host) OnlySSHFromOrchestrator() {
	h.t.Helper()
	rules := [][]string{
		{"INPUT", "-s", h.Orchestrator, "-p", "tcp", "--dport", "22", "-j", "ACCEPT"},
		{"INPUT", "-s", h.Orchestrator, "-j", "REJECT", "--reject-with", "icmp-admin-prohibited"},
	}
	for _, r := range rules {
		if err := h.iptables(append([]string{"-A"}, r...)...); err != nil {
			h.t.Fatal(err)
		}
		h.t.Cleanup(func() { _ = h.iptables(append([]string{"-D"}, r...)...) })
	}
}

func (h *Host) iptables(args ...string) error {
	return run(append([]string{"ip", "netns", "exec", h.NS, "iptables", "-w"}, args...)...)
}

func run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}
