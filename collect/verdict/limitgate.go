package verdict

import (
	"strings"

	"github.com/ybbench/ybbench/collect"
)

// evaluateLimit applies a limited_by gate to a workload: pass when what
// limited it matches the rule's is, fail otherwise (saying what it was),
// cannot-evaluate when the workload has no verdict.
func evaluateLimit(rule Rule, workload string, r *collect.Result) Gate {
	g := Gate{Rule: rule, Workload: workload, Metric: rule.Metric, Unit: "verdict", Tolerance: "is " + rule.Is}
	w, _, err := phaseOf(r, workload)
	if err != nil {
		g.Outcome, g.Reason = CannotEvaluate, "measured: "+err.Error()
		return g
	}
	if w.Limit == nil {
		g.Outcome, g.Reason = CannotEvaluate, workload+" has no verdict on what limited it (collected before the attribution)"
		return g
	}
	g.LimitedBy = w.Limit.LimitedBy
	match := g.LimitedBy == rule.Is
	if pre, ok := strings.CutSuffix(rule.Is, "*"); ok {
		match = strings.HasPrefix(g.LimitedBy, pre)
	}
	g.Outcome = Pass
	if !match {
		g.Outcome, g.Reason = Fail, w.Limit.Summary
	}
	return g
}
