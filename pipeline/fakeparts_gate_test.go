package pipeline_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/collect/verdict"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/pipeline"
)

// failingGates no run can pass: a throughput of a million million
// operations per second; the second, no errors at all, the null binding
// passes.
const failingGates = `gates:
  - {workload: "*", metric: throughput, op: ">=", value: 1e12}
  - {workload: workloada, metric: error_rate, op: "<=", value: 0}
`

// executeGated runs the fake pipeline with a gate file.
func executeGated(t *testing.T, text string, installErr error, opts ...func(*fakeProvider)) *fakeRun {
	t.Helper()
	f, err := verdict.Parse("gates.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	fr := newFake(t, installErr, opts...)
	copyTo := filepath.Join(t.TempDir(), "reports", "junit.xml")
	fr.run.SetGate(&pipeline.Gate{File: f, JUnit: copyTo})
	fr.err = fr.run.Execute(t.Context(), t.Context())
	// Wherever a junit.xml was written, --junit's copy is the same file.
	inRun, err := os.ReadFile(filepath.Join(fr.run.Dir(), verdict.JUnitFile))
	copied, cerr := os.ReadFile(copyTo)
	if (err == nil) != (cerr == nil) || !bytes.Equal(inRun, copied) {
		t.Errorf("the run's junit.xml (%v) and its --junit copy (%v) differ", err, cerr)
	}
	return fr
}

// readVerdict reads a run's verdict.json, checked against its schema.
func readVerdict(t *testing.T, dir string) *verdict.Verdict {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, verdict.VerdictFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := verdict.Validate(b); err != nil {
		t.Fatalf("verdict.json: %v", err)
	}
	var v verdict.Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// A gate that fails on complete results is exit 99, after a complete
// teardown; verdict.json holds each gate, measured as result.json says.
func TestFakePartsGateFails(t *testing.T) {
	fr := executeGated(t, failingGates, nil)
	if exitcode.Of(fr.err) != exitcode.Gate {
		t.Fatalf("execute: %v (exit %d); want exit %d", fr.err, exitcode.Of(fr.err), exitcode.Gate)
	}
	checkTornDown(t, fr, pipeline.OutcomeFailed)
	v := readVerdict(t, fr.run.Dir())
	if !v.Complete || v.Failed != 6 || v.Passed != 1 || v.Outcome != verdict.Fail {
		t.Errorf("verdict: complete %v, %d failed, %d passed, %s; want the six workloads' throughput failed, workloada's errors passed", v.Complete, v.Failed, v.Passed, v.Outcome)
	}
	// junit.xml, as a JUnit reader counts its test cases, says the same.
	j := readJUnit(t, filepath.Join(fr.run.Dir(), verdict.JUnitFile))
	if j.tests != len(v.Gates) || j.failures != v.Failed || j.errors != 0 || j.skipped != 0 {
		t.Errorf("junit.xml: %+v; want %d tests, %d failures", j, len(v.Gates), v.Failed)
	}
	raw, err := os.ReadFile(filepath.Join(fr.run.Dir(), pipeline.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	res, err := collect.ReadResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range res.Workloads {
		g := v.Gates[i]
		if g.Workload != w.Name || g.Measured == nil || *g.Measured != w.Throughput {
			t.Errorf("gate %d: %s measured %v, result.json has %s at %v", i, g.Workload, g.Measured, w.Name, w.Throughput)
		}
	}
}

// A stage's failure keeps its own exit (4: install), never 99.
func TestFakePartsStageFailsWithGate(t *testing.T) {
	fr := executeGated(t, failingGates, os.ErrDeadlineExceeded)
	if exitcode.Of(fr.err) != exitcode.Provision {
		t.Fatalf("execute: %v (exit %d); want the install's exit %d", fr.err, exitcode.Of(fr.err), exitcode.Provision)
	}
	checkTornDown(t, fr, pipeline.OutcomeFailed)
	if _, err := os.Stat(filepath.Join(fr.run.Dir(), verdict.VerdictFile)); !os.IsNotExist(err) {
		t.Errorf("a verdict without results: %v", err)
	}
}

// An incomplete teardown (6) wins over a failed gate, and the verdict is
// still written.
func TestFakePartsGateWithIncompleteTeardown(t *testing.T) {
	fr := executeGated(t, failingGates, nil, func(p *fakeProvider) { p.keep = "db-2" })
	if exitcode.Of(fr.err) != exitcode.Teardown || !strings.Contains(fr.err.Error(), "gates: 6 failed") {
		t.Fatalf("execute: %v (exit %d); want exit %d, saying the gates failed too", fr.err, exitcode.Of(fr.err), exitcode.Teardown)
	}
	if v := readVerdict(t, fr.run.Dir()); v.Failed != 6 {
		t.Errorf("verdict: %d failed", v.Failed)
	}
	// junit.xml, written again after the teardown, has it as an errored
	// test case beside the failed gates.
	if c := readJUnit(t, filepath.Join(fr.run.Dir(), verdict.JUnitFile)); c.failures != 6 || c.errors != 1 {
		t.Errorf("junit.xml after an incomplete teardown: %+v, want 6 failures and the teardown's error", c)
	}
	b, err := os.ReadFile(filepath.Join(fr.run.Dir(), verdict.JUnitFile))
	if err != nil || !strings.Contains(string(b), "down") {
		t.Errorf("junit.xml names no teardown step: %v\n%s", err, b)
	}
}

// junitCounts are a junit.xml's test cases, failed, errored and skipped,
// counted from the cases themselves (not the suite's attributes).
type junitCounts struct{ tests, failures, errors, skipped int }

func readJUnit(t *testing.T, path string) junitCounts {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Cases []struct {
			Failure *struct{} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var c junitCounts
	for _, tc := range s.Cases {
		c.tests++
		if tc.Failure != nil {
			c.failures++
		}
		if tc.Error != nil {
			c.errors++
		}
		if tc.Skipped != nil {
			c.skipped++
		}
	}
	return c
}

// A gated run that fails before its verdict (here at install) still
// writes junit.xml and its --junit copy: the failed stage an errored test
// case with its message and the exit code, every gate skipped as not
// judged; no verdict.json, since nothing was measured.
func TestFakePartsGateJUnitWhenInstallFails(t *testing.T) {
	fr := executeGated(t, failingGates, errors.New("the database would not start"))
	if exitcode.Of(fr.err) != exitcode.Provision {
		t.Fatalf("execute: %v (exit %d); want exit %d", fr.err, exitcode.Of(fr.err), exitcode.Provision)
	}
	checkTornDown(t, fr, pipeline.OutcomeFailed)
	if _, err := os.Stat(filepath.Join(fr.run.Dir(), verdict.VerdictFile)); !os.IsNotExist(err) {
		t.Errorf("verdict.json after a failed install: %v", err)
	}
	path := filepath.Join(fr.run.Dir(), verdict.JUnitFile)
	j := readJUnit(t, path)
	if j.tests != 3 || j.skipped != 2 || j.errors != 1 || j.failures != 0 {
		t.Errorf("junit.xml: %+v; want the 2 gates skipped and the install stage errored", j)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name="install"`, "exit 4: ", "the database would not start", "not judged: the run failed at install (exit 4)", `name="exit_code" value="4"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("junit.xml lacks %q:\n%s", want, b)
		}
	}
}
