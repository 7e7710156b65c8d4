package provision

import (
	"bytes"
	"sync"
)

// LineWriter is an io.Writer that hands every complete line written to it,
// without its newline, to Fn, in order; Flush hands over an unterminated
// rest. It is safe for concurrent writers (a command's stdout and stderr).
type LineWriter struct {
	Fn func(line string)

	mu  sync.Mutex
	buf []byte
}

// Write buffers p and calls Fn for each line it completes.
func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.Fn(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// Flush hands over a last unterminated line, if any.
func (w *LineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.Fn(string(w.buf))
		w.buf = nil
	}
}
