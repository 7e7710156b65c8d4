package history

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect"
)

// Series is one key's points, in build order.
type Series struct {
	Key    Key
	ID     string
	Points []SeriesPoint
}

// SeriesPoint is one run in a series.
type SeriesPoint struct {
	RunID    string
	Build    Build
	Recorded time.Time
	Report   string
	// Figures are each figure's values, one per repetition.
	Figures map[string][]float64
}

// Value is a figure's value at a point, the median of its repetitions
// (what a gate takes), and whether the point has it.
func (p SeriesPoint) Value(figure string) (float64, bool) {
	vs := p.Figures[figure]
	if len(vs) == 0 {
		return 0, false
	}
	return collect.Median(vs), true
}

// SeriesOf gathers entries into series, each in build order (the build's
// time where given, else the run's; then the run id), the series in
// order of path and id.
func SeriesOf(entries []*Entry) []*Series {
	byID := map[string]*Series{}
	type placed struct {
		at time.Time
		p  SeriesPoint
	}
	order := map[string][]placed{}
	for _, e := range entries {
		for _, pt := range e.Points {
			id := pt.Key.ID()
			if byID[id] == nil {
				byID[id] = &Series{Key: pt.Key, ID: id}
			}
			order[id] = append(order[id], placed{at: e.At(), p: SeriesPoint{RunID: e.RunID, Build: e.Build, Recorded: e.Recorded, Report: e.Report, Figures: pt.Figures}})
		}
	}
	var out []*Series
	for id, s := range byID {
		ps := order[id]
		sort.SliceStable(ps, func(i, j int) bool {
			if !ps[i].at.Equal(ps[j].at) {
				return ps[i].at.Before(ps[j].at)
			}
			return ps[i].p.RunID < ps[j].p.RunID
		})
		for _, p := range ps {
			s.Points = append(s.Points, p.p)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key.Path() != out[j].Key.Path() {
			return out[i].Key.Path() < out[j].Key.Path()
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Figures are the figures any point of the series has, in the order
// WorkloadFigures and OperationFigures name them.
func (s *Series) Figures() []string {
	var out []string
	for _, f := range append(slices.Clone(OperationFigures), WorkloadFigures...) {
		if slices.Contains(out, f) {
			continue
		}
		for _, p := range s.Points {
			if _, ok := p.Figures[f]; ok {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// Values are a figure's values over the series, one per point that has
// it, with those points' indexes.
func (s *Series) Values(figure string) (vals []float64, at []int) {
	for i, p := range s.Points {
		if v, ok := p.Value(figure); ok {
			vals, at = append(vals, v), append(at, i)
		}
	}
	return vals, at
}

// Last is the series' last window points (all of them when window < 1).
func (s *Series) Last(window int) *Series {
	if window < 1 || len(s.Points) <= window {
		return s
	}
	c := *s
	c.Points = s.Points[len(s.Points)-window:]
	return &c
}

// Match is the series a pattern names: a series id or its first four or
// more characters, or a path (profile/workload[/operation], * and ? as in
// a shell) of one or more. A pattern that names none is an error saying
// what there is.
func Match(all []*Series, pattern string) ([]*Series, error) {
	var out []*Series
	for _, s := range all {
		if len(pattern) >= 4 && strings.HasPrefix(s.ID, pattern) {
			out = append(out, s)
			continue
		}
		if ok, err := path.Match(pattern, s.Key.Path()); err != nil {
			return nil, fmt.Errorf("series %q: %v", pattern, err)
		} else if ok {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("series %q matches none of the store's %d series (ybbench history list names them: an id, or profile/workload[/operation] with * for any)", pattern, len(all))
	}
	return out, nil
}
