// Package verdict gates a finished run's result.json: a gate file's rules
// (a metric of a workload's measured phase against a baseline and a
// tolerance) are checked against the result, and each rule's outcome —
// pass, fail, or cannot-evaluate with the reason — goes into verdict.json.
// It reads result.json files only, never the live pipeline.
package verdict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/bottleneck"
	"github.com/ybbench/ybbench/internal/yamlsyntax"
)

// Metrics are the figures a gate can bound, as the gate file names them.
var Metrics = collect.Metrics

// MetricLimitedBy is the gate on what limited a workload rather than on a
// figure: {workload, metric: limited_by, is: database-*} passes when the
// workload's verdict (collect/bottleneck) is the one named, or one of a
// family ending in "*".
const MetricLimitedBy = "limited_by"

// MetricMaxSustainable is a swept workload's knee: the highest throughput
// it sustained within the sweep's SLO (collect/sweep), in ops/s.
const MetricMaxSustainable = collect.MetricMaxSustainable

// Ops are the comparisons a gate can make.
var Ops = []string{">=", "<="}

// Any is the workload or operation that stands for every one.
const Any = "*"

// The baseline sources.
const (
	SourcePublished = "published"
	SourceRun       = "run"
	SourceHistory   = "history"
)

// File is a parsed gate file.
type File struct {
	Path     string
	Baseline BaselineSpec
	Gates    []Rule
}

// BaselineSpec is what the gates' ratios are ratios of.
type BaselineSpec struct {
	Source string // published, run or history
	// Dir is the previous run's directory (run) or the results directory
	// (history); Last is how many of history's runs the median takes.
	Dir  string
	Last int
	// Series ("auto": the gated run's own) makes a history baseline the
	// change points of the run's series in a history store (URL, else the
	// run's or the default store), over its last Window points, at the
	// method's PValue and MinMagnitude (0: the method's defaults).
	Series       string
	URL          string
	Window       int
	PValue       float64
	MinMagnitude float64
	Line         int
}

// FromStore reports whether the baseline is a history store's series
// judged by its change points (rather than a directory's median).
func (b BaselineSpec) FromStore() bool { return b.Source == SourceHistory && b.Series != "" }

// Rule is one gate: Metric of Workload (and Operation) Op Ratio × baseline,
// or Op Value.
type Rule struct {
	Workload  string   `json:"workload"`
	Operation string   `json:"operation,omitempty"`
	Metric    string   `json:"metric"`
	Op        string   `json:"op"`
	Ratio     *float64 `json:"ratio,omitempty"`
	Value     *float64 `json:"value,omitempty"`
	// Is is what a limited_by gate asks the workload to be limited by.
	Is   string `json:"is,omitempty"`
	Line int    `json:"line"`
}

// Error is a problem in a gate file, with its position and field.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Load reads and parses a gate file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gate file: %w", err)
	}
	return Parse(path, b)
}

// Parse parses a gate file's text, reporting every problem of its shape at
// once, each naming the file, line and field. What needs the profile
// (workload and operation names) is Check's.
func Parse(path string, b []byte) (*File, error) {
	f := &File{Path: path}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: path, Line: 1, Field: "gates", Msg: "the file is empty: want a baseline and gates"}
		}
		return nil, yamlsyntax.Explain(path, b, err)
	}
	if len(root.Content) == 0 {
		return nil, &Error{File: path, Line: 1, Field: "gates", Msg: "the file is empty: want a baseline and gates"}
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: m.Line, Field: "(top level)", Msg: "want a mapping with baseline and gates"}
	}
	var errs []error
	fail := func(line int, field, format string, args ...any) {
		errs = append(errs, &Error{File: path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if seen[k.Value] {
			fail(k.Line, k.Value, "set twice")
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "baseline":
			f.Baseline = parseBaseline(v, fail)
		case "gates":
			if v.Kind != yaml.SequenceNode {
				fail(v.Line, "gates", "want a list of gates")
				continue
			}
			for j, g := range v.Content {
				if r, ok := parseRule(g, fmt.Sprintf("gates[%d]", j), fail); ok {
					f.Gates = append(f.Gates, r)
				}
			}
		default:
			fail(k.Line, k.Value, "unknown field (known: baseline, gates)")
		}
	}
	if !seen["gates"] {
		fail(m.Line, "gates", "missing: the file gates nothing")
	}
	if !seen["baseline"] {
		// Check says whether a gate needs one: --history can give it.
		f.Baseline.Line = m.Line
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return f, nil
}

func parseBaseline(v *yaml.Node, fail func(int, string, string, ...any)) BaselineSpec {
	b := BaselineSpec{Line: v.Line}
	const want = "want published, run: DIR, history: {dir: DIR, last: N} or history: {series: auto, window: N}"
	if v.Kind == yaml.ScalarNode {
		if v.Value != SourcePublished {
			fail(v.Line, "baseline", "%q: %s", v.Value, want)
		}
		b.Source = v.Value
		return b
	}
	if v.Kind != yaml.MappingNode || len(v.Content) != 2 {
		fail(v.Line, "baseline", want)
		return b
	}
	k, val := v.Content[0], v.Content[1]
	b.Source = k.Value
	switch k.Value {
	case SourceRun:
		if val.Kind != yaml.ScalarNode || val.Value == "" {
			fail(val.Line, "baseline.run", "want a run's directory")
			return b
		}
		b.Dir = val.Value
		if _, err := os.Stat(filepath.Join(b.Dir, "result.json")); err != nil {
			fail(val.Line, "baseline.run", "%s has no result.json: %v", b.Dir, errors.Unwrap(err))
		}
	case SourceHistory:
		b = parseHistoryBaseline(b, val, fail)
	default:
		fail(k.Line, "baseline", "%q: %s", k.Value, want)
	}
	return b
}

func parseRule(g *yaml.Node, at string, fail func(int, string, string, ...any)) (Rule, bool) {
	r := Rule{Line: g.Line}
	if g.Kind != yaml.MappingNode {
		fail(g.Line, at, "want a mapping {workload, metric, op, ratio or value}")
		return r, false
	}
	ok := true
	bad := func(line int, field, format string, args ...any) {
		fail(line, at+"."+field, format, args...)
		ok = false
	}
	number := func(n *yaml.Node, field string) *float64 {
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || n.Kind != yaml.ScalarNode || v < 0 {
			bad(n.Line, field, "%q: want a number, not negative", n.Value)
			return nil
		}
		return &v
	}
	for i := 0; i+1 < len(g.Content); i += 2 {
		k, v := g.Content[i], g.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			bad(v.Line, k.Value, "want a single name or number, not a list or mapping")
			continue
		}
		switch k.Value {
		case "workload":
			r.Workload = v.Value
		case "operation":
			r.Operation = v.Value
		case "metric":
			r.Metric = v.Value
			if !slices.Contains(Metrics, v.Value) && v.Value != MetricLimitedBy && v.Value != MetricMaxSustainable {
				bad(v.Line, "metric", "unknown metric %q (known: %s, %s, %s)", v.Value, strings.Join(Metrics, ", "), MetricMaxSustainable, MetricLimitedBy)
			}
		case "is":
			r.Is = v.Value
			if !limitPattern(v.Value) {
				bad(v.Line, "is", "%q: want a verdict (%s) or database-*", v.Value, strings.Join(bottleneck.Verdicts, ", "))
			}
		case "op":
			r.Op = v.Value
			if !slices.Contains(Ops, v.Value) {
				bad(v.Line, "op", "%q: want %s", v.Value, strings.Join(Ops, " or "))
			}
		case "ratio":
			r.Ratio = number(v, "ratio")
			if r.Ratio != nil && *r.Ratio == 0 {
				bad(v.Line, "ratio", "0: a ratio of the baseline must be above 0")
			}
		case "value":
			r.Value = number(v, "value")
		default:
			bad(k.Line, k.Value, "unknown field (known: workload, operation, metric, op, ratio, value, is)")
		}
	}
	if !hasKey(g, "workload") {
		bad(g.Line, "workload", "missing (a workload of the profile, or \"*\")")
	}
	if r.Metric == MetricLimitedBy {
		for _, k := range []string{"op", "ratio", "value", "operation"} {
			if hasKey(g, k) {
				bad(g.Line, k, "a limited_by gate takes only workload and is")
			}
		}
		if !hasKey(g, "is") {
			bad(g.Line, "is", "missing (a verdict such as database-cpu, or database-*)")
		}
		return r, ok
	}
	if hasKey(g, "is") {
		bad(g.Line, "is", "only a limited_by gate takes is")
	}
	if !hasKey(g, "metric") {
		bad(g.Line, "metric", "missing (one of %s)", strings.Join(Metrics, ", "))
	}
	if !hasKey(g, "op") {
		bad(g.Line, "op", "missing (%s)", strings.Join(Ops, " or "))
	}
	hasRatio, hasValue := hasKey(g, "ratio"), hasKey(g, "value")
	switch {
	case hasRatio && hasValue:
		bad(g.Line, "ratio", "both ratio and value: a gate is a ratio of the baseline or an absolute bound, not both")
	case !hasRatio && !hasValue:
		bad(g.Line, "ratio", "neither ratio nor value: want one")
	}
	return r, ok
}

// limitPattern reports whether a limited_by gate's is names a verdict, or
// a family of them ("database-*").
func limitPattern(s string) bool {
	if pre, ok := strings.CutSuffix(s, "*"); ok {
		return slices.ContainsFunc(bottleneck.Verdicts, func(v string) bool { return strings.HasPrefix(v, pre) })
	}
	return slices.Contains(bottleneck.Verdicts, s)
}

func hasKey(m *yaml.Node, name string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return true
		}
	}
	return false
}
