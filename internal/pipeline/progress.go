package pipeline

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Progress shows what the run is doing: stages, per-host states and the
// agents' live rate and p99.
type Progress interface {
	Stage(name, about string)
	Host(host, state string)
	// Agent receives one status line from an agent on host.
	Agent(host, line string)
	Note(msg string)
	Close()
}

// Lines is the progress for logs and CI: plain timestamped lines.
type Lines struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewLines writes to w.
func NewLines(w io.Writer) *Lines { return &Lines{w: w, now: time.Now} }

func (l *Lines) printf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s %s\n", l.now().UTC().Format("15:04:05.000"), fmt.Sprintf(format, a...))
}

// Stage prints a stage line.
func (l *Lines) Stage(name, about string) { l.printf("== %s: %s", name, about) }

// Host prints a host's state.
func (l *Lines) Host(host, state string) { l.printf("   %s: %s", host, state) }

// Agent prints an agent's status line, shortened to its rate and p99s.
func (l *Lines) Agent(host, line string) {
	if s := summarizeStatus(line); s != "" {
		l.printf("   %s: %s", host, s)
	}
}

// Note prints a note.
func (l *Lines) Note(msg string) { l.printf("   %s", msg) }

// Close does nothing.
func (l *Lines) Close() {}

var (
	statusOps = regexp.MustCompile(`(\d+) sec: (\d+) operations; (?:([\d.]+) current ops/sec; )?`)
	statusP99 = regexp.MustCompile(`\[([A-Z-]+): Count=(\d+), [^\]]*?99=([\d.]+),`)
)

// summarizeStatus turns a YCSB status line into "N ops, R ops/s, READ p99 X ms".
func summarizeStatus(line string) string {
	m := statusOps.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	s := fmt.Sprintf("%ss: %s ops", m[1], m[2])
	if m[3] != "" {
		s += ", " + m[3] + " ops/s"
	}
	for _, p := range statusP99.FindAllStringSubmatch(line, -1) {
		if p[2] != "0" && p[1] != "CLEANUP" {
			s += fmt.Sprintf(", %s p99 %s µs", p[1], p[3])
		}
	}
	return s
}

// Live is the progress for a terminal: a view redrawn in place with the
// stage, every host's state and every agent's latest rate.
type Live struct {
	mu     sync.Mutex
	w      io.Writer
	stage  string
	about  string
	hosts  map[string]string
	agents map[string]string
	notes  []string
	lines  int
	done   chan struct{}
}

// NewLive draws on w (a terminal) and refreshes twice a second.
func NewLive(w io.Writer) *Live {
	l := &Live{w: w, hosts: map[string]string{}, agents: map[string]string{}, done: make(chan struct{})}
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

// Stage sets the current stage.
func (l *Live) Stage(name, about string) {
	l.mu.Lock()
	l.stage, l.about = name, about
	l.mu.Unlock()
	l.draw()
}

// Host sets a host's state.
func (l *Live) Host(host, state string) {
	l.mu.Lock()
	l.hosts[host] = state
	l.mu.Unlock()
}

// Agent records an agent's latest status.
func (l *Live) Agent(host, line string) {
	if s := summarizeStatus(line); s != "" {
		l.mu.Lock()
		l.agents[host] = s
		l.mu.Unlock()
	}
}

// Note adds a note (the last few are shown).
func (l *Live) Note(msg string) {
	l.mu.Lock()
	l.notes = append(l.notes, msg)
	if len(l.notes) > 5 {
		l.notes = l.notes[len(l.notes)-5:]
	}
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
	out := []string{fmt.Sprintf("stage: %s — %s", l.stage, l.about)}
	for _, m := range []map[string]string{l.hosts, l.agents} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, fmt.Sprintf("  %-10s %s", k, m[k]))
		}
	}
	out = append(out, l.notes...)
	for _, o := range out {
		b.WriteString(o + "\n")
	}
	l.lines = len(out)
	io.WriteString(l.w, b.String())
}
