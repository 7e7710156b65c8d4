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
	"testing"
)

func opErr(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: errno}}
}

func TestClassify(t *testing.T) {
	hk := &HostKeyChangedError{Host: "db1", Addr: "10.0.0.1:22", Pinned: "SHA256:a", Offered: "SHA256:b"}
	for _, tc := range []struct {
		name string
		err  error
		want errClass
	}{
		{"refused", opErr("dial", syscall.ECONNREFUSED), classConn},
		{"unreachable host", opErr("dial", syscall.EHOSTUNREACH), classConn},
		{"unreachable net", opErr("dial", syscall.ENETUNREACH), classConn},
		{"timeout errno", opErr("dial", syscall.ETIMEDOUT), classConn},
		{"reset in handshake", fmt.Errorf("ssh: handshake failed: %w", opErr("read", syscall.ECONNRESET)), classConn},
		{"EOF in handshake", fmt.Errorf("ssh: handshake failed: %w", io.EOF), classConn},
		{"handshake deadline", fmt.Errorf("ssh: handshake failed: %w", &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}), classConn},
		{"dial timeout", &net.OpError{Op: "dial", Err: timeoutErr{}}, classConn},
		{"name not found yet", &net.DNSError{Err: "no such host", Name: "vm", IsNotFound: true}, classConn},
		{"auth", errors.New("ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain"), classAuth},
		{"host key", fmt.Errorf("ssh: handshake failed: %w", hk), classHostKey},
		{"host key inside ConnError", &ConnError{Host: "db1", Err: hk}, classHostKey},
		{"no common algorithm", errors.New("ssh: handshake failed: ssh: no common algorithm for key exchange"), classFatal},
		{"cancelled", fmt.Errorf("dial: %w", context.Canceled), classFatal},
		{"deadline", context.DeadlineExceeded, classFatal},
		{"bad key file", errors.New("ssh: no key found"), classFatal},
		{"nil", nil, classFatal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want {
				t.Fatalf("classify(%v) = %s, want %s", tc.err, got, tc.want)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestConnErrorMessageAndUnwrap(t *testing.T) {
	err := &ConnError{Host: "db2", Addr: "10.0.0.2:22", Attempts: 7, Err: opErr("dial", syscall.ECONNREFUSED)}
	msg := err.Error()
	for _, want := range []string{"db2", "10.0.0.2:22", "7 attempt", "connection failure", "refused"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message %q lacks %q", msg, want)
		}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatal("ConnError does not unwrap to its cause")
	}
}
