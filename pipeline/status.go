package pipeline

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// StatusSchema versions the JSON that `ybbench status --run … -o json`
// prints.
const StatusSchema = "ybbench-status/1"

// Status is one run as `ybbench status` shows it: the run's summary (as
// `ybbench runs` lists it) and its ledger's steps (its JSON is a
// documented interface: docs/json-output.md).
type Status struct {
	Schema string `json:"schema"`
	RunSummary
	// Host is the machine the orchestrator ran on.
	Host     string       `json:"orchestrator_host,omitempty"`
	Reopened []time.Time  `json:"reopened,omitempty"`
	Steps    []StatusStep `json:"steps"`
	// Remains is what a teardown could not remove.
	Remains []string `json:"remains,omitempty"`
}

// StatusStep is one step of the ledger.
type StatusStep struct {
	Name            string            `json:"name"`
	Status          string            `json:"status"`
	About           string            `json:"about,omitempty"`
	Hosts           []string          `json:"hosts,omitempty"`
	Started         time.Time         `json:"started"`
	Ended           *time.Time        `json:"ended,omitempty"`
	DurationSeconds float64           `json:"duration_seconds,omitempty"`
	Error           string            `json:"error,omitempty"`
	Details         map[string]string `json:"details,omitempty"`
}

// StatusOf reads a run directory's ledger and lock into its Status.
func StatusOf(dir string) (Status, error) {
	sum := Summarize(dir)
	l, err := OpenLedger(dir)
	if err != nil {
		return Status{}, err
	}
	rec := l.Record()
	s := Status{Schema: StatusSchema, RunSummary: sum, Host: rec.Hostname, Reopened: rec.Reopened,
		Steps: []StatusStep{}, Remains: rec.Remains}
	for _, st := range rec.Steps {
		ss := StatusStep{Name: st.Name, Status: st.Status, About: st.About, Hosts: st.Hosts, Started: st.Started,
			Error: st.Error, Details: st.Details}
		if !st.Ended.IsZero() {
			ended := st.Ended
			ss.Ended = &ended
			ss.DurationSeconds = st.Ended.Sub(st.Started).Seconds()
		}
		s.Steps = append(s.Steps, ss)
	}
	return s, nil
}

// WriteStatus prints a run's status: what the run is, who owns it, which
// process holds it (only while one does), then its steps.
func WriteStatus(w io.Writer, s Status) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s\n", s.ID)
	line := func(k, v string) { fmt.Fprintf(&b, "  %-10s %s\n", k, v) }
	line("profile", s.Profile)
	line("state", s.State)
	if s.Outcome != "" {
		line("outcome", s.Outcome)
	}
	line("owner", s.Owner)
	started := "-"
	if s.Started != nil {
		started = s.Started.UTC().Format("2006-01-02 15:04:05 UTC")
		if d := durationText(s.DurationSeconds); d != "-" {
			started += ", " + d + " to its last step"
		}
	}
	line("started", started)
	for _, t := range s.Reopened {
		line("reopened", t.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if s.Held {
		holder := "a process (its pid is not written yet)"
		if s.HeldByPID > 0 {
			holder = fmt.Sprintf("process %d", s.HeldByPID)
		}
		line("held by", holder)
	} else if s.State == RunActive || s.State == RunTeardownIncomplete {
		// Nothing is working on it: its stages are run one by one, or the
		// process that ran it was killed; either way its hosts may be up.
		line("note", fmt.Sprintf("no process holds it: ybbench resume --run %s continues it, ybbench down --run %s tears it down", s.ID, s.ID))
	}
	line("directory", s.Dir)
	if len(s.Steps) > 0 {
		b.WriteString("steps:\n")
	}
	for _, st := range s.Steps {
		d := ""
		if st.Ended != nil {
			d = time.Duration(st.DurationSeconds * float64(time.Second)).Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "  %-8s %-28s %8s  %s", st.Status, st.Name, d, st.About)
		if st.Error != "" {
			fmt.Fprintf(&b, "  — %s", st.Error)
		}
		b.WriteString("\n")
	}
	for _, x := range s.Remains {
		fmt.Fprintf(&b, "  remains: %s\n", x)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
