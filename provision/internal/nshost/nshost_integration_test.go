//go:build integration

package nshost

import (
	"errors"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestIntegrationFirewallClosesAllButSSH: a server the namespace runs on
// another port is reached from the orchestrator before the firewall and
// refused after it; port 22 stays open.
func TestIntegrationFirewallClosesAllButSSH(t *testing.T) {
	h := New(t)
	// Two listeners in the namespace, on 22 and 9042.
	for _, port := range []string{"22", "9042"} {
		cmd := exec.Command("ip", "netns", "exec", h.NS, "python3", "-c",
			"import socket,sys\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind((sys.argv[1], int(sys.argv[2])))\ns.listen(8)\nprint('up', flush=True)\nwhile True:\n  c,_=s.accept(); c.close()",
			h.Addr, port)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		buf := make([]byte, 3)
		if _, err := out.Read(buf); err != nil {
			t.Fatalf("listener on %s: %v", port, err)
		}
	}
	dial := func(port string) error {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, port), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}
	for _, port := range []string{"22", "9042"} {
		if err := dial(port); err != nil {
			t.Fatalf("before the firewall, port %s: %v", port, err)
		}
	}
	h.OnlySSHFromOrchestrator()
	if err := dial("22"); err != nil {
		t.Fatalf("port 22 behind the firewall: %v", err)
	}
	if err := dial("9042"); !errors.Is(err, syscall.EHOSTUNREACH) {
		t.Fatalf("port 9042 behind the firewall: %v, want host unreachable (administratively prohibited)", err)
	}
}
