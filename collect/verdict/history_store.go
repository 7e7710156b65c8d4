package verdict

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/history"
	"github.com/ybbench/ybbench/collect/history/changepoint"
)

// DefaultHistoryWindow is how many builds a store series' gate looks back
// over when the gate file names no window.
const DefaultHistoryWindow = 30

// StoreHistory is a history store's series as a baseline: each gate is
// decided on the change points of the gated run's own series over the
// last Window builds up to it.
type StoreHistory struct {
	Store  string
	Series []*history.Series
	// Candidate is the gated run's entry: its series' keys, and its point
	// when the store does not hold it (a run that added to no history).
	Candidate *history.Entry
	Window    int
	Settings  changepoint.Settings
}

// ReadStoreHistory reads a store's series for a gated run.
func ReadStoreHistory(ctx context.Context, spec BaselineSpec, storeURL string, r *collect.Result) (*StoreHistory, error) {
	url := spec.URL
	if url == "" {
		url = storeURL
	}
	st, err := history.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	es, err := st.Entries(ctx)
	if err != nil {
		return nil, err
	}
	cand, err := history.FromResult(r, history.Build{})
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(es, func(e *history.Entry) bool { return e.RunID == cand.RunID }) {
		es = append(es, cand)
	}
	h := &StoreHistory{Store: st.Describe(), Series: history.SeriesOf(es), Candidate: cand, Window: spec.Window,
		Settings: changepoint.Settings{PValue: spec.PValue, MinMagnitude: spec.MinMagnitude}}
	if h.Window == 0 {
		h.Window = DefaultHistoryWindow
	}
	return h, nil
}

// Value is the baseline a ratio is shown against; the store's verdict
// comes from judge, so Value serves only callers that ask for a figure
// alone.
func (h *StoreHistory) Value(workload, operation, metric string) (float64, error) {
	j := h.judge(workload, operation, metric)
	if j.problem != "" {
		return 0, fmt.Errorf("%s", j.problem)
	}
	return j.baseline, nil
}

// Info describes the store.
func (h *StoreHistory) Info() BaselineInfo {
	return BaselineInfo{Source: SourceHistory, Path: h.Store}
}

// judgement is a store-history gate's decision before its rule: the run's
// own value, the level it is held against, and the change point that
// moved the level (nil when none did).
type judgement struct {
	measured, baseline float64
	change             *history.Change
	worse              bool
	note, problem      string
}

// judge finds the run's series and figure, takes the last Window points
// up to the run, and finds the latest change point at or before it: the
// level before that change is the baseline, and the change counts against
// the run only when it worsened the figure. Without a change point the
// baseline is the window's median before the run, and the run passes
// whatever its ratio: one build's dip is no change of level.
func (h *StoreHistory) judge(workload, operation, metric string) judgement {
	var key *history.Key
	for i := range h.Candidate.Points {
		if k := h.Candidate.Points[i].Key; k.Workload == workload && k.Operation == operation {
			key = &k
		}
	}
	if key == nil {
		return judgement{problem: fmt.Sprintf("the run has no figures of %s%s in the history (a workload left out: %s)", workload, opSuffix(operation), strings.Join(h.Candidate.Skipped, "; "))}
	}
	if !slices.Contains(history.OperationFigures, metric) && !slices.Contains(history.WorkloadFigures, metric) {
		return judgement{problem: fmt.Sprintf("the history keeps %s of an operation and %s of a workload, not %s", strings.Join(history.OperationFigures, ", "), strings.Join(history.WorkloadFigures, ", "), metric)}
	}
	var s *history.Series
	for _, c := range h.Series {
		if c.ID == key.ID() {
			s = c
		}
	}
	at := slices.IndexFunc(s.Points, func(p history.SeriesPoint) bool { return p.RunID == h.Candidate.RunID })
	upTo := *s
	upTo.Points = s.Points[:at+1]
	w := upTo.Last(h.Window)
	m, ok := w.Points[len(w.Points)-1].Value(metric)
	if !ok {
		return judgement{problem: fmt.Sprintf("the run measured no %s of %s%s", metric, workload, opSuffix(operation))}
	}
	a, err := history.Analyze(w, metric, h.Settings)
	switch {
	case err != nil:
		return judgement{problem: err.Error()}
	case a.Short != "":
		return judgement{problem: fmt.Sprintf("series %s (%s) has %d run(s) of %s up to this one: too short to judge (%s)", s.ID, s.Key.Path(), a.Points, metric, a.Short)}
	}
	j := judgement{measured: m}
	if n := len(a.Change); n > 0 {
		c := a.Change[n-1]
		j.baseline, j.worse = c.MeanBefore, c.Worse
		j.change = &c
		j.note = fmt.Sprintf("change point at build %s (last good %s) in series %s: %.4g → %.4g, %+.1f%% (95%% CI %+.1f%% … %+.1f%%), p = %.2g",
			c.FirstBad.ID, c.LastGood.ID, s.ID, c.MeanBefore, c.MeanAfter, 100*c.Change, 100*c.ChangeLow, 100*c.ChangeHigh, c.PValue)
		return j
	}
	vals, _ := w.Values(metric)
	j.baseline = collect.Median(vals[:len(vals)-1])
	j.note = fmt.Sprintf("no change point in series %s over its last %d run(s) (a step of %.1f%% is found nine times in ten at its noise)", s.ID, a.Points, 100*a.Reliable)
	return j
}

func opSuffix(op string) string {
	if op == "" {
		return ""
	}
	return " " + op
}

// evaluateStore decides a ratio gate on a store history: it fails when
// the latest change point up to the run worsened the figure and the run's
// own value is still past the rule's ratio of the level before it.
func evaluateStore(g Gate, rule Rule, h *StoreHistory) Gate {
	j := h.judge(g.Workload, g.Operation, rule.Metric)
	if j.problem != "" {
		g.Outcome, g.Reason = CannotEvaluate, "baseline: "+j.problem
		return g
	}
	m, b := j.measured, j.baseline
	g.Measured, g.Baseline, g.Note, g.ChangePoint = &m, &b, j.note, j.change
	if b == 0 {
		g.Outcome, g.Reason = CannotEvaluate, "the baseline is 0: no ratio of it means anything"
		return g
	}
	ratio, bound := m/b, *rule.Ratio*b
	g.Ratio, g.Bound = &ratio, &bound
	within := m >= bound
	if rule.Op == "<=" {
		within = m <= bound
	}
	g.Outcome = Pass
	if j.change != nil && j.worse && !within {
		g.Outcome = Fail
	}
	return g
}
