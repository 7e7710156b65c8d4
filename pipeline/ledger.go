package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ybbench/ybbench/internal/atomicfile"
)

// LedgerSchema versions run.json.
const LedgerSchema = "ybbench-run/1"

// Step statuses.
const (
	StepStarted = "started" // written before the step changes the world
	StepDone    = "done"
	StepFailed  = "failed"
)

// Run states (the lifecycle).
const (
	RunActive             = "active"
	RunTornDown           = "torn-down"
	RunTeardownIncomplete = "teardown-incomplete"
)

// Run outcomes.
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
)

// Step is one entry of the ledger.
type Step struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// About says what the step is about to do, written before it does it.
	About   string    `json:"about,omitempty"`
	Hosts   []string  `json:"hosts,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitempty"`
	Error   string    `json:"error,omitempty"`
	// Details are what the step produced worth keeping (facts, versions).
	Details map[string]string `json:"details,omitempty"`
	// Epoch is the run's epoch when the step began: a step of an earlier
	// epoch was undone by a teardown.
	Epoch int `json:"epoch,omitempty"`
}

// RunRecord is run.json: the run's spec and every step taken.
type RunRecord struct {
	Schema   string    `json:"schema"`
	ID       string    `json:"id"`
	Dir      string    `json:"dir"`
	Created  time.Time `json:"created"`
	Owner    string    `json:"owner"`
	Hostname string    `json:"orchestrator_host"`
	PID      int       `json:"orchestrator_pid"`
	Spec     Spec      `json:"spec"`
	// State is the run's lifecycle (active, torn-down, teardown-incomplete);
	// Outcome how its work ended (succeeded, failed).
	State   string `json:"state"`
	Outcome string `json:"outcome,omitempty"`
	// Epoch counts the completed teardowns: a step began in the epoch
	// current then; only steps of the current epoch are still in effect.
	Epoch int `json:"epoch,omitempty"`
	// Reopened lists when a torn-down run was taken up again (a step that
	// changes the world began on it).
	Reopened []time.Time `json:"reopened,omitempty"`
	Steps    []Step      `json:"steps"`
	// Remains lists what a teardown could not remove.
	Remains []string `json:"remains,omitempty"`
}

// Ledger is the run's run.json, written atomically before and after every
// step that changes the world, so that a killed orchestrator leaves a record
// `ybbench down` and `ybbench resume` can act on.
type Ledger struct {
	mu   sync.Mutex
	path string
	rec  RunRecord
}

// NewLedger creates run.json in dir.
func NewLedger(dir, id string, s Spec) (*Ledger, error) {
	host, _ := os.Hostname()
	l := &Ledger{path: filepath.Join(dir, "run.json"), rec: RunRecord{
		Schema: LedgerSchema, ID: id, Dir: dir, Created: time.Now().UTC(), Owner: s.Owner,
		Hostname: host, PID: os.Getpid(), Spec: s, State: RunActive,
	}}
	return l, l.save()
}

// OpenLedger reads an existing run.json.
func OpenLedger(dir string) (*Ledger, error) {
	path := filepath.Join(dir, "run.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &Ledger{path: path}
	if err := json.Unmarshal(b, &l.rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if l.rec.Schema != LedgerSchema {
		return nil, fmt.Errorf("%s: schema %q, this ybbench reads %q", path, l.rec.Schema, LedgerSchema)
	}
	l.rec.Dir = dir
	return l, nil
}

// Record returns a copy of the ledger's content.
func (l *Ledger) Record() RunRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rec
	r.Steps = append([]Step(nil), l.rec.Steps...)
	return r
}

// localSteps change nothing outside the run directory (down undoes what
// the others did): beginning one does not reopen a torn-down run.
var localSteps = map[string]bool{"collect": true, "report": true, "down": true}

// Begin writes that a step is about to start, before it does anything. A
// step that changes the world reopens a torn-down run (its state is active
// again, and when is recorded), so that its down has something to undo.
func (l *Ledger) Begin(name, about string, hosts []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.PID = os.Getpid()
	now := time.Now().UTC()
	if l.rec.State == RunTornDown && !localSteps[name] {
		l.rec.State = RunActive
		l.rec.Reopened = append(l.rec.Reopened, now)
	}
	st := Step{Name: name, Status: StepStarted, About: about, Hosts: hosts, Started: now, Epoch: l.rec.Epoch}
	if i := l.find(name); i >= 0 {
		l.rec.Steps[i] = st // a rerun of the step (resume)
	} else {
		l.rec.Steps = append(l.rec.Steps, st)
	}
	return l.save()
}

// End writes a step's outcome.
func (l *Ledger) End(name string, err error, details map[string]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.find(name)
	if i < 0 {
		return fmt.Errorf("ledger: step %s was never begun", name)
	}
	s := &l.rec.Steps[i]
	s.Ended = time.Now().UTC()
	s.Details = details
	if err != nil {
		s.Status, s.Error = StepFailed, err.Error()
	} else {
		s.Status, s.Error = StepDone, ""
	}
	return l.save()
}

// Done reports whether a step completed since the last teardown (a
// teardown undoes every step before it, so resume redoes them).
func (l *Ledger) Done(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.find(name)
	return i >= 0 && l.rec.Steps[i].Status == StepDone && l.current(l.rec.Steps[i])
}

// Started reports whether a step was begun since the last teardown (it may
// have changed the world, and nothing has undone it yet).
func (l *Ledger) Started(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.find(name)
	return i >= 0 && l.current(l.rec.Steps[i])
}

// StartedAny reports whether a step whose name has the prefix was begun
// since the last teardown.
func (l *Ledger) StartedAny(prefix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, st := range l.rec.Steps {
		if strings.HasPrefix(st.Name, prefix) && l.current(st) {
			return true
		}
	}
	return false
}

// Open reports whether a step that changes the world was begun since the
// last teardown: what down has to undo.
func (l *Ledger) Open() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, st := range l.rec.Steps {
		if !localSteps[st.Name] && l.current(st) {
			return true
		}
	}
	return false
}

// current reports whether a step began after the last completed teardown.
func (l *Ledger) current(st Step) bool { return st.Epoch == l.rec.Epoch }

// SetOutcome records how the run's work ended.
func (l *Ledger) SetOutcome(outcome string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Outcome = outcome
	return l.save()
}

// SetState records the run's state (and what remains after a failed
// teardown). Torn down starts a new epoch: every step before it is undone.
func (l *Ledger) SetState(state string, remains []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.State, l.rec.Remains = state, remains
	if state == RunTornDown {
		l.rec.Epoch++
	}
	return l.save()
}

func (l *Ledger) find(name string) int {
	for i := range l.rec.Steps {
		if l.rec.Steps[i].Name == name {
			return i
		}
	}
	return -1
}

// save writes run.json atomically and durably: a crash leaves the old or
// the new file, never half of one.
func (l *Ledger) save() error {
	if err := atomicfile.WriteJSON(l.path, &l.rec, 0o644); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}
