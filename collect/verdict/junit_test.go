package verdict

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/golden"
)

func f64(x float64) *float64 { return &x }

// junitVerdict has a gate of every outcome: a passed ratio rule, a failed
// latency ratio rule, a failed absolute bound, and one without a baseline
// row.
func junitVerdict() *Verdict {
	return &Verdict{Schema: Schema, RunID: "20260101-000000-abcd", Profile: "ycsb",
		Created: time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC), GateFile: "gates.yaml",
		Baseline: BaselineInfo{Source: "run", Path: "runs/prev"}, Complete: true, Outcome: Fail,
		Passed: 1, Failed: 2, CannotEvaluate: 1,
		Gates: []Gate{
			{Workload: "workloada", Metric: "throughput", Outcome: Pass, Unit: "ops/s",
				Measured: f64(37443.2), Baseline: f64(36000), Ratio: f64(1.04), Bound: f64(32400), Tolerance: ">= 0.9 × baseline"},
			{Workload: "workloada", Operation: "READ", Metric: "p99", Outcome: Fail, Unit: "ms",
				Measured: f64(2.5), Baseline: f64(2), Ratio: f64(1.25), Bound: f64(2.3), Tolerance: "<= 1.15 × baseline"},
			{Workload: "workloadc", Metric: "error_rate", Outcome: Fail, Unit: "",
				Measured: f64(0.002), Bound: f64(0.001), Tolerance: "<= 0.001"},
			{Workload: "workloadc", Operation: "READ", Metric: "p99.9", Outcome: CannotEvaluate, Unit: "ms",
				Reason: "the baseline has no p99.9 of READ", Measured: f64(3.1), Tolerance: "<= 1.15 × baseline"},
		}}
}

var junitStages = []StageFailure{{Step: "bench/workloadc/run", Error: "agent client-1: exit status 1\nstderr: <connection refused> & more"}}

// What a JUnit reader sees: per test case whether it failed, errored or
// was skipped, read back with encoding/xml rather than from the writer's
// own counts.
type readSuite struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Cases    []struct {
		Name      string    `xml:"name,attr"`
		ClassName string    `xml:"classname,attr"`
		Failure   *struct{} `xml:"failure"`
		Error     *struct{} `xml:"error"`
		Skipped   *struct{} `xml:"skipped"`
	} `xml:"testcase"`
}

func TestJUnit(t *testing.T) {
	for _, c := range []struct {
		name                             string
		warn                             bool
		tests, failures, errors, skipped int
	}{
		{"junit-fail.xml", false, 5, 3, 1, 0},
		{"junit-warn.xml", true, 5, 2, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := JUnit(junitVerdict(), junitStages, c.warn)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, c.name, b)
			var s readSuite
			if err := xml.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			var cases, failures, errs, skipped int
			for _, tc := range s.Cases {
				cases++
				if tc.Failure != nil {
					failures++
				}
				if tc.Error != nil {
					errs++
				}
				if tc.Skipped != nil {
					skipped++
				}
			}
			if cases != c.tests || failures != c.failures || errs != c.errors || skipped != c.skipped {
				t.Errorf("test cases %d, failures %d, errors %d, skipped %d; want %d, %d, %d, %d",
					cases, failures, errs, skipped, c.tests, c.failures, c.errors, c.skipped)
			}
			if s.Tests != cases || s.Failures != failures || s.Errors != errs || s.Skipped != skipped {
				t.Errorf("the testsuite's counts %d/%d/%d/%d are not its test cases' %d/%d/%d/%d",
					s.Tests, s.Failures, s.Errors, s.Skipped, cases, failures, errs, skipped)
			}
			if got := s.Cases[1].Name + " | " + s.Cases[1].ClassName; got != "workloada READ p99 | ybbench.ycsb.workloada" {
				t.Errorf("the failed p99 gate's test case is %q", got)
			}
		})
	}
}

// The failure message carries the four figures a reader decides on.
func TestJUnitFailureMessage(t *testing.T) {
	b, err := JUnit(junitVerdict(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `message="p99: measured 2.5 ms, baseline 2 ms, ratio 1.25, tolerance &lt;= 1.15 × baseline"`
	if !strings.Contains(string(b), want) {
		t.Errorf("no %s in\n%s", want, b)
	}
}
