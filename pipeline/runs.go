package pipeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"
)

// RunsSchema versions the JSON that `ybbench runs -o json` prints.
const RunsSchema = "ybbench-runs/1"

// RunList is the runs of a runs directory, as `ybbench runs` lists them
// (its JSON is a documented interface: docs/json-output.md).
type RunList struct {
	Schema  string       `json:"schema"`
	RunsDir string       `json:"runs_dir"`
	Runs    []RunSummary `json:"runs"`
}

// RunSummary is one run: what its ledger says, and whether a process
// holds it now. A run directory whose ledger cannot be read is listed with
// Error saying why, not left out.
type RunSummary struct {
	ID      string     `json:"id"`
	Dir     string     `json:"dir"`
	Profile string     `json:"profile,omitempty"`
	State   string     `json:"state,omitempty"`
	Outcome string     `json:"outcome,omitempty"`
	Owner   string     `json:"owner,omitempty"`
	Started *time.Time `json:"started,omitempty"`
	// DurationSeconds is from the start to the last step's end (or begin)
	// the ledger records; absent before any step.
	DurationSeconds float64 `json:"duration_seconds,omitempty"`
	// HeldByPID is the process that holds the run's lock now (0: none, or
	// its pid is not written yet; Held says which).
	Held      bool   `json:"held"`
	HeldByPID int    `json:"held_by_pid,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ListRuns reads every run directory in runsDir (a directory holding a
// run.json), oldest first. A runs directory that does not exist holds no
// runs.
func ListRuns(runsDir string) (RunList, error) {
	abs, err := filepath.Abs(runsDir)
	if err != nil {
		return RunList{}, err
	}
	l := RunList{Schema: RunsSchema, RunsDir: abs, Runs: []RunSummary{}}
	entries, err := os.ReadDir(abs)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("runs directory: %w", err)
	}
	for _, e := range entries {
		dir := filepath.Join(abs, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "run.json")); !e.IsDir() || err != nil {
			continue // not a run: left alone
		}
		l.Runs = append(l.Runs, Summarize(dir))
	}
	// Oldest first (the newest nearest the prompt), then by id; runs whose
	// ledger cannot be read last.
	sort.SliceStable(l.Runs, func(i, j int) bool {
		a, b := l.Runs[i].Started, l.Runs[j].Started
		switch {
		case a == nil || b == nil:
			if (a == nil) != (b == nil) {
				return b == nil
			}
		case !a.Equal(*b):
			return a.Before(*b)
		}
		return l.Runs[i].ID < l.Runs[j].ID
	})
	return l, nil
}

// Summarize reads one run directory's ledger and lock.
func Summarize(dir string) RunSummary {
	s := RunSummary{ID: filepath.Base(dir), Dir: dir}
	l, err := OpenLedger(dir)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	rec := l.Record()
	started := rec.Created
	s.ID, s.Profile, s.State, s.Outcome, s.Started = rec.ID, rec.Spec.Profile, rec.State, rec.Outcome, &started
	s.Owner = ownerOf(rec, dir)
	if end := lastStepTime(rec); !end.IsZero() {
		s.DurationSeconds = end.Sub(rec.Created).Seconds()
	}
	pid, held, err := Holder(dir)
	if err != nil {
		s.Error = err.Error()
	}
	s.Held, s.HeldByPID = held, pid
	return s
}

// lastStepTime is the latest time a step of the ledger began or ended.
func lastStepTime(rec RunRecord) time.Time {
	var last time.Time
	for _, st := range rec.Steps {
		for _, t := range []time.Time{st.Started, st.Ended} {
			if t.After(last) {
				last = t
			}
		}
	}
	return last
}

// ownerOf is the run's owner: the ledger's, else (a ledger written before
// the owner was always recorded, or a spec that set it empty) the user who
// owns run.json, by name or by uid.
func ownerOf(rec RunRecord, dir string) string {
	if rec.Owner != "" && rec.Owner != "unknown" {
		return rec.Owner
	}
	info, err := os.Stat(filepath.Join(dir, "run.json"))
	if err != nil {
		return "(not recorded)"
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "(not recorded)"
	}
	uid := strconv.FormatUint(uint64(st.Uid), 10)
	if u, err := user.LookupId(uid); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + uid
}

// WriteRuns prints the runs as a table, one a line; a runs directory
// without runs says so.
func WriteRuns(w io.Writer, l RunList) error {
	if len(l.Runs) == 0 {
		_, err := fmt.Fprintf(w, "no runs in %s\n", l.RunsDir)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPROFILE\tSTATE\tOUTCOME\tSTARTED (UTC)\tDURATION")
	var problems []string
	for _, r := range l.Runs {
		if r.Error != "" {
			// Said below the table, where a long message does not widen it.
			problems = append(problems, fmt.Sprintf("%s: %s", r.ID, r.Error))
		}
		if r.Started == nil {
			fmt.Fprintf(tw, "%s\t-\tunreadable\t-\t-\t-\n", r.ID)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Profile, stateText(r), orDash(r.Outcome),
			r.Started.UTC().Format("2006-01-02 15:04:05"), durationText(r.DurationSeconds))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range problems {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	return nil
}

// stateText is the ledger's state, and the process holding the run when
// one does.
func stateText(r RunSummary) string {
	switch {
	case r.Held && r.HeldByPID > 0:
		return fmt.Sprintf("%s, held by pid %d", r.State, r.HeldByPID)
	case r.Held:
		return r.State + ", held"
	}
	return r.State
}

func durationText(secs float64) string {
	if secs <= 0 {
		return "-"
	}
	return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
