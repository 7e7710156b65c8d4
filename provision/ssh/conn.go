package ssh

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pkg/sftp"
	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
)

// conn is one client connection to a host, shared by every session and
// transfer to it.
type conn struct {
	client *xssh.Client
	closed chan struct{} // closed when the connection is gone
	once   sync.Once
	err    error // why it is gone (set before closed is closed)

	sftpMu sync.Mutex
	sftp   *sftp.Client
}

func newConn(client *xssh.Client, keepalive time.Duration, log *slog.Logger) *conn {
	c := &conn{client: client, closed: make(chan struct{})}
	go func() {
		err := client.Wait()
		c.drop(fmt.Errorf("connection closed: %w", errOr(err, errors.New("closed"))))
	}()
	if keepalive > 0 {
		go c.keepalive(keepalive, log)
	}
	return c
}

func errOr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// dead reports whether the connection is gone.
func (c *conn) dead() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// drop closes the connection for good; the next use of the host redials.
func (c *conn) drop(why error) {
	c.once.Do(func() {
		c.err = why
		close(c.closed)
		c.sftpMu.Lock()
		if c.sftp != nil {
			c.sftp.Close()
			c.sftp = nil
		}
		c.sftpMu.Unlock()
		c.client.Close()
	})
}

// keepaliveMissed is how many intervals a keepalive may go unanswered
// before the connection is declared dead, as OpenSSH's ServerAliveCountMax.
const keepaliveMissed = 3

// keepalive sends keepalive@openssh.com every interval. Any answer counts
// (OpenSSH answers "failure", which still proves the peer alive); no
// answer within keepaliveMissed intervals drops the connection, so the
// next command redials instead of hanging on a dead TCP connection (a
// rebooted host or a dropped NAT entry never sends a reset).
func (c *conn) keepalive(interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.closed:
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true /* wantReply */, nil)
			answered <- err
		}()
		timer := time.NewTimer(keepaliveMissed * interval)
		select {
		case err := <-answered:
			timer.Stop()
			if err != nil {
				log.Warn("ssh keepalive failed; dropping the connection", "err", err)
				c.drop(fmt.Errorf("keepalive: %w", err))
				return
			}
		case <-timer.C:
			log.Warn("ssh keepalive unanswered; dropping the connection", "after", keepaliveMissed*interval)
			c.drop(fmt.Errorf("keepalive unanswered for %s", keepaliveMissed*interval))
			return
		case <-c.closed:
			timer.Stop()
			return
		}
	}
}

// sftpClient returns the connection's SFTP client, starting it on first use.
func (c *conn) sftpClient() (*sftp.Client, error) {
	c.sftpMu.Lock()
	defer c.sftpMu.Unlock()
	if c.dead() {
		return nil, c.err
	}
	if c.sftp == nil {
		s, err := sftp.NewClient(c.client)
		if err != nil {
			return nil, fmt.Errorf("sftp: %w", err)
		}
		c.sftp = s
	}
	return c.sftp, nil
}

// resetSFTP forgets an SFTP client that failed, if it is still s.
func (c *conn) resetSFTP(s *sftp.Client) {
	c.sftpMu.Lock()
	defer c.sftpMu.Unlock()
	if c.sftp == s && s != nil {
		s.Close()
		c.sftp = nil
	}
}

// hostConn serializes dialing one host. The lock is a channel so that a
// caller waiting behind a long dial still honours its own context.
type hostConn struct {
	sem chan struct{}
	c   *conn
}

func newHostConn() *hostConn { return &hostConn{sem: make(chan struct{}, 1)} }

func (hc *hostConn) lock(ctx context.Context) error {
	select {
	case hc.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (hc *hostConn) unlock() { <-hc.sem }

// hostKey is how connections are shared: one per user and address.
func hostKey(h infra.Host) string { return sshUser(h) + "@" + sshAddr(h) }

func sshUser(h infra.Host) string { return h.SSH.User }

func sshAddr(h infra.Host) string {
	port := h.SSH.Port
	if port == 0 {
		port = 22
	}
	return net.JoinHostPort(h.PublicIP, strconv.Itoa(port))
}

// connect returns a live connection to h, dialing (with retries) when
// there is none or the last one died. dials is the number of dial
// attempts made (0 when an open connection was reused).
func (r *Runner) connect(ctx context.Context, h infra.Host) (c *conn, dials int, err error) {
	if h.PublicIP == "" {
		return nil, 0, fmt.Errorf("host %s has no address", h.Name)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, 0, errors.New("ssh runner closed")
	}
	hc := r.hosts[hostKey(h)]
	if hc == nil {
		hc = newHostConn()
		r.hosts[hostKey(h)] = hc
	}
	r.mu.Unlock()

	if err := hc.lock(ctx); err != nil {
		return nil, 0, err
	}
	defer hc.unlock()
	if hc.c != nil && !hc.c.dead() {
		return hc.c, 0, nil
	}
	if hc.c != nil {
		r.log.Info("ssh connection lost; redialing", "host", h.Name, "addr", sshAddr(h), "err", hc.c.err)
	}
	client, dials, err := r.dial(ctx, h)
	if err != nil {
		return nil, dials, err
	}
	if escalates(h) {
		// Before the connection serves anything: a login user without
		// passwordless sudo fails here, once, naming itself.
		if err := checkSudo(client, h); err != nil {
			client.Close()
			return nil, dials, err
		}
	}
	hc.c = newConn(client, r.keepalive, r.log.With("host", h.Name))
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		hc.c.drop(errors.New("ssh runner closed"))
		return nil, dials, errors.New("ssh runner closed")
	}
	return hc.c, dials, nil
}

// dial connects and logs in to h, retrying connection-class failures with
// backoff until the retry window is over, and authentication failures up
// to authAttempts times. A changed host key and anything unclassified are
// returned at once.
func (r *Runner) dial(ctx context.Context, h infra.Host) (*xssh.Client, int, error) {
	cfg, pin, err := r.clientConfig(h)
	if err != nil {
		return nil, 0, err
	}
	addr := sshAddr(h)
	start := time.Now()
	authFailures := 0
	for attempt := 1; ; attempt++ {
		client, err := r.dialOnce(ctx, addr, cfg)
		if err != nil && len(cfg.HostKeyAlgorithms) > 0 && strings.Contains(err.Error(), "no common algorithm for host key") {
			// The host no longer has a key of the pinned type at all.
			err = &HostKeyChangedError{Host: h.Name, Addr: addr, Pinned: fingerprints(pin.keys()),
				Offered: "no key of the pinned type (" + strings.Join(cfg.HostKeyAlgorithms, ",") + ")", Source: pin.source()}
		}
		if err == nil {
			r.log.Debug("ssh connected", "host", h.Name, "addr", addr, "attempts", attempt)
			return client, attempt, nil
		}
		fail := func(err error) (*xssh.Client, int, error) {
			return nil, attempt, &ConnError{Host: h.Name, Addr: addr, Attempts: attempt, Elapsed: time.Since(start), Err: err}
		}
		if ctx.Err() != nil {
			return fail(fmt.Errorf("%w (last error: %v)", ctx.Err(), err))
		}
		switch classify(err) {
		case classConn:
		case classAuth:
			authFailures++
			if authFailures >= r.authAttempts {
				return fail(err)
			}
		default:
			return fail(err)
		}
		delay := r.backoff.Delay(attempt)
		if time.Since(start)+delay > r.retryWindow {
			return fail(err)
		}
		r.log.Info("ssh connect failed; retrying", "host", h.Name, "addr", addr, "attempt", attempt, "in", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fail(fmt.Errorf("%w (last error: %v)", ctx.Err(), err))
		case <-t.C:
		}
	}
}

// dialOnce is one TCP connection and SSH handshake, bounded by the dial
// timeout and by ctx.
func (r *Runner) dialOnce(ctx context.Context, addr string, cfg *xssh.ClientConfig) (*xssh.Client, error) {
	d := net.Dialer{Timeout: r.dialTimeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	// The handshake gets the same bound as the dial: a host whose sshd
	// accepts but does not answer yet (still booting) must not hang us.
	_ = nc.SetDeadline(time.Now().Add(r.dialTimeout))
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	cc, chans, reqs, err := xssh.NewClientConn(nc, addr, cfg)
	stop()
	if err != nil {
		nc.Close()
		return nil, err
	}
	if ctx.Err() != nil {
		cc.Close()
		return nil, ctx.Err()
	}
	_ = nc.SetDeadline(time.Time{})
	return xssh.NewClient(cc, chans, reqs), nil
}

// clientConfig is the SSH client configuration for h: public-key auth
// with the host's key file only (never passwords), and the host key
// checked against the pin.
func (r *Runner) clientConfig(h infra.Host) (*xssh.ClientConfig, hostPin, error) {
	pin := hostPin{host: h.Name, addr: sshAddr(h), kh: r.known, fixedFrom: h.SSH.HostKeySource}
	if h.SSH.User == "" {
		return nil, pin, fmt.Errorf("host %s: no SSH user", h.Name)
	}
	if h.SSH.KeyFile == "" {
		return nil, pin, fmt.Errorf("host %s: no SSH key file", h.Name)
	}
	signer, err := r.signer(h.SSH.KeyFile)
	if err != nil {
		return nil, pin, fmt.Errorf("host %s: %w", h.Name, err)
	}
	if h.SSH.HostKey != "" {
		keys, err := parseHostKey(h.SSH.HostKey)
		if err != nil {
			return nil, pin, fmt.Errorf("host %s: %w", h.Name, err)
		}
		pin.fixed = keys
	}
	cfg := &xssh.ClientConfig{
		User: h.SSH.User,
		Auth: []xssh.AuthMethod{xssh.PublicKeys(signer)},
		HostKeyCallback: pin.callback(func(k xssh.PublicKey) {
			r.log.Info("ssh host key pinned", "host", h.Name, "addr", sshAddr(h), "fingerprint", xssh.FingerprintSHA256(k), "file", r.known.Path())
		}),
	}
	if keys := pin.keys(); len(keys) > 0 {
		cfg.HostKeyAlgorithms = hostKeyAlgorithms(keys)
	}
	return cfg, pin, nil
}

// signer loads (once) the private key at path.
func (r *Runner) signer(path string) (xssh.Signer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.signers[path]; ok {
		return s, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ssh key: %w", err)
	}
	s, err := xssh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("ssh key %s: %w", path, err)
	}
	r.signers[path] = s
	return s, nil
}
