// Package ssh is the Runner that reaches hosts over SSH
// (golang.org/x/crypto/ssh, SFTP through github.com/pkg/sftp).
//
// What it promises (design: "Rules that keep users safe", SSH):
//
//   - Public-key authentication with the run's key only; never passwords.
//   - Host keys pinned for the run: the first key a host offers is written
//     to the run's known-hosts file (or the cluster's host record names
//     it), and a different key later is a *HostKeyChangedError, never
//     retried.
//   - Dial and handshake retried with capped exponential backoff while
//     machines boot, for connection-class failures only; a rejected key a
//     few times; a remote non-zero exit never (it is a Result).
//   - One connection per host, shared by sessions and transfers, kept
//     alive with keepalive@openssh.com and redialed when it died.
//   - Scripts and environment values travel on stdin, never on a command
//     line; logs name the variables, never their values.
//   - Cancelling the context kills the remote command's process group.
//   - A login user other than root escalates with `sudo -n`, checked once
//     per connection (escalate.go); files then move through a root shell
//     instead of SFTP (sudoxfer.go).
//   - Dial opens a TCP connection from the host itself through its SSH
//     connection (direct-tcpip), so that probes reach database ports a
//     firewall closes to the orchestrator.
package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/steplog"
)

var _ provision.Runner = (*Runner)(nil)

// Defaults of the Runner's options.
const (
	// DefaultDialTimeout bounds one TCP connect plus SSH handshake.
	DefaultDialTimeout = 10 * time.Second
	// DefaultRetryWindow is how long connection failures are retried: long
	// enough for a cloud VM to boot and start sshd.
	DefaultRetryWindow = 3 * time.Minute
	// DefaultKeepalive is the keepalive interval (0 turns keepalives off).
	DefaultKeepalive = 30 * time.Second
	// DefaultAuthAttempts is how many rejected logins are tolerated before
	// giving up: cloud-init may start sshd before it installs the key.
	DefaultAuthAttempts = 3
	// DefaultKillGrace is the time between SIGTERM and SIGKILL when a
	// cancelled command is killed.
	DefaultKillGrace = 2 * time.Second
)

// Runner runs scripts on hosts and moves files over SSH. It keeps one
// connection per host (user and address) until Close. Safe for concurrent
// use.
type Runner struct {
	knownHostsPath string
	logDir         string
	log            *slog.Logger
	dialTimeout    time.Duration
	retryWindow    time.Duration
	keepalive      time.Duration
	backoff        Backoff
	authAttempts   int
	killGrace      time.Duration

	known *KnownHosts

	mu      sync.Mutex
	closed  bool
	hosts   map[string]*hostConn
	signers map[string]xssh.Signer
}

// Option configures a Runner.
type Option func(*Runner)

// WithKnownHosts sets the run's known-hosts file (runs/<id>/ssh/known_hosts),
// where host keys are pinned at first contact. Required.
func WithKnownHosts(path string) Option { return func(r *Runner) { r.knownHostsPath = path } }

// WithLogDir sets the directory of the per-host, per-step logs
// (runs/<id>/logs): LogDir/<host>/<step>.log. Without it no step logs are
// written.
func WithLogDir(dir string) Option { return func(r *Runner) { r.logDir = dir } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.log = l } }

// WithDialTimeout bounds one connect plus handshake (default DefaultDialTimeout).
func WithDialTimeout(d time.Duration) Option { return func(r *Runner) { r.dialTimeout = d } }

// WithRetryWindow sets how long connection failures are retried (default
// DefaultRetryWindow; 0 means a single attempt).
func WithRetryWindow(d time.Duration) Option { return func(r *Runner) { r.retryWindow = d } }

// WithKeepalive sets the keepalive interval (default DefaultKeepalive; 0
// turns keepalives off).
func WithKeepalive(d time.Duration) Option { return func(r *Runner) { r.keepalive = d } }

// WithBackoff sets the wait schedule between connection attempts
// (default DefaultBackoff).
func WithBackoff(b Backoff) Option { return func(r *Runner) { r.backoff = b } }

// WithAuthAttempts sets how many rejected logins end the retries (default
// DefaultAuthAttempts).
func WithAuthAttempts(n int) Option { return func(r *Runner) { r.authAttempts = n } }

// WithKillGrace sets the time between SIGTERM and SIGKILL for a cancelled
// command (default DefaultKillGrace).
func WithKillGrace(d time.Duration) Option { return func(r *Runner) { r.killGrace = d } }

// New returns a Runner. The known-hosts file is read now (a missing file is
// an empty one).
func New(opts ...Option) (*Runner, error) {
	r := &Runner{
		dialTimeout:  DefaultDialTimeout,
		retryWindow:  DefaultRetryWindow,
		keepalive:    DefaultKeepalive,
		backoff:      DefaultBackoff,
		authAttempts: DefaultAuthAttempts,
		killGrace:    DefaultKillGrace,
		hosts:        map[string]*hostConn{},
		signers:      map[string]xssh.Signer{},
	}
	for _, o := range opts {
		o(r)
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.knownHostsPath == "" {
		return nil, exitcode.Errorf(exitcode.Config, "ssh runner: no known-hosts file (WithKnownHosts): host keys must be pinned for the run")
	}
	if r.dialTimeout <= 0 {
		r.dialTimeout = DefaultDialTimeout
	}
	r.authAttempts = max(r.authAttempts, 1)
	k, err := LoadKnownHosts(r.knownHostsPath)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Config, err)
	}
	r.known = k
	return r, nil
}

// Close closes every connection. The Runner cannot be used afterwards.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	hosts := r.hosts
	r.hosts = map[string]*hostConn{}
	r.mu.Unlock()
	for _, hc := range hosts {
		// A dial in progress sees r.closed when it ends and drops its
		// connection itself.
		select {
		case hc.sem <- struct{}{}:
			if hc.c != nil {
				hc.c.drop(errors.New("ssh runner closed"))
			}
			hc.unlock()
		default:
		}
	}
	return nil
}

// HostKey returns the key pinned for h in authorized_keys format (for the
// cluster's record; the host record's keys, one a line, when it has
// several), or "" before first contact.
func (r *Runner) HostKey(h infra.Host) string {
	if h.SSH.HostKey != "" {
		return h.SSH.HostKey
	}
	keys := r.known.Keys(sshAddr(h))
	if len(keys) == 0 {
		return ""
	}
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(keys[0])))
}

// How long a cancelled Run waits for the remote side.
const (
	pgidWait      = 2 * time.Second // for the process group line, if not seen yet
	killSlack     = 5 * time.Second // beyond the grace, for the kill session
	waitAfterKill = 5 * time.Second // for the command's session to end after the kill
)

// Run runs script with bash on h (see the package comment for how it gets
// there). The Go error is our failure: cannot connect, the connection was
// lost while the command ran, ctx ended; a command that exited non-zero is
// a Result with its ExitCode and a nil error, and is never retried.
// Result.Attempts counts the dial attempts this call made (1 when an open
// connection was reused). When ctx ends, the remote process group is
// killed and Run returns ctx's error (the Result then carries the exit
// status the host reported, or -1).
func (r *Runner) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (res provision.Result, err error) {
	o := provision.Apply(opts)
	step := steplog.StepName(o.Step)
	start := time.Now()
	res = provision.Result{Host: h.Name, ExitCode: -1}
	defer func() { res.Duration = time.Since(start) }()
	wrap := func(err error) error { return fmt.Errorf("ssh %s, step %s: %w", h.Name, step, err) }

	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return res, wrap(err)
	}
	header, err := stdinHeader(o.Env, script)
	if err != nil {
		return res, exitcode.Wrap(exitcode.Config, wrap(err))
	}
	sess, c, attempts, err := r.session(ctx, h)
	res.Attempts = attempts
	if err != nil {
		return res, classifyProvision(wrap(err))
	}
	defer sess.Close()

	lg, err := steplog.Open(r.logDir, h.Name, step, script, o.Env)
	if err != nil {
		return res, wrap(err)
	}
	outTail, errTail := steplog.NewTail(steplog.TailSize), steplog.NewTail(steplog.TailSize)
	sess.Stdout = fanout(outTail, lg, o.Stdout)
	sniff := newPgidSniffer(fanout(errTail, lg, o.Stderr))
	sess.Stderr = sniff
	stdin, err := sess.StdinPipe()
	if err != nil {
		_ = lg.Close("error: " + err.Error())
		return res, classifyProvision(wrap(fmt.Errorf("stdin: %w", err)))
	}
	if err := sess.Start(bootstrapCommand(escalates(h))); err != nil {
		_ = lg.Close("error: " + err.Error())
		return res, classifyProvision(wrap(fmt.Errorf("start: %w", err)))
	}
	// Stdin is copied here rather than by the session, so that a script
	// that exits without reading all of the caller's stdin is not turned
	// into a copy error.
	go func() {
		var src io.Reader = bytes.NewReader(header)
		if o.Stdin != nil {
			src = io.MultiReader(src, o.Stdin)
		}
		_, _ = io.Copy(stdin, src)
		_ = stdin.Close()
	}()
	waitc := make(chan error, 1)
	go func() { waitc <- sess.Wait() }()

	log := r.log.With("host", h.Name, "step", step)
	select {
	case werr := <-waitc:
		_ = sniff.Flush()
		res.Stdout, res.Stderr = outTail.Bytes(), errTail.Bytes()
		return r.finish(res, werr, start, lg, log, c, wrap)
	case <-ctx.Done():
	}

	// Cancelled: kill the remote process group through a second session,
	// then give the command's session a moment to report.
	killed := r.killRemote(c, escalates(h), sess, sniff, log)
	select {
	case werr := <-waitc:
		res.ExitCode = exitStatus(werr)
	case <-time.After(waitAfterKill):
	}
	res.Stdout, res.Stderr = outTail.Bytes(), errTail.Bytes()
	_ = lg.Close(fmt.Sprintf("cancelled after %s (%v); %s", time.Since(start).Round(time.Millisecond), ctx.Err(), killed))
	return res, wrap(fmt.Errorf("%w (%s)", ctx.Err(), killed))
}

// finish turns the session's end into a Result or our error.
func (r *Runner) finish(res provision.Result, werr error, start time.Time, lg *steplog.Log, log *slog.Logger, c *conn, wrap func(error) error) (provision.Result, error) {
	var exitErr *xssh.ExitError
	var missing *xssh.ExitMissingError
	switch {
	case werr == nil:
		res.ExitCode = 0
	case errors.As(werr, &exitErr):
		res.ExitCode = exitErr.ExitStatus()
	case errors.As(werr, &missing):
		// The connection (or sshd) went away under the command: whether it
		// finished is unknown, so it is our failure and never retried.
		_ = lg.Close("error: connection lost while the command ran")
		return res, classifyProvision(wrap(fmt.Errorf("connection lost while the command ran (it may or may not have finished; not retried): %w", werr)))
	default:
		_ = lg.Close("error: " + werr.Error())
		if c.dead() {
			werr = fmt.Errorf("%w (%v)", werr, c.err)
		}
		return res, classifyProvision(wrap(werr))
	}
	if err := lg.Close(fmt.Sprintf("exit %d after %s", res.ExitCode, time.Since(start).Round(time.Millisecond))); err != nil {
		log.Warn("step log incomplete", "err", err)
	}
	log.Debug("ssh command done", "exit", res.ExitCode, "attempts", res.Attempts)
	return res, nil
}

// exitStatus is the exit status in a session's end, or -1.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var exitErr *xssh.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitStatus()
	}
	return -1
}

// killRemote kills the cancelled command's process group and says what it
// did (for the error and the log). With sudo the group runs as root, so
// the kill goes through sudo too.
func (r *Runner) killRemote(c *conn, sudo bool, sess *xssh.Session, sniff *pgidSniffer, log *slog.Logger) string {
	select {
	case <-sniff.Got():
	case <-time.After(pgidWait):
	}
	g := 0
	select {
	case <-sniff.Got():
		g = sniff.PGID()
	default:
	}
	if g == 0 {
		// The bootstrap never reported its group: ask sshd to signal the
		// process (honoured by OpenSSH 7.9 and later).
		_ = sess.Signal(xssh.SIGKILL)
		log.Warn("remote process group unknown; sent SIGKILL through the session")
		return "remote process group unknown, SIGKILL sent through the session"
	}
	ks, err := c.client.NewSession()
	if err != nil {
		_ = sess.Signal(xssh.SIGKILL)
		log.Warn("cannot open a session to kill the remote command", "pgid", g, "err", err)
		return fmt.Sprintf("could not kill remote process group %d: %v", g, err)
	}
	defer ks.Close()
	type killed struct {
		out []byte
		err error
	}
	done := make(chan killed, 1)
	go func() {
		out, err := ks.Output(shellCommand(sudo, killCommand(g, r.killGrace)))
		done <- killed{out, err}
	}()
	select {
	case k := <-done:
		if k.err != nil {
			log.Warn("killing the remote command failed", "pgid", g, "err", k.err)
			return fmt.Sprintf("killing remote process group %d failed: %v", g, k.err)
		}
		how := strings.TrimSpace(string(k.out))
		log.Info("remote command killed", "pgid", g, "how", how)
		if how == "sigkill" {
			return fmt.Sprintf("remote process group %d killed (SIGKILL after %s)", g, r.killGrace)
		}
		return fmt.Sprintf("remote process group %d killed", g)
	case <-time.After(r.killGrace + killSlack):
		log.Warn("killing the remote command timed out", "pgid", g)
		return fmt.Sprintf("killing remote process group %d timed out", g)
	}
}

// session opens a session on h's connection, redialing once if the
// connection turns out dead only now (the command has not started, so
// this is safe). attempts is at least 1.
func (r *Runner) session(ctx context.Context, h infra.Host) (*xssh.Session, *conn, int, error) {
	attempts := 0
	for try := 0; ; try++ {
		c, n, err := r.connect(ctx, h)
		attempts += n
		if err != nil {
			return nil, nil, max(attempts, 1), err
		}
		s, err := c.client.NewSession()
		if err == nil {
			return s, c, max(attempts, 1), nil
		}
		var refused *xssh.OpenChannelError
		if errors.As(err, &refused) || try > 0 {
			// The host refused the session (MaxSessions) on a live
			// connection, or a fresh connection failed too.
			return nil, nil, max(attempts, 1), fmt.Errorf("open session: %w", err)
		}
		r.log.Info("ssh session failed on an open connection; redialing", "host", h.Name, "err", err)
		c.drop(fmt.Errorf("open session: %w", err))
	}
}

// classifyProvision marks a failure at this boundary as a provisioning
// failure, except the end of the caller's context, which the caller owns.
func classifyProvision(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return exitcode.Wrap(exitcode.Provision, err)
}

// fanout writes to every non-nil writer. The tail and the log never fail;
// a failing caller's writer fails the copy, as with os/exec.
func fanout(ws ...io.Writer) io.Writer {
	var out []io.Writer
	for _, w := range ws {
		if w != nil {
			out = append(out, w)
		}
	}
	return io.MultiWriter(out...)
}
