package livemetricstest

import (
	"bytes"
	"regexp"
	"sync"
)

// Gate is a writer for an agent's stdout or stderr run in a test: it keeps
// what is written, and the first time the text holds its marker it closes
// Reached and, when it holds, blocks that write until Release. An agent
// writing its final report is held there, its engine ended and its server
// still up, for a scrape of its final state.
type Gate struct {
	marker  []byte
	hold    bool
	mu      sync.Mutex
	buf     bytes.Buffer
	fired   bool
	reached chan struct{}
	once    sync.Once
	release chan struct{}
}

// NewGate watches for marker; hold blocks the write that brings it.
func NewGate(marker string, hold bool) *Gate {
	return &Gate{marker: []byte(marker), hold: hold, reached: make(chan struct{}), release: make(chan struct{})}
}

// Write keeps p; see Gate.
func (g *Gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	n, err := g.buf.Write(p)
	fire := !g.fired && bytes.Contains(g.buf.Bytes(), g.marker)
	g.fired = g.fired || fire
	g.mu.Unlock()
	if fire {
		close(g.reached)
		if g.hold {
			<-g.release
		}
	}
	return n, err
}

// Reached is closed once the marker was written.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Release lets the held write return; calling it again does nothing, so a
// test may defer it.
func (g *Gate) Release() { g.once.Do(func() { close(g.release) }) }

// String is what was written so far.
func (g *Gate) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// Serving is the line every mode writes on stderr once it listens.
const Serving = "Serving live metrics at http://"

var servingAddr = regexp.MustCompile(`Serving live metrics at http://([^/\s]+)/metrics`)

// AddrIn is the address an agent's stderr says it serves on.
func AddrIn(text string) (string, bool) {
	m := servingAddr.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[1], true
}
