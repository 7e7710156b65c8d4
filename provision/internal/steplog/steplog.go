// Package steplog writes the per-host, per-step transcripts of a run
// (runs/<id>/logs/<host>/<step>.log) and keeps the tail of a command's
// output for its Result. Both Runners (provision/ssh and
// provision/localexec) use it, so their logs read the same.
//
// Environment values never reach a log: the header names the variables and
// prints <redacted> for every value.
package steplog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// TailSize is how much of each output stream a Result keeps.
const TailSize = 64 << 10

// Redacted replaces every environment value in logs.
const Redacted = "<redacted>"

// StepName is the step a log is filed under: "run" when the caller named none.
func StepName(step string) string {
	if step == "" {
		return "run"
	}
	return step
}

// SafeName makes a host or step name usable as one path element: anything
// but letters, digits, '.', '-' and '_' becomes '_', and "." or ".." is
// never returned.
func SafeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
		default:
			b[i] = '_'
		}
	}
	out := string(b)
	if out == "" || out == "." || out == ".." {
		out = strings.Repeat("_", max(len(out), 1))
	}
	return out
}

// Path is the log file of a step on a host under dir.
func Path(dir, host, step string) string {
	return filepath.Join(dir, SafeName(host), SafeName(StepName(step))+".log")
}

// RedactEnv lists the variables of env, sorted, each with its value
// replaced: "A=<redacted> B=<redacted>".
func RedactEnv(env map[string]string) string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, k := range names {
		names[i] = k + "=" + Redacted
	}
	return strings.Join(names, " ")
}

// Header is the block written before a command's output: time, host,
// step, the variables (values redacted) and the script.
func Header(now time.Time, host, step, script string, env map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s host=%s step=%s\n", now.UTC().Format(time.RFC3339Nano), host, StepName(step))
	if len(env) > 0 {
		fmt.Fprintf(&b, "=== env: %s\n", RedactEnv(env))
	}
	b.WriteString("=== script:\n")
	b.WriteString(script)
	if !strings.HasSuffix(script, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("=== output:\n")
	return b.String()
}

// Log is one step's transcript, opened for appending. Its Write never
// fails: a log that cannot be written must not fail the command it
// records, so the first write error is kept and returned by Close.
// Stdout and stderr share one Log; writes are serialized.
type Log struct {
	mu  sync.Mutex
	f   *os.File // nil: discard
	err error
}

// Open appends to the step's log under dir (creating dir/<host>/ with mode
// 0700 and the file with 0600) and writes the header. With dir == "" the
// Log discards everything.
func Open(dir, host, step, script string, env map[string]string) (*Log, error) {
	if dir == "" {
		return &Log{}, nil
	}
	p := Path(dir, host, step)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("step log: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("step log: %w", err)
	}
	l := &Log{f: f}
	_, _ = l.Write([]byte(Header(time.Now(), host, step, script, env)))
	return l, nil
}

// Write appends p; it always reports success (see Log).
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil && l.err == nil {
		if _, err := l.f.Write(p); err != nil {
			l.err = err
		}
	}
	return len(p), nil
}

// Close writes the footer line (e.g. "exit 0 after 1.2s") and closes the
// file. It returns the first error met while writing the log.
func (l *Log) Close(footer string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	if l.err == nil {
		if _, err := fmt.Fprintf(l.f, "\n=== %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), footer); err != nil {
			l.err = err
		}
	}
	if err := l.f.Close(); err != nil && l.err == nil {
		l.err = err
	}
	l.f = nil
	if l.err != nil {
		return fmt.Errorf("step log: %w", l.err)
	}
	return nil
}

// Tail keeps the last Max bytes written to it. Safe for concurrent use (a
// cancelled command's output may still be arriving when its Result is
// taken).
type Tail struct {
	Max int
	mu  sync.Mutex
	b   []byte
}

// NewTail returns a Tail keeping the last n bytes.
func NewTail(n int) *Tail { return &Tail{Max: n} }

// Write keeps the end of p; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.Max {
		t.b = append(t.b[:0], p[len(p)-t.Max:]...)
		return n, nil
	}
	t.b = append(t.b, p...)
	// Trim only when twice over, so a stream of small writes copies each
	// byte a bounded number of times.
	if len(t.b) > 2*t.Max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.Max:]...)
	}
	return n, nil
}

// Bytes returns a copy of the last Max bytes.
func (t *Tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > t.Max {
		b = b[len(b)-t.Max:]
	}
	return slices.Clone(b)
}
