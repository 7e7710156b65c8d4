package pipeline

import (
	"io"
	"strings"
	"sync"
	"time"
)

// Live is the progress for a terminal: a view redrawn in place with the
// stage, every host's state and every agent's latest rate within it.
type Live struct {
	mu    sync.Mutex
	w     io.Writer
	view  view
	lines int
	done  chan struct{}
}

// NewLive draws on w (a terminal) and refreshes twice a second.
func NewLive(w io.Writer) *Live {
	l := &Live{w: w, view: newView(), done: make(chan struct{})}
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				l.draw()
			case <-l.done:
				return
			}
		}
	}()
	return l
}

// Stage starts a stage and draws at once.
func (l *Live) Stage(name, about string) {
	l.mu.Lock()
	l.view.stage(name, about)
	l.mu.Unlock()
	l.draw()
}

// End records how a stage ended and draws at once: the last frame of a
// run is its teardown's outcome.
func (l *Live) End(name, outcome string) {
	l.mu.Lock()
	l.view.end(name, outcome)
	l.mu.Unlock()
	l.draw()
}

// Host sets a host's state.
func (l *Live) Host(host, state string) {
	l.mu.Lock()
	l.view.host(host, state)
	l.mu.Unlock()
}

// Agent records an agent's latest status.
func (l *Live) Agent(host, line string) {
	l.mu.Lock()
	l.view.agent(host, line)
	l.mu.Unlock()
}

// Note adds a note (the last few are shown).
func (l *Live) Note(msg string) {
	l.mu.Lock()
	l.view.note(msg)
	l.mu.Unlock()
}

// Close draws once more and stops refreshing.
func (l *Live) Close() {
	l.draw()
	close(l.done)
}

func (l *Live) draw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for i := 0; i < l.lines; i++ {
		b.WriteString("\x1b[1A\x1b[2K") // up one line, clear it
	}
	out := l.view.frame()
	for _, o := range out {
		b.WriteString(o + "\n")
	}
	l.lines = len(out)
	io.WriteString(l.w, b.String())
}
