//go:build integration

package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
	"github.com/ybbench/ybbench/pipeline"
)

// junitCounts is what testdata/junitcounts.py prints.
type junitCounts struct {
	Tests    int `json:"tests"`
	Failures int `json:"failures"`
	Errors   int `json:"errors"`
	Skipped  int `json:"skipped"`
}

// PyPI's junitparser, a JUnit reader CI tooling uses, reads the junit.xml
// ybbench gate writes: its counts of tests, failures, errors and skipped,
// from the suite and from the test cases alike, are the verdict's and the
// ledger's one failed stage.
func TestIntegrationJUnitParserReadsTheVerdict(t *testing.T) {
	jp := testenv.JunitParserFor(t)
	runs := t.TempDir()
	dir := gatedRun(t, runs, "ycsb-ysql-260101-0000-aaaaaaaa", nil)
	l, err := pipeline.OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Begin("bench/workloadc/run", "", nil); err != nil {
		t.Fatal(err)
	}
	if err := l.End("bench/workloadc/run", errors.New("agent client-1: exit status 1"), nil); err != nil {
		t.Fatal(err)
	}
	// Throughput far below the published table fails; the table has no
	// p99, so that gate cannot be evaluated; no errors passes.
	gates := writeGate(t, "baseline: published\ngates:\n  - {workload: \"*\", metric: throughput, op: \">=\", ratio: 0.9}\n  - {workload: workloada, operation: READ, metric: p99, op: \"<=\", ratio: 1.15}\n  - {workload: \"*\", metric: error_rate, op: \"<=\", value: 0.001}\n")
	for _, missing := range []string{"fail", "warn"} {
		t.Run(missing, func(t *testing.T) {
			copyTo := filepath.Join(t.TempDir(), "junit.xml")
			if r := cli(t, nil, "gate", "--run", dir, "--gate", gates, "--gate-missing", missing, "--junit", copyTo); r.code != 99 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			v := readVerdict(t, dir)
			want := junitCounts{Tests: len(v.Gates) + 1, Failures: v.Failed + v.CannotEvaluate, Errors: 1}
			if missing == "warn" {
				want.Failures, want.Skipped = v.Failed, v.CannotEvaluate
			}
			if v.Failed == 0 || v.CannotEvaluate == 0 || v.Passed == 0 {
				t.Fatalf("the fixture should give every outcome: %d passed, %d failed, %d cannot be evaluated", v.Passed, v.Failed, v.CannotEvaluate)
			}
			out, err := exec.Command(jp.Python, filepath.Join("testdata", "junitcounts.py"), copyTo).CombinedOutput()
			if err != nil {
				t.Fatalf("junitparser: %v\n%s", err, out)
			}
			var got struct {
				Suites     int         `json:"suites"`
				Attributes junitCounts `json:"attributes"`
				Cases      junitCounts `json:"cases"`
				Failed     []struct {
					ClassName string `json:"classname"`
					Name      string `json:"name"`
					Message   string `json:"message"`
				} `json:"failed"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got.Suites != 1 || got.Attributes != want || got.Cases != want {
				t.Errorf("junitparser read %d suites, counts %+v, cases %+v; the verdict's are %+v", got.Suites, got.Attributes, got.Cases, want)
			}
			var throughput int
			for _, f := range got.Failed {
				if strings.HasSuffix(f.Name, " throughput") && f.ClassName == "ybbench."+v.Profile+"."+strings.TrimSuffix(f.Name, " throughput") &&
					strings.Contains(f.Message, "measured ") && strings.Contains(f.Message, "ratio ") && strings.Contains(f.Message, ">= 0.9 × baseline") {
					throughput++
				}
			}
			if throughput != v.Failed {
				t.Errorf("%d failures name a throughput gate with its figures, the verdict has %d failed: %+v", throughput, v.Failed, got.Failed)
			}
		})
	}
}
