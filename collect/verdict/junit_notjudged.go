package verdict

import (
	"fmt"
	"strings"
	"time"
)

// JUnitNotJudged renders the JUnit report of a gated run that ended before
// its results could be judged (it failed at up, install or bench, or was
// stopped): each failed stage an errored test case with its message and
// the run's exit code, and each gate of the file a skipped test case
// saying why it was not judged. A CI job that collects junit.xml then
// shows what failed instead of finding no file. f is nil when the gate
// file itself was refused.
func JUnitNotJudged(f *File, profile, runID string, at time.Time, stages []StageFailure, exit int) ([]byte, error) {
	if f == nil {
		f = &File{} // the gate file itself was refused: no gates to list
	}
	s := junitSuite{Name: strings.TrimSpace(fmt.Sprintf("ybbench %s %s", profile, runID)),
		Time: at.UTC().Format("2006-01-02T15:04:05Z"),
		Props: []junitProp{{"outcome", "not-judged"}, {"gate_file", f.Path},
			{"baseline", f.Baseline.Source}, {"complete", "false"}, {"exit_code", fmt.Sprint(exit)}}}
	why := fmt.Sprintf("not judged: the run ended before its results were collected (exit %d)", exit)
	if len(stages) > 0 {
		why = fmt.Sprintf("not judged: the run failed at %s (exit %d)", stages[0].Step, exit)
	}
	for _, r := range f.Gates {
		s.Cases = append(s.Cases, junitCase{Name: ruleName(r), ClassName: "ybbench." + profile + "." + r.Workload,
			Skipped: &junitProblem{Message: why, Text: why}})
		s.Skipped++
	}
	s.addStages(profile, stages, fmt.Sprintf("exit %d: ", exit))
	return s.marshal()
}

// ruleName names a gate of the file as gateName names a judged one.
func ruleName(r Rule) string {
	parts := []string{r.Workload}
	if r.Operation != "" {
		parts = append(parts, r.Operation)
	}
	return strings.Join(append(parts, r.Metric), " ")
}
