package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
)

// Cloud firewalls open only SSH to the operator; the database ports are
// open inside the network alone. Readiness probes therefore reach a
// database port from the host itself: Dial asks the host's sshd to open
// the TCP connection (a direct-tcpip channel on the connection the runner
// already holds), so the probe sees what a client inside the network
// sees. The host's sshd must allow it (AllowTcpForwarding yes or local,
// OpenSSH's default).

// Dial opens a TCP connection to addr as seen from h, through h's SSH
// connection (dialed first when there is none). network must be a TCP
// one. The connection honours deadlines, as drivers expect of a net.Conn.
func (r *Runner) Dial(ctx context.Context, h infra.Host, network, addr string) (net.Conn, error) {
	wrap := func(err error) error { return fmt.Errorf("ssh %s: dial %s from the host: %w", h.Name, addr, err) }
	c, _, err := r.connect(ctx, h)
	if err != nil {
		return nil, classifyProvision(wrap(err))
	}
	ch, err := c.client.DialContext(ctx, network, addr)
	if err != nil {
		var oe *xssh.OpenChannelError
		if errors.As(err, &oe) && oe.Reason == xssh.Prohibited {
			err = fmt.Errorf("%w (the host's sshd refuses TCP forwarding: ybbench needs AllowTcpForwarding yes or local)", err)
		}
		return nil, wrap(err)
	}
	return withDeadlines(ch), nil
}

// withDeadlines puts a synchronous in-memory pipe, which implements
// deadlines, in front of an SSH channel, which does not (gocql fails its
// writes when a deadline cannot be set). Closing either end closes both.
func withDeadlines(ch net.Conn) net.Conn {
	near, far := net.Pipe()
	go func() {
		_, _ = io.Copy(ch, far)
		ch.Close()
	}()
	go func() {
		_, _ = io.Copy(far, ch)
		far.Close()
	}()
	return &tunnelConn{Conn: near, local: ch.LocalAddr(), remote: ch.RemoteAddr()}
}

// tunnelConn is the pipe's end with the channel's addresses.
type tunnelConn struct {
	net.Conn
	local, remote net.Addr
}

func (c *tunnelConn) LocalAddr() net.Addr  { return c.local }
func (c *tunnelConn) RemoteAddr() net.Addr { return c.remote }
