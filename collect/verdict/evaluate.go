package verdict

import (
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/history"
)

// Outcomes of a gate.
const (
	Pass           = "pass"
	Fail           = "fail"
	CannotEvaluate = "cannot-evaluate"
)

// Gate is one rule applied to one workload and operation, with its
// outcome and the figures it was decided on.
type Gate struct {
	Rule      Rule   `json:"rule"`
	Workload  string `json:"workload"`
	Operation string `json:"operation,omitempty"`
	Metric    string `json:"metric"`
	Outcome   string `json:"outcome"`
	// Reason says why a gate cannot be evaluated.
	Reason string `json:"reason,omitempty"`
	Unit   string `json:"unit"`
	// Measured is the run's figure, Baseline the baseline's (ratio rules),
	// Ratio measured ÷ baseline, and Bound what Measured was held to:
	// the rule's ratio × Baseline, or its value.
	Measured *float64 `json:"measured,omitempty"`
	// Repetitions is, for a workload the run repeated (--repeat N), how
	// many repetitions Measured is the median of; absent for one run.
	Repetitions int      `json:"repetitions,omitempty"`
	Baseline    *float64 `json:"baseline,omitempty"`
	Ratio       *float64 `json:"ratio,omitempty"`
	Bound       *float64 `json:"bound,omitempty"`
	// Tolerance is the rule as a reader says it: "<= 1.15 × baseline".
	Tolerance string `json:"tolerance"`
	// LimitedBy is, for a limited_by gate, what the workload was limited
	// by (the summary the reports open with is in Reason when it fails).
	LimitedBy string `json:"limited_by,omitempty"`
	// Note says how a gate on a history store was decided: the change
	// point it was held to (ChangePoint), or that there was none.
	Note        string          `json:"note,omitempty"`
	ChangePoint *history.Change `json:"change_point,omitempty"`
}

// Evaluate applies the gate file's rules to a result: "*" stands for every
// workload of the result, or every operation its measured phase measured,
// as does a latency rule without an operation. It reads nothing but its
// arguments.
func Evaluate(f *File, r *collect.Result, base Baseline, now time.Time) *Verdict {
	v := &Verdict{Schema: Schema, RunID: r.RunID, Profile: r.Profile, Created: now.UTC(), GateFile: f.Path,
		Complete: true, Gates: []Gate{}}
	if r.Reproduction != nil {
		v.Reproduction = r.Reproduction.Summary
	}
	for _, w := range r.Workloads {
		if w.Limit != nil {
			if v.LimitedBy == nil {
				v.LimitedBy = map[string]string{}
			}
			v.LimitedBy[w.Name] = w.Limit.LimitedBy
		}
	}
	if base != nil {
		v.Baseline = base.Info()
	}
	for _, w := range r.Workloads {
		if _, _, err := phaseOf(r, w.Name); err != nil {
			v.Complete = false
			v.Incomplete = append(v.Incomplete, err.Error())
		}
	}
	for _, rule := range f.Gates {
		workloads := []string{rule.Workload}
		if rule.Workload == Any {
			workloads = nil
			for _, w := range r.Workloads {
				workloads = append(workloads, w.Name)
			}
		}
		for _, w := range workloads {
			for _, op := range operationsOf(rule, r, w) {
				v.Gates = append(v.Gates, evaluate(rule, w, op, r, base))
			}
		}
	}
	for _, g := range v.Gates {
		switch g.Outcome {
		case Pass:
			v.Passed++
		case Fail:
			v.Failed++
		default:
			v.CannotEvaluate++
		}
	}
	v.Outcome = Pass
	if v.CannotEvaluate > 0 {
		v.Outcome = CannotEvaluate
	}
	if v.Failed > 0 {
		v.Outcome = Fail
	}
	return v
}

// operationsOf is what a rule is applied to in a workload: "" (the
// workload as a whole) for throughput and error rate without an
// operation; every measured operation for "*" and for a latency metric
// without one; else the operation named.
func operationsOf(rule Rule, r *collect.Result, workload string) []string {
	whole := rule.Metric == "throughput" || rule.Metric == "error_rate" || rule.Metric == MetricLimitedBy || rule.Metric == MetricMaxSustainable
	switch {
	case rule.Operation == "" && whole:
		return []string{""}
	case rule.Operation == "" || rule.Operation == Any:
		ops := operations(r, workload)
		if len(ops) == 0 {
			return []string{rule.Operation} // decided (cannot-evaluate) with the reason
		}
		return ops
	}
	return []string{rule.Operation}
}

func evaluate(rule Rule, workload, operation string, r *collect.Result, base Baseline) Gate {
	if rule.Metric == MetricLimitedBy {
		return evaluateLimit(rule, workload, r)
	}
	g := Gate{Rule: rule, Workload: workload, Operation: operation, Metric: rule.Metric, Unit: unitOf(rule.Metric)}
	if rule.Ratio != nil {
		g.Tolerance = fmt.Sprintf("%s %g × baseline", rule.Op, *rule.Ratio)
	} else if rule.Value != nil {
		g.Tolerance = fmt.Sprintf("%s %g %s", rule.Op, *rule.Value, g.Unit)
	}
	cannot := func(format string, args ...any) Gate {
		g.Outcome, g.Reason = CannotEvaluate, fmt.Sprintf(format, args...)
		return g
	}
	if operation == Any {
		return cannot("%s measured no operations", workload)
	}
	m, n, err := measure(r, workload, operation, rule.Metric)
	if err != nil {
		return cannot("measured: %v", err)
	}
	g.Measured, g.Repetitions = &m, n
	bound := rule.Value
	if sh, ok := base.(*StoreHistory); ok && rule.Ratio != nil {
		return evaluateStore(g, rule, sh)
	}
	if rule.Ratio != nil {
		if base == nil {
			return cannot("no baseline")
		}
		b, err := base.Value(workload, operation, rule.Metric)
		if err != nil {
			return cannot("baseline: %v", err)
		}
		g.Baseline = &b
		if b == 0 {
			return cannot("the baseline is 0: no ratio of it means anything")
		}
		ratio, x := m/b, *rule.Ratio*b
		g.Ratio, bound = &ratio, &x
	}
	g.Bound = bound
	ok := m >= *bound
	if rule.Op == "<=" {
		ok = m <= *bound
	}
	g.Outcome = Fail
	if ok {
		g.Outcome = Pass
	}
	return g
}
