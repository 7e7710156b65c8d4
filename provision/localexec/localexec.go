// Package localexec is the Runner for hosts on this machine: scripts run
// with `bash -c`, files move through the filesystem. It behaves as the SSH
// runner does where that applies, so a flavor tested with it behaves the
// same over SSH: Result/error split, environment values never on a
// command line or in logs, per-host per-step logs, the output's last
// 64 KiB in the Result, and cancellation that kills the command's whole
// process group.
package localexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/steplog"
)

var _ provision.Runner = (*Runner)(nil)

// DefaultKillGrace is the time between SIGTERM and SIGKILL when a
// cancelled command is killed.
const DefaultKillGrace = 2 * time.Second

// waitAfterKill bounds the wait for a killed command's output to end
// (a daemon that left the group may hold the pipes).
const waitAfterKill = 5 * time.Second

// Runner runs commands on this machine for any host it is given. Safe for
// concurrent use.
type Runner struct {
	logDir    string
	log       *slog.Logger
	killGrace time.Duration
}

// Option configures a Runner.
type Option func(*Runner)

// WithLogDir sets the directory of the per-host, per-step logs
// (runs/<id>/logs): LogDir/<host>/<step>.log. Without it no step logs are
// written.
func WithLogDir(dir string) Option { return func(r *Runner) { r.logDir = dir } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.log = l } }

// WithKillGrace sets the time between SIGTERM and SIGKILL for a cancelled
// command (default DefaultKillGrace).
func WithKillGrace(d time.Duration) Option { return func(r *Runner) { r.killGrace = d } }

// New returns a Runner.
func New(opts ...Option) *Runner {
	r := &Runner{killGrace: DefaultKillGrace}
	for _, o := range opts {
		o(r)
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

// Run runs script with `bash -c` in its own process group, in the home
// directory (as an SSH login would). Environment values go into the
// process environment, never onto its command line. A non-zero exit is a
// Result with a nil error; when ctx ends the process group is killed
// (SIGTERM, then SIGKILL after the grace) and Run returns ctx's error.
// Result.Attempts is always 1.
func (r *Runner) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (res provision.Result, err error) {
	o := provision.Apply(opts)
	step := steplog.StepName(o.Step)
	start := time.Now()
	res = provision.Result{Host: h.Name, ExitCode: -1, Attempts: 1}
	defer func() { res.Duration = time.Since(start) }()
	wrap := func(err error) error { return fmt.Errorf("local %s, step %s: %w", h.Name, step, err) }

	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return res, wrap(err)
	}
	env, err := environ(o.Env)
	if err != nil {
		return res, exitcode.Wrap(exitcode.Config, wrap(err))
	}
	lg, err := steplog.Open(r.logDir, h.Name, step, script, o.Env)
	if err != nil {
		return res, wrap(err)
	}
	outTail, errTail := steplog.NewTail(steplog.TailSize), steplog.NewTail(steplog.TailSize)

	// $0 is "ybbench", as over SSH.
	cmd := exec.Command("bash", "-c", script, "ybbench")
	cmd.Env = env
	cmd.Dir = homeDir()
	cmd.Stdin = o.Stdin
	cmd.Stdout = fanout(outTail, lg, o.Stdout)
	cmd.Stderr = fanout(errTail, lg, o.Stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = lg.Close("error: " + err.Error())
		return res, exitcode.Wrap(exitcode.Provision, wrap(fmt.Errorf("start bash: %w", err)))
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	log := r.log.With("host", h.Name, "step", step)
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		killed := killGroup(pgid, r.killGrace)
		log.Info("local command cancelled", "pgid", pgid, "killed", killed)
		select {
		case werr = <-done:
			res.ExitCode = exitCode(cmd, werr)
		case <-time.After(waitAfterKill):
		}
		res.Stdout, res.Stderr = outTail.Bytes(), errTail.Bytes()
		_ = lg.Close(fmt.Sprintf("cancelled after %s (%v); %s", time.Since(start).Round(time.Millisecond), ctx.Err(), killed))
		return res, wrap(fmt.Errorf("%w (%s)", ctx.Err(), killed))
	}
	res.Stdout, res.Stderr = outTail.Bytes(), errTail.Bytes()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		// The process ran but its output could not be delivered (a
		// failing caller's writer).
		_ = lg.Close("error: " + werr.Error())
		return res, wrap(werr)
	}
	res.ExitCode = exitCode(cmd, werr)
	if err := lg.Close(fmt.Sprintf("exit %d after %s", res.ExitCode, time.Since(start).Round(time.Millisecond))); err != nil {
		log.Warn("step log incomplete", "err", err)
	}
	return res, nil
}

// exitCode is the command's exit status, 128+signal when a signal ended
// it (as a shell reports it), -1 when unknown.
func exitCode(cmd *exec.Cmd, werr error) int {
	ps := cmd.ProcessState
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// killGroup sends SIGTERM to the group, waits up to grace for it to be
// gone, then sends SIGKILL; it says what it did.
func killGroup(pgid int, grace time.Duration) string {
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		return fmt.Sprintf("process group %d already gone", pgid)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if syscall.Kill(-pgid, 0) != nil || !groupRunning(pgid) {
			return fmt.Sprintf("process group %d killed", pgid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return fmt.Sprintf("process group %d killed (SIGKILL after %s)", pgid, grace)
}

// environ is this process's environment with env set on top (sorted, so
// logs and tests see a stable order).
func environ(env map[string]string) ([]string, error) {
	if err := provision.CheckEnv(env); err != nil {
		return nil, err
	}
	out := os.Environ()
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		out = append(out, k+"="+env[k])
	}
	return out, nil
}

func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil {
		if st, err := os.Stat(h); err == nil && st.IsDir() {
			return h
		}
	}
	return "/"
}

// fanout writes to every non-nil writer.
func fanout(ws ...io.Writer) io.Writer {
	var out []io.Writer
	for _, w := range ws {
		if w != nil {
			out = append(out, w)
		}
	}
	return io.MultiWriter(out...)
}

// Put writes src to dst: parent directories created (0755), the data
// written to a temporary name beside dst, given mode, and renamed over dst.
func (r *Runner) Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	wrap := func(err error) error {
		return exitcode.Wrap(exitcode.Provision, fmt.Errorf("local %s: put %s: %w", h.Name, dst, err))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("local %s: put %s: %w", h.Name, dst, err)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return wrap(err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".ybbench-*")
	if err != nil {
		return wrap(err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	_, err = io.Copy(f, ctxReader{ctx, src})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("local %s: put %s: %w", h.Name, dst, ctx.Err())
	}
	if err != nil {
		return wrap(err)
	}
	// Chmod, not the create mode: the umask must not change it.
	if err := os.Chmod(tmp, mode); err != nil {
		return wrap(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return wrap(err)
	}
	return nil
}

// Get streams src to dst.
func (r *Runner) Get(ctx context.Context, h infra.Host, src string, dst io.Writer) error {
	f, err := os.Open(src)
	if err != nil {
		return exitcode.Wrap(exitcode.Provision, fmt.Errorf("local %s: get %s: %w", h.Name, src, err))
	}
	defer f.Close()
	if _, err := io.Copy(dst, ctxReader{ctx, f}); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("local %s: get %s: %w", h.Name, src, ctx.Err())
		}
		return exitcode.Wrap(exitcode.Provision, fmt.Errorf("local %s: get %s: %w", h.Name, src, err))
	}
	return nil
}

// ctxReader stops a copy between reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
