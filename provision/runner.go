// Package provision runs work on hosts: scripts, file transfers, fan-out
// over many hosts, and the database flavors built on them.
package provision

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// Runner runs commands on hosts and moves files to and from them. The Go
// error is reserved for our own failures (cannot connect, transfer broke);
// a command that ran and exited non-zero is a Result with its exit code.
type Runner interface {
	Run(ctx context.Context, h infra.Host, script string, opts ...RunOption) (Result, error)
	Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error
	Get(ctx context.Context, h infra.Host, src string, dst io.Writer) error
}

// Result is the outcome of a command on one host.
type Result struct {
	Host     string
	ExitCode int
	// Stdout and Stderr hold the command's output (the last 64 KiB of each;
	// the whole output is in the step's log file).
	Stdout, Stderr []byte
	Duration       time.Duration
	// Attempts counts connection attempts (retries happen only before the
	// command starts, never after a remote exit).
	Attempts int
}

// Err returns a CmdError when the command exited non-zero.
func (r Result) Err() error {
	if r.ExitCode == 0 {
		return nil
	}
	return &CmdError{Host: r.Host, ExitCode: r.ExitCode, Stderr: tail(r.Stderr, 2048)}
}

// CmdError is a remote command that ran and failed.
type CmdError struct {
	Host     string
	ExitCode int
	Stderr   string
}

func (e *CmdError) Error() string {
	return fmt.Sprintf("%s: exit %d: %s", e.Host, e.ExitCode, e.Stderr)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// RunOptions configure one Run call.
type RunOptions struct {
	// Step names the step for the per-host log file (logs/<host>/<step>.log).
	Step string
	// Env is set in the command's environment (values are never logged).
	Env map[string]string
	// Stdin feeds the command.
	Stdin io.Reader
	// Stdout, Stderr receive the output as it comes (besides the log).
	Stdout, Stderr io.Writer
	// Timeout bounds the command (0: none beyond ctx).
	Timeout time.Duration
}

// RunOption is a functional option of Run.
type RunOption func(*RunOptions)

// Step names the step for logs.
func Step(name string) RunOption { return func(o *RunOptions) { o.Step = name } }

// Env sets environment variables for the command.
func Env(env map[string]string) RunOption { return func(o *RunOptions) { o.Env = env } }

// Stdin feeds the command's standard input.
func Stdin(r io.Reader) RunOption { return func(o *RunOptions) { o.Stdin = r } }

// Output streams the command's output.
func Output(stdout, stderr io.Writer) RunOption {
	return func(o *RunOptions) { o.Stdout, o.Stderr = stdout, stderr }
}

// Timeout bounds the command.
func Timeout(d time.Duration) RunOption { return func(o *RunOptions) { o.Timeout = d } }

// Apply collects options.
func Apply(opts []RunOption) RunOptions {
	var o RunOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

// PutFile uploads the local file to dst on the host with mode.
func PutFile(ctx context.Context, r Runner, h infra.Host, local, dst string, mode fs.FileMode) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := r.Put(ctx, h, dst, f, mode); err != nil {
		return fmt.Errorf("upload of %s to %s:%s: %w", local, h.Name, dst, err)
	}
	return nil
}
