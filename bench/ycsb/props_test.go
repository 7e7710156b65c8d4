package ycsb

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
)

func TestPropertiesFileSyntax(t *testing.T) {
	src := "# comment\n! also comment\n  a = 1\nb:2\nc 3\nlong = x\\\n    y\\\n z\nesc=tab\\there\\u0041\nempty=\n"
	p := NewProps()
	if err := p.LoadFile("f.properties", []byte(src)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "2", "c": "3", "long": "xyz", "esc": "tab\there" + "A", "empty": ""}
	for k, v := range want {
		if got := p.Get(k, "<unset>"); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if s := p.SourceOf("long").String(); s != "f.properties:6" {
		t.Errorf("source of long: %s", s)
	}
	err := NewProps().LoadFile("bad.properties", []byte("ok=1\nx=\\u12G4\n"))
	if err == nil || !strings.Contains(err.Error(), "bad.properties:2") {
		t.Errorf("error %v should name bad.properties:2", err)
	}
}

// Every -p beats every -P, whatever the order; later -P files beat earlier ones.
func TestPropertyPrecedence(t *testing.T) {
	files := map[string]string{"one": "recordcount=10\nfieldcount=3\n", "two": "recordcount=20\n"}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	inv, err := ParseArgs([]string{"run", "null", "-p", "recordcount=5", "-P", "one", "-P", "two", "-threads", "4"}, read)
	if err != nil {
		t.Fatal(err)
	}
	p := inv.Props
	if got := p.Get("recordcount", ""); got != "5" {
		t.Errorf("recordcount %s, want 5 from -p", got)
	}
	if got := p.Get("fieldcount", ""); got != "3" {
		t.Errorf("fieldcount %s, want 3", got)
	}
	if got := p.Get("threadcount", ""); got != "4" {
		t.Errorf("threadcount %s, want 4 from -threads", got)
	}
	inv, _ = ParseArgs([]string{"run", "null", "-P", "one", "-P", "two"}, read)
	if got := inv.Props.Get("recordcount", ""); got != "20" {
		t.Errorf("recordcount %s, want 20 from the later file", got)
	}
	// A -P path that does not exist falls back to the built-in workload file.
	inv, err = ParseArgs([]string{"run", "null", "-P", "workloads/workloadc"}, read)
	if err != nil || inv.WorkloadFiles[0] != "built-in workloadc" || inv.Props.Get("readproportion", "") != "1" {
		t.Errorf("fallback: %v %v", err, inv)
	}
}

func TestNonNumericValueNamesFileAndLine(t *testing.T) {
	p := NewProps()
	if err := p.LoadFile("my.properties", []byte("workload=core\n\nrecordcount=ten\n")); err != nil {
		t.Fatal(err)
	}
	_, err := ReadConfig(p)
	if err == nil || !strings.Contains(err.Error(), `my.properties:3: property recordcount="ten": not an integer`) {
		t.Errorf("error %v", err)
	}
	if !errors.Is(err, ErrBadConfig) {
		t.Error("not classified as bad configuration")
	}
}

// runMain runs the CLI with the null binding and returns its exit code and stderr.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Bindings: map[string]BindingFactory{"null": NewNullBinding}, Version: "test"}
	code := Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// YCSB accepts these and misbehaves; ybload refuses them (exit 2) with one
// line naming what is wrong (README, deviations).
func TestNamedDeviationsAreRefused(t *testing.T) {
	base := []string{"run", "null", "-P", "workloads/workloada"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative proportion", []string{"-p", "readproportion=-0.5"}, "a proportion must not be negative"},
		{"all proportions zero", []string{"-p", "readproportion=0", "-p", "updateproportion=0"}, "every operation proportion is 0"},
		{"recordcount 0", []string{"-p", "recordcount=0"}, "recordcount=\"0\": must be above 0"},
		{"threadcount 0", []string{"-p", "threadcount=0"}, "threadcount=\"0\": must be at least 1"},
		{"non-numeric", []string{"-p", "operationcount=many"}, "operationcount=\"many\": not an integer"},
		{"unknown workload", []string{"-p", "workload=site.ycsb.workloads.TimeSeriesWorkload"}, "unknown workload class"},
		{"unknown distribution", []string{"-p", "requestdistribution=pareto"}, "unknown distribution"},
		{"unknown measurement type", []string{"-p", "measurementtype=timeseries"}, "not supported by ybload"},
		{"negative recordcount", []string{"-p", "recordcount=-5"}, "recordcount=\"-5\": must be above 0"},
		{"negative insertstart", []string{"-p", "insertstart=-10"}, "insertstart=\"-10\": must not be negative"},
		{"insertstart past recordcount", []string{"-p", "recordcount=1000", "-p", "insertstart=5000"}, "insertstart=\"5000\": must be below recordcount"},
		{"insertcount 0", []string{"-p", "insertcount=0"}, "insertcount=\"0\": must be at least 1"},
		{"hotspot without a cold set", []string{"-p", "requestdistribution=hotspot", "-p", "hotspotdatafraction=1"}, "hotspotdatafraction=\"1\": want a fraction strictly between 0 and 1"},
		{"hotspot without a hot set", []string{"-p", "requestdistribution=hotspot", "-p", "hotspotdatafraction=0"}, "hotspotdatafraction=\"0\""},
		{"exponential percentile", []string{"-p", "requestdistribution=exponential", "-p", "exponential.percentile=100"}, "exponential.percentile=\"100\""},
		{"min above max field length", []string{"-p", "fieldlengthdistribution=uniform", "-p", "minfieldlength=10", "-p", "fieldlength=5"}, "minfieldlength=\"10\": must not be above fieldlength"},
		{"negative minscanlength", []string{"-p", "minscanlength=-1"}, "minscanlength=\"-1\": must not be negative"},
		{"prepare.only not a boolean", []string{"-p", "ybload.prepare.only=yes"}, "ybload.prepare.only=\"yes\": want true or false"},
		{"interval 0", []string{"-p", "ybload.interval=0s"}, "ybload.interval=\"0s\": must be positive"},
		{"huge threadcount", []string{"-p", "threadcount=99999999"}, "threadcount=\"99999999\": must be at most 100000"},
		{"huge fieldcount", []string{"-p", "fieldcount=2000000000"}, "fieldcount=\"2000000000\": must be 1 to 1600"},
		{"huge fieldcount past an int", []string{"-p", "fieldcount=3000000000"}, "fieldcount=\"3000000000\": must be 1 to 1600"},
		{"insertcount's default past an int", []string{"-p", "recordcount=3000000000"}, "recordcount=\"3000000000\": recordcount − insertstart = 3000000000 is past a 32-bit int"},
		{"hotspot operation fraction", []string{"-p", "requestdistribution=hotspot", "-p", "hotspotopnfraction=2"}, "hotspotopnfraction=\"2\": want a fraction between 0 and 1"},
		{"null.values unknown", []string{"-p", "null.values=lazy"}, "command line (-p null.values): null.values=lazy: want produce or skip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runMain(t, append(base, c.args...)...)
			if code != exitcode.Config {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			last := lastLine(stderr)
			if !strings.Contains(last, c.want) || strings.Contains(stderr, "goroutine ") {
				t.Errorf("last line %q lacks %q", last, c.want)
			}
		})
	}
}

func TestBadInvocations(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.properties")
	os.WriteFile(bad, []byte("workload=core\nx=\\uZZZZ\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "mongodb", "-P", "workloads/workloada"}, `unknown binding "mongodb"`},
		{[]string{"walk", "null"}, `unknown command "walk"`},
		{[]string{"run", "null", "-P", bad}, "bad.properties:2: malformed"},
		{[]string{"run", "null", "-P", filepath.Join(dir, "nope")}, "no such file"},
		{[]string{"run", "null"}, "Missing property: workload"},
		{[]string{"run", "null", "-P", "workloads/workloada", "-q"}, "flag provided but not defined: -q"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(t, c.args...)
		if code != exitcode.Config || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestProportionsNotSummingToOneAreNormalisedWithAWarning(t *testing.T) {
	code, out, stderr := runMain(t, "run", "null", "-P", "workloads/workloada", "-p", "readproportion=1", "-p", "updateproportion=1", "-p", "operationcount=4000", "-p", "ybload.seed=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "normalised") {
		t.Errorf("no warning in %q", stderr)
	}
	if !strings.Contains(out, "[READ], Operations, ") || !strings.Contains(out, "[UPDATE], Operations, ") {
		t.Errorf("report lacks READ/UPDATE:\n%s", out)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// fieldlengthdistribution=histogram reads fieldlengthhistogram and runs
// (it was refused whatever the file); a missing file names the property.
func TestFieldLengthHistogramRuns(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "hist.txt")
	if err := os.WriteFile(hist, []byte("BlockSize\t10\n0\t0\n1\t5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runMain(t, "load", "null", "-P", "workloads/workloada", "-p", "recordcount=10",
		"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram="+hist)
	if code != 0 || !strings.Contains(out, "[INSERT], Operations, 10") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	code, _, stderr = runMain(t, "load", "null", "-P", "workloads/workloada", "-p", "recordcount=10",
		"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram="+hist+".missing")
	if code != exitcode.Config || !strings.Contains(stderr, "fieldlengthhistogram: open "+hist+".missing") {
		t.Errorf("missing file: exit %d\n%s", code, stderr)
	}
}

// YCSB core 0.17.0 reads recordcount and insertstart as longs and uses
// hotspotopnfraction only under the hotspot distribution: a count past
// int's range with an insertcount that fits, and an operation fraction out
// of range under another distribution, run.
func TestLongCountsAndUnusedHotspotFractionRun(t *testing.T) {
	for _, args := range [][]string{
		{"-p", "recordcount=3000000000", "-p", "insertcount=10"},
		{"-p", "recordcount=3000000010", "-p", "insertstart=3000000000", "-p", "insertcount=10"},
		{"-p", "recordcount=10", "-p", "hotspotopnfraction=2"},
	} {
		code, out, stderr := runMain(t, append([]string{"run", "null", "-P", "workloads/workloadc", "-p", "operationcount=5"}, args...)...)
		if code != 0 || !strings.Contains(out, "[READ], Operations, 5\n") {
			t.Errorf("%v: exit %d, stderr %q\n%s", args, code, stderr, out)
		}
	}
}
