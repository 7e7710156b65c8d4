package verdict

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// JUnitFile is the JUnit XML report's name in the run directory.
const JUnitFile = "junit.xml"

// StageFailure is a stage of the run that failed (a step of its ledger):
// in the JUnit report it is an errored test case, never a failed gate.
type StageFailure struct {
	Step  string
	Error string
}

// junitSuite is the report's one <testsuite>.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"timestamp,attr"`
	Props    []junitProp `xml:"properties>property"`
	Cases    []junitCase `xml:"testcase"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders a verdict as JUnit XML, the report CI systems show: one
// test case per gate (classname ybbench.<profile>.<workload>, named by
// operation and metric), a failed gate's <failure> giving measured,
// baseline, ratio and tolerance, and each stage failure an errored test
// case. A gate that cannot be evaluated is a failure, as it stops the
// release, unless warnMissing (--gate-missing=warn): then it is skipped
// with its reason, as it only warns. It reads nothing but its arguments.
func JUnit(v *Verdict, stages []StageFailure, warnMissing bool) ([]byte, error) {
	s := junitSuite{Name: fmt.Sprintf("ybbench %s %s", v.Profile, v.RunID),
		Time: v.Created.UTC().Format("2006-01-02T15:04:05Z"),
		Props: []junitProp{{"outcome", v.Outcome}, {"gate_file", v.GateFile},
			{"baseline", v.Baseline.Source}, {"complete", fmt.Sprint(v.Complete)}}}
	for _, g := range v.Gates {
		c := junitCase{Name: gateName(g), ClassName: "ybbench." + v.Profile + "." + g.Workload}
		switch g.Outcome {
		case Pass:
		case Fail:
			c.Failure = &junitProblem{Message: gateFigures(g), Type: Fail, Text: gateFigures(g)}
			s.Failures++
		default:
			p := &junitProblem{Message: "cannot evaluate: " + g.Reason, Type: CannotEvaluate,
				Text: fmt.Sprintf("%s\n%s", g.Reason, gateFigures(g))}
			if warnMissing {
				p.Type = ""
				c.Skipped = p
				s.Skipped++
			} else {
				c.Failure = p
				s.Failures++
			}
		}
		s.Cases = append(s.Cases, c)
	}
	s.addStages(v.Profile, stages, "")
	return s.marshal()
}

// addStages adds each failed stage as an errored test case, its message
// the error's first line after prefix.
func (s *junitSuite) addStages(profile string, stages []StageFailure, prefix string) {
	for _, f := range stages {
		s.Cases = append(s.Cases, junitCase{Name: f.Step, ClassName: "ybbench." + profile + ".stages",
			Error: &junitProblem{Message: prefix + firstLine(f.Error), Type: "stage", Text: f.Error}})
		s.Errors++
	}
}

// marshal is the suite as a JUnit XML document.
func (s *junitSuite) marshal() ([]byte, error) {
	s.Tests = len(s.Cases)
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// gateName names a gate's test case: its workload, operation (when the
// metric has one) and metric.
func gateName(g Gate) string {
	parts := []string{g.Workload}
	if g.Operation != "" {
		parts = append(parts, g.Operation)
	}
	return strings.Join(append(parts, g.Metric), " ")
}

// gateFigures is what a gate was decided on, "-" where a figure is
// absent (an absolute bound has no baseline or ratio).
func gateFigures(g Gate) string {
	return fmt.Sprintf("%s: measured %s, baseline %s, ratio %s, tolerance %s",
		g.Metric, MeasuredText(g), FormatFigure(g.Baseline, g.Unit), FormatFigure(g.Ratio, ""), g.Tolerance)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
