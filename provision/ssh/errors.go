package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// errClass is how a failed dial or handshake is treated.
type errClass int

const (
	// classFatal is not retried: bad configuration, unsupported
	// algorithms, anything not known to be transient.
	classFatal errClass = iota
	// classConn is a connection-class failure, retried while the retry
	// window lasts: refused, timed out, unreachable, reset, EOF during the
	// handshake. Machines that are still booting fail this way.
	classConn
	// classAuth is a rejected key, retried a few times (cloud-init may not
	// have installed the key yet), then given up.
	classAuth
	// classHostKey is a host key other than the pinned one: never retried.
	classHostKey
)

func (c errClass) String() string {
	switch c {
	case classConn:
		return "connection"
	case classAuth:
		return "authentication"
	case classHostKey:
		return "host key"
	default:
		return "fatal"
	}
}

// classify sorts a dial or handshake error.
func classify(err error) errClass {
	if err == nil {
		return classFatal
	}
	var hk *HostKeyChangedError
	if errors.As(err, &hk) {
		return classHostKey
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return classFatal
	}
	msg := err.Error()
	// x/crypto/ssh reports a refused key only as text.
	if strings.Contains(msg, "ssh: unable to authenticate") {
		return classAuth
	}
	for _, errno := range []syscall.Errno{
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.ETIMEDOUT,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EHOSTDOWN, syscall.ENETDOWN, syscall.EPIPE,
	} {
		if errors.Is(err, errno) {
			return classConn
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) {
		return classConn
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return classConn
	}
	// A name that does not resolve yet (DNS of a fresh VM) is transient;
	// one that does not exist at all runs out the window, with the message.
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && (dnsErr.IsTemporary || dnsErr.IsTimeout || dnsErr.IsNotFound) {
		return classConn
	}
	return classFatal
}

// ConnError is a host the runner could not connect to (and log in to). It
// wraps the last attempt's error, so errors.As finds a
// *HostKeyChangedError through it.
type ConnError struct {
	Host     string
	Addr     string
	Attempts int
	Elapsed  time.Duration
	Err      error
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("cannot connect to %s (%s) after %d attempt(s) in %s (%s failure): %v",
		e.Host, e.Addr, e.Attempts, e.Elapsed.Round(time.Millisecond), classify(e.Err), e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }
