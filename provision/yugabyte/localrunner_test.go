package yugabyte

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// localRunner is a test-only provision.Runner that runs every host's
// scripts with bash on this machine (the hosts differ by their Base and
// their 127.0.0.x address). It counts uploads per host, and keeps each
// script run per host and step. (provision/localexec is the real runner
// for local hosts; this one stays small and test-only so these tests do
// not depend on it.)
type localRunner struct {
	mu   sync.Mutex
	puts map[string]int      // host → Put calls
	runs map[string][]string // host → steps, in order
	// scripts are every script run, in order.
	scripts []string
}

// allScripts are the scripts run so far.
func (r *localRunner) allScripts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.scripts...)
}

var _ provision.Runner = (*localRunner)(nil)

func newLocalRunner() *localRunner {
	return &localRunner{puts: map[string]int{}, runs: map[string][]string{}}
}

func (r *localRunner) putCount(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.puts[host]
}

func (r *localRunner) steps(host string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.runs[host]...)
}

func (r *localRunner) Run(ctx context.Context, h infra.Host, script string, opts ...provision.RunOption) (provision.Result, error) {
	o := provision.Apply(opts)
	r.mu.Lock()
	r.runs[h.Name] = append(r.runs[h.Name], o.Step)
	r.scripts = append(r.scripts, script)
	r.mu.Unlock()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Env = os.Environ()
	for k, v := range o.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = o.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Like a remote session: the script and its children in their own
	// group, killed as a group on cancellation.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A server that kept the script's stdout open would hang the run:
	// that is a bug of the start script, reported rather than waited for.
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	res := provision.Result{Host: h.Name, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start), Attempts: 1}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.Is(err, exec.ErrWaitDelay):
		return res, fmt.Errorf("local %s, step %s: a child kept the output open: %w", h.Name, o.Step, err)
	case ctx.Err() != nil:
		return res, fmt.Errorf("local %s, step %s: %w", h.Name, o.Step, ctx.Err())
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	default:
		return res, fmt.Errorf("local %s, step %s: %w", h.Name, o.Step, err)
	}
	return res, nil
}

func (r *localRunner) Put(ctx context.Context, h infra.Host, dst string, src io.Reader, mode fs.FileMode) error {
	r.mu.Lock()
	r.puts[h.Name]++
	r.mu.Unlock()
	// No MkdirAll: a remote Put does not make directories either.
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".put-*")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func (r *localRunner) Get(ctx context.Context, h infra.Host, src string, dst io.Writer) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(dst, f)
	return err
}
