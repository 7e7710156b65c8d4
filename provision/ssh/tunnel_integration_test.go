//go:build integration

package ssh_test

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/provision/internal/sshdtest"
)

// echoServer accepts connections on 127.0.0.1 and echoes what it reads,
// remembering the peer addresses it saw.
func echoServer(t *testing.T) (string, chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	peers := make(chan string, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			peers <- c.RemoteAddr().String()
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	return l.Addr().String(), peers
}

func TestIntegrationDialThroughTheHost(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)
	addr, _ := echoServer(t)

	c, err := f.runner.Dial(ctx, h, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping\n" {
		t.Fatalf("echo: %q %v", buf, err)
	}
	// Deadlines work (drivers such as gocql fail without them).
	if err := c.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatalf("SetReadDeadline: %v", err)
	}
	if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	// One SSH connection carried the commands and the dial.
	if n := strings.Count(srv.Log(), "Accepted publickey"); n != 1 {
		t.Fatalf("%d logins, want 1", n)
	}
}

func TestIntegrationDialRefusedForwardingSaysSo(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{Extra: []string{"AllowTcpForwarding no"}})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)
	addr, peers := echoServer(t)
	_, err := f.runner.Dial(ctx, h, "tcp", addr)
	if err == nil || !strings.Contains(err.Error(), "AllowTcpForwarding") || !strings.Contains(err.Error(), "db1") {
		t.Fatalf("dial through an sshd that refuses forwarding: %v", err)
	}
	select {
	case p := <-peers:
		t.Fatalf("the server was reached anyway, from %s", p)
	default:
	}
}
