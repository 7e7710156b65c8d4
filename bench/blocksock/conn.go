// Package blocksock gives the agent's database drivers a TCP (or Unix)
// connection whose reads and writes block their OS thread in the kernel
// (as a libpq client's thread blocks in poll()), instead of going through
// Go's network poller.
//
// A statement on a poller connection costs, besides its write and its read,
// a read that finds nothing (EAGAIN), a park of the goroutine, an epoll wait
// and a futex wake-up; on a blocking socket the read simply waits in the
// kernel. The price is an OS thread per connection waiting in a read, and
// deadlines the poller no longer keeps: this package keeps them itself, with
// a timer that shuts the socket down. A deadline that passes therefore ends
// the connection (a poller connection could be used again once its deadline
// is cleared); the agent only sets deadlines to cut off a run's statements in
// flight, after which the connection is closed anyway.
package blocksock

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Dial connects as net.Dialer does (resolution, the context's deadline and
// cancellation, TCP_NODELAY), then takes the socket out of the poller and
// makes it blocking.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return FromConn(c)
}

// FromConn moves an open connection's socket to a blocking Conn and closes
// c; c must be a *net.TCPConn or a *net.UnixConn.
func FromConn(c net.Conn) (net.Conn, error) {
	fd, err := dup(c)
	local, remote := c.LocalAddr(), c.RemoteAddr()
	// O_NONBLOCK belongs to the open file, which the duplicate shares: it
	// is cleared once c's own descriptor has left the poller.
	c.Close()
	if err != nil {
		return nil, fmt.Errorf("blocking socket: %w", err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blocking socket: %w", os.NewSyscallError("fcntl", err))
	}
	return &Conn{fd: fd, network: local.Network(), local: local, remote: remote}, nil
}

// dup duplicates c's descriptor: a duplicate outlives c, whose Close
// closes only its own.
func dup(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("a %T has no file descriptor", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, errno := -1, syscall.Errno(0)
	if err := raw.Control(func(f uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, f, syscall.F_DUPFD_CLOEXEC, 0)
		fd, errno = int(r), e
	}); err != nil {
		return -1, err
	}
	if errno != 0 {
		return -1, os.NewSyscallError("fcntl", errno)
	}
	return fd, nil
}

// Conn is a connection on a blocking socket. Read and Write may run at the
// same time as each other and as Close and the deadline setters.
type Conn struct {
	fd             int
	network        string
	local, remote  net.Addr
	closed, expire atomic.Bool
	// inUse is held shared by every read and write and exclusively by Close
	// to release the descriptor: the number is not reused while a call
	// still holds it.
	inUse sync.RWMutex
	mu    sync.Mutex  // guards timer
	timer *time.Timer // the pending deadline
}

// opError wraps err as net's connections do; os.ErrDeadlineExceeded so
// wrapped is a net.Error whose Timeout is true, which pgconn relies on.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: err}
}

// Read reads into p, blocking the calling thread until data, the end of the
// stream, an error, Close or a deadline.
func (c *Conn) Read(p []byte) (int, error) {
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	for {
		if err := c.unusable("read"); err != nil {
			return 0, err
		}
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			if e := c.unusable("read"); e != nil {
				return 0, e
			}
			return 0, c.opError("read", os.NewSyscallError("read", err))
		case n == 0 && len(p) > 0:
			// A shutdown by Close or a deadline also reads as the end.
			if e := c.unusable("read"); e != nil {
				return 0, e
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p unless an error, Close or a deadline stops it.
func (c *Conn) Write(p []byte) (int, error) {
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	done := 0
	for done < len(p) {
		if err := c.unusable("write"); err != nil {
			return done, err
		}
		n, err := syscall.Write(c.fd, p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			if e := c.unusable("write"); e != nil {
				return done, e
			}
			return done, c.opError("write", os.NewSyscallError("write", err))
		}
		done += n
	}
	return done, nil
}

// unusable is the error of a connection closed or past its deadline.
func (c *Conn) unusable(op string) error {
	if c.closed.Load() {
		return c.opError(op, net.ErrClosed)
	}
	if c.expire.Load() {
		return c.opError(op, os.ErrDeadlineExceeded)
	}
	return nil
}

// Close shuts the socket down, which wakes a read or write blocked on it,
// then releases the descriptor once no call holds it.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return c.opError("close", net.ErrClosed)
	}
	c.stopTimer()
	syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	c.inUse.Lock()
	defer c.inUse.Unlock()
	if err := syscall.Close(c.fd); err != nil {
		return c.opError("close", os.NewSyscallError("close", err))
	}
	return nil
}

// LocalAddr is the local end's address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr is the server's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets when the connection stops: a zero t clears a pending
// deadline, a past one stops it now. Once passed, every read and write
// fails with os.ErrDeadlineExceeded (see the package comment).
func (c *Conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() || c.expire.Load() {
		return nil
	}
	d := time.Until(t)
	if d <= 0 {
		c.cut()
		return nil
	}
	c.timer = time.AfterFunc(d, c.cut)
	return nil
}

// SetReadDeadline is SetDeadline: one timer keeps both directions.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline is SetDeadline: one timer keeps both directions.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

// cut marks the deadline passed and shuts the socket down, waking a call
// blocked on it.
func (c *Conn) cut() {
	c.expire.Store(true)
	// Shared hold of inUse: the descriptor is not Close's to release (and
	// its number another file's) while the shutdown runs.
	c.inUse.RLock()
	defer c.inUse.RUnlock()
	if !c.closed.Load() {
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

func (c *Conn) stopTimer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

var _ net.Conn = (*Conn)(nil)
