package terraform

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

// Error is a Terraform command that failed. Its message is Terraform's own:
// the diagnostics at the end of its stderr.
type Error struct {
	// Command is the Terraform command: init, plan, apply, output, destroy.
	Command string
	// Stderr is the tail of Terraform's stderr from its first "Error:" on,
	// whitespace folded to single spaces (Terraform wraps its diagnostics at
	// 78 columns, which would split the messages of our own scripts).
	Stderr string
	// Log is the file with the command's whole output.
	Log string
	// Err is tfexec's error; errors.Is sees context cancellation through it.
	Err error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("terraform %s: %v", e.Command, cause(e.Err))
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	if e.Log != "" {
		msg += " (output in " + e.Log + ")"
	}
	return msg
}

// Unwrap returns tfexec's error.
func (e *Error) Unwrap() error { return e.Err }

// cause is the short reason a command failed: its exit status, the context's
// error, or tfexec's message (whose first line is the cause; the rest repeats
// stderr, which the caller reports itself).
func cause(err error) string {
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.String()
	case errors.Is(err, context.Canceled):
		return context.Canceled.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded.Error()
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return first
}

// maxDiagnostics bounds the message taken from stderr: long enough for a few
// diagnostics, short enough for an error line.
const maxDiagnostics = 2000

// diagnostics extracts Terraform's message from the tail of its stderr:
// from the first "Error:" on (warnings before it are noise here), box-drawing
// characters dropped, whitespace folded, at most maxDiagnostics characters
// with the end kept.
func diagnostics(stderr string) string {
	if i := strings.Index(stderr, "Error: "); i >= 0 {
		stderr = stderr[i:]
	}
	stderr = strings.NewReplacer("╷", " ", "│", " ", "╵", " ").Replace(stderr)
	s := strings.Join(strings.Fields(stderr), " ")
	if r := []rune(s); len(r) > maxDiagnostics {
		s = "…" + string(r[len(r)-maxDiagnostics:])
	}
	return s
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
