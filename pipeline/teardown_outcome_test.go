package pipeline

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ybbench/ybbench/infra"
)

// eventLog is a Progress that keeps every event as a line.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (e *eventLog) add(s string) {
	e.mu.Lock()
	e.events = append(e.events, s)
	e.mu.Unlock()
}
func (e *eventLog) Stage(name, about string) { e.add("stage " + name) }
func (e *eventLog) End(name, outcome string) { e.add("end " + name + ": " + outcome) }
func (e *eventLog) Host(host, state string)  { e.add("host " + host + ": " + state) }
func (e *eventLog) Agent(host, line string)  {}
func (e *eventLog) Note(msg string)          { e.add("note " + msg) }
func (e *eventLog) Close()                   {}
func (e *eventLog) last() string             { return e.events[len(e.events)-1] }

// failingDestroy is a provider whose destroy fails.
type failingDestroy struct{ fakeProvider }

func (p *failingDestroy) Destroy(context.Context, *infra.Cluster) error {
	return errors.New("terraform destroy: exit 1")
}

// The teardown's outcome is the last thing the progress hears: nothing
// left, what stays on an inventory's machines, or what remains.
func TestDownTellsTheProgressWhatIsLeft(t *testing.T) {
	for _, c := range []struct {
		name string
		p    infra.Provider
		want string
	}{
		{"destroyed", &fakeProvider{}, "end down: torn down, nothing left"},
		{"inventory", &fakeProvider{traits: infra.Traits{ReusesMachines: true}}, "end down: torn down: the run's database and files are removed"},
		{"failed", &failingDestroy{}, "end down: teardown incomplete, resources may remain: terraform destroy: exit 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &eventLog{}
			r := newTestRun(t, nil, Deps{Progress: log, Provider: func(*Spec, string) (infra.Provider, error) { return c.p, nil }})
			if err := r.Ledger().Begin("up", "", nil); err != nil {
				t.Fatal(err)
			}
			r.Ledger().End("up", nil, nil)
			r.Down(context.Background())
			if !strings.HasPrefix(log.last(), c.want) {
				t.Errorf("the last event is %q, want %q…\nall: %q", log.last(), c.want, log.events)
			}
			if c.name == "failed" {
				return
			}
			// A second down has nothing to do, and says so last.
			r.Down(context.Background())
			if want := "end down: already torn down, nothing left"; log.last() != want {
				t.Errorf("a second down's last event is %q, want %q", log.last(), want)
			}
		})
	}
}
