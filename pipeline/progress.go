package pipeline

import (
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"
)

// Progress shows what the run is doing: stages, per-host states and the
// agents' live rate and p99.
type Progress interface {
	// Stage begins a stage (or a bench phase): what is shown of the one
	// before it goes, so that no line outlives the stage it belongs to.
	Stage(name, about string)
	// End says how a stage ended (done, failed, what a teardown left).
	End(name, outcome string)
	// Host sets a host's state within the current stage.
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

// End prints how a stage ended.
func (l *Lines) End(name, outcome string) { l.printf("-- %s: %s", name, outcome) }

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

// summarizeStatus turns a YCSB status line into "Ts: N ops, now R ops/s, READ
// p99 X µs". The rate is YCSB's "current ops/sec", the operations since the
// agent's previous line over that interval; labelled "now" so that the last
// line of a phase (a short interval) is not read as the phase's throughput.
func summarizeStatus(line string) string {
	m := statusOps.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	s := fmt.Sprintf("%ss: %s ops", m[1], m[2])
	if m[3] != "" {
		s += ", now " + m[3] + " ops/s"
	}
	for _, p := range statusP99.FindAllStringSubmatch(line, -1) {
		if p[2] != "0" && p[1] != "CLEANUP" {
			s += fmt.Sprintf(", %s p99 %s µs", p[1], p[3])
		}
	}
	return s
}
