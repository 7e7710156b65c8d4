package blocksock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hang bounds a wait that must end: a failure, never a figure.
const hang = 30 * time.Second

// pair dials a blocking connection to a fresh listener on network and
// returns both ends.
func pair(t *testing.T, network string) (*Conn, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := Dial(context.Background(), network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c.(*Conn), srv
}

// readResult runs a Read in the background.
func readResult(c *Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	return done
}

// waitInRead waits until a thread of this process is blocked in read(2)
// on fd, as /proc/self/task/<tid>/syscall shows it (the syscall's number,
// then its arguments in hex): the event the wake-up tests act on.
func waitInRead(t *testing.T, fd int) {
	t.Helper()
	want := fmt.Sprintf("%d 0x%x ", syscall.SYS_READ, fd)
	deadline := time.Now().Add(hang)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, f := range tasks {
			if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), want) {
				return
			}
		}
		runtime.Gosched()
	}
	t.Fatalf("no thread blocked in read(2) on fd %d within %s", fd, hang)
}

func wait(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(hang):
		t.Fatalf("%s: the blocked read never returned", what)
		return nil
	}
}

func TestSocketIsBlocking(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		c, _ := pair(t, network)
		flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(c.fd), syscall.F_GETFL, 0)
		if e != 0 {
			t.Fatal(e)
		}
		if flags&syscall.O_NONBLOCK != 0 {
			t.Errorf("%s: O_NONBLOCK still set (flags %#x)", network, flags)
		}
		if got := c.RemoteAddr().Network(); got != network {
			t.Errorf("remote address network %q, want %q", got, network)
		}
	}
}

// Bytes written in both directions arrive whole and in order, also when a
// write is larger than the socket's buffers.
func TestRoundTrip(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		c, srv := pair(t, network)
		want := make([]byte, 8<<20)
		for i := range want {
			want[i] = byte(rand.Uint32())
		}
		go io.Copy(srv, srv) // echo
		werr := make(chan error, 1)
		go func() {
			n, err := c.Write(want)
			if err == nil && n != len(want) {
				err = io.ErrShortWrite
			}
			werr <- err
		}()
		got := make([]byte, len(want))
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatalf("%s: %v", network, err)
		}
		if err := <-werr; err != nil {
			t.Fatalf("%s: write: %v", network, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: echoed bytes differ", network)
		}
	}
}

func TestPeerCloseReadsEOF(t *testing.T) {
	c, srv := pair(t, "tcp")
	srv.Write([]byte("ab"))
	srv.Close()
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "ab" {
		t.Fatalf("read %q, %v; want \"ab\" then EOF", b, err)
	}
}

// A past deadline wakes a read blocked in the kernel, with the error net's
// connections give: a timeout, os.ErrDeadlineExceeded (pgconn tells a
// cut-off from a broken connection by it).
func TestPastDeadlineWakesBlockedRead(t *testing.T) {
	c, _ := pair(t, "tcp")
	done := readResult(c)
	waitInRead(t, c.fd)
	c.SetDeadline(time.Unix(1, 0))
	err := wait(t, done, "past deadline")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err %v; want a timeout net.Error wrapping os.ErrDeadlineExceeded", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("write after the deadline: %v; want os.ErrDeadlineExceeded", err)
	}
}

func TestFutureDeadlineFires(t *testing.T) {
	c, _ := pair(t, "tcp")
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if err := wait(t, readResult(c), "future deadline"); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err %v; want os.ErrDeadlineExceeded", err)
	}
}

// A deadline cleared before it passes does not end the connection.
func TestClearedDeadlineDoesNotFire(t *testing.T) {
	c, srv := pair(t, "tcp")
	c.SetDeadline(time.Now().Add(30 * time.Millisecond))
	c.SetDeadline(time.Time{})
	time.Sleep(100 * time.Millisecond)
	srv.Write([]byte("x"))
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || b[0] != 'x' {
		t.Fatalf("read %q, %v; want x", b, err)
	}
}

// Close wakes a read blocked in the kernel; later calls say closed.
func TestCloseWakesBlockedRead(t *testing.T) {
	c, _ := pair(t, "tcp")
	done := readResult(c)
	waitInRead(t, c.fd)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done, "close"); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("err %v; want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after close: %v; want net.ErrClosed", err)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second close: %v; want net.ErrClosed", err)
	}
}

// Close, a deadline and blocked reads and writes racing each other end
// without a hang (and, under -race, without a data race).
func TestCloseRacesDeadlineAndCalls(t *testing.T) {
	for i := 0; i < 50; i++ {
		c, _ := pair(t, "tcp")
		done := readResult(c)
		werr := make(chan error, 1)
		go func() {
			_, err := c.Write(make([]byte, 16<<20)) // blocks: nobody reads
			werr <- err
		}()
		go c.SetDeadline(time.Now().Add(time.Duration(i%3) * time.Millisecond))
		c.Close()
		wait(t, done, "race read")
		wait(t, werr, "race write")
	}
}

func TestFromConnRefusesWhatHasNoDescriptor(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	if _, err := FromConn(a); err == nil {
		t.Fatal("a net.Pipe end was taken")
	}
}

func TestDialFails(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	if _, err := Dial(context.Background(), "tcp", addr); err == nil {
		t.Fatal("dial to a closed port succeeded")
	}
}
