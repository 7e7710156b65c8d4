package pipeline_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// progressLog is a Progress that keeps what the pipeline tells it, one
// event a line.
type progressLog struct {
	mu     sync.Mutex
	events []string
}

func (p *progressLog) add(format string, a ...any) {
	p.mu.Lock()
	p.events = append(p.events, fmt.Sprintf(format, a...))
	p.mu.Unlock()
}
func (p *progressLog) Stage(name, about string) { p.add("stage %s", name) }
func (p *progressLog) End(name, outcome string) { p.add("end %s: %s", name, outcome) }
func (p *progressLog) Host(host, state string)  { p.add("host %s: %s", host, state) }
func (p *progressLog) Agent(host, line string)  {}
func (p *progressLog) Note(msg string)          {}
func (p *progressLog) Close()                   {}

// checkProgress checks what the whole pipeline told the progress view:
// every stage it began it ended, before the next began; the agent's upload
// is reported over before its stage ends; and the last event is the
// teardown's outcome.
func checkProgress(t *testing.T, p *progressLog) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	open := ""
	inPlace := false
	for _, e := range p.events {
		switch {
		case strings.HasPrefix(e, "stage "):
			if open != "" {
				t.Errorf("stage %s began before %s ended", strings.TrimPrefix(e, "stage "), open)
			}
			open = strings.TrimPrefix(e, "stage ")
		case strings.HasPrefix(e, "end "):
			name, _, _ := strings.Cut(strings.TrimPrefix(e, "end "), ":")
			if name != open {
				t.Errorf("%q ends a stage that is not the current one (%q)", e, open)
			}
			if name == "agents" && !inPlace {
				t.Error("the agents stage ended with no client's load agent reported in place")
			}
			open = ""
		case strings.HasSuffix(e, ": load agent in place"):
			inPlace = open == "agents"
		}
	}
	if n := len(p.events); n == 0 || !strings.HasPrefix(p.events[n-1], "end down: torn down, nothing left") {
		t.Errorf("the last progress event is not the teardown's outcome: %q", p.events)
	}
}
