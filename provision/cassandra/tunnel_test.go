package cassandra

import (
	"context"
	"net"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// dialingRunner records the dials it is asked for, from which host.
type dialingRunner struct {
	provision.Runner
	asked []string
}

func (d *dialingRunner) Dial(_ context.Context, h infra.Host, network, addr string) (net.Conn, error) {
	d.asked = append(d.asked, h.Name+" "+network+" "+addr)
	c, _ := net.Pipe()
	return c, nil
}

// TestCQLDialedFromTheNodeThroughTheRunner: with a runner that dials from
// its hosts, a node's CQL port is dialed from that node, at its private
// address; without one, directly; WithCQLDial wins over both.
func TestCQLDialedFromTheNodeThroughTheRunner(t *testing.T) {
	h := infra.Host{Name: "db2", PublicIP: "203.0.113.2", PrivateIP: "10.0.0.2"}
	f := New()
	if addr, dial := f.target(h); addr != "10.0.0.2:9042" || dial != nil {
		t.Fatalf("before Install: %s, dial set %v; want a direct dial of 10.0.0.2:9042", addr, dial != nil)
	}
	r := &dialingRunner{}
	f.via.set(r)
	addr, dial := f.target(h)
	if addr != "10.0.0.2:9042" || dial == nil {
		t.Fatalf("through the runner: %s, dial set %v", addr, dial != nil)
	}
	c, err := dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if len(r.asked) != 1 || r.asked[0] != "db2 tcp 10.0.0.2:9042" {
		t.Fatalf("dials %q, want one from db2 to 10.0.0.2:9042", r.asked)
	}
	f.via.set(struct{ provision.Runner }{})
	if _, dial := f.target(h); dial != nil {
		t.Fatal("a runner that cannot dial from its hosts still dials through one")
	}
	own := New(WithCQLDial(func(infra.Host) (string, DialFunc) { return "127.0.0.1:1", nil }))
	own.via.set(r)
	if addr, _ := own.target(h); addr != "127.0.0.1:1" {
		t.Fatalf("WithCQLDial lost to the runner: %s", addr)
	}
}
