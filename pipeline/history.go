package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// checkHistorySettings refuses history settings that contradict each
// other or do not parse, naming the setting.
func (s *Spec) checkHistorySettings() []error {
	var errs []error
	if s.NoHistory && s.given("history_url") {
		errs = append(errs, fmt.Errorf("%s: given with no_history: a run adds to no history then", s.where("history_url")))
	}
	if s.HistoryURL != "" {
		if _, _, err := history.KindOf(s.HistoryURL); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", s.where("history_url"), err))
		}
	}
	if _, err := s.buildTime(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", s.where("build_time"), err))
	}
	return errs
}

// buildTime is build_time parsed (nil when not given).
func (s *Spec) buildTime() (*time.Time, error) {
	if s.BuildTime == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s.BuildTime)
	if err != nil {
		return nil, fmt.Errorf("%q: want a time in RFC 3339, e.g. 2026-12-06T10:00:00Z", s.BuildTime)
	}
	return &t, nil
}

// build is the build under test as the settings name it (nil: none).
func (s *Spec) build() *collect.Build {
	t, _ := s.buildTime()
	if s.BuildID == "" && t == nil {
		return nil
	}
	return &collect.Build{ID: s.BuildID, Time: t}
}

// checkHistory opens the history store a run will add to, so that an
// unreachable server, refused credentials or a store a newer ybbench
// wrote are known before anything is made.
func (s *Spec) checkHistory(ctx context.Context) []error {
	if s.NoHistory {
		return nil
	}
	st, err := history.Open(ctx, s.HistoryURL)
	if err != nil {
		return []error{fmt.Errorf("%s: %v", s.where("history_url"), err)}
	}
	st.Close()
	return nil
}

// historyStep is the ledger step that adds a run's results to its
// history.
const historyStep = "history"

// addToHistory adds the run's result to its history store: the series
// it measured, under its build, once (a resumed run adds nothing again).
func (r *Run) addToHistory(ctx context.Context) error {
	if r.spec.NoHistory || r.ledger.Done(historyStep) {
		return nil
	}
	st, err := history.Open(ctx, r.spec.HistoryURL)
	if err != nil {
		return exitcode.Wrap(exitcode.Tool, fmt.Errorf("history: %w", err))
	}
	defer st.Close()
	return r.step(historyStep, "add the results to the history: "+st.Describe(), nil, func() (map[string]string, error) {
		a, err := history.AddRun(ctx, st, r.dir, history.Build{})
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Tool, fmt.Errorf("history: %w", err))
		}
		what := fmt.Sprintf("run %s, build %q: %d series", a.RunID, a.Build.ID, a.Series)
		if !a.Added {
			what += " (there already)"
		}
		for _, sk := range a.Skipped {
			r.progress().Note("history: left out " + sk)
		}
		r.progress().Note("history: added " + what + " to " + st.Describe())
		return map[string]string{"store": st.Describe(), "build": a.Build.ID, "series": fmt.Sprint(a.Series)}, nil
	})
}
