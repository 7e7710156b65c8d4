package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/golden"
)

// testdata/stream.jsonl is the real `go test -json` output of a small
// module: a package that does not build, and one with a passing test, a
// failing one with a log line, two skipping ones and a failing subtest.
func readStream(t *testing.T) *Stream {
	t.Helper()
	f, err := os.Open("testdata/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The rendering of a failing tier: the build error, each failed test's log,
// each skip with its reason and verdict, and the summary line.
func TestRenderGolden(t *testing.T) {
	var b bytes.Buffer
	if Render(&b, readStream(t), Rule{Tier: "unit", Required: true, Allow: []string{"TestSkipsForTarball"}}) {
		t.Errorf("a tier with failures passed")
	}
	golden.Check(t, "render.txt", b.Bytes())
}

// Skips fail a required tier unless allowed, and only then.
func TestSkipRule(t *testing.T) {
	// Only the fixture's passing and skipping tests: no failure to mask the rule.
	only := func(s *Stream, keep ...string) *Stream {
		out := &Stream{}
		for _, p := range s.Packages {
			if p.Name != "example.com/fx" {
				continue
			}
			q := &pkg{Name: p.Name, Action: "pass"}
			for _, tt := range p.Tests {
				for _, k := range keep {
					if tt.Name == k {
						q.Tests = append(q.Tests, tt)
					}
				}
			}
			out.Packages = append(out.Packages, q)
		}
		return out
	}
	s := only(readStream(t), "TestPasses", "TestSkipsForTarball", "TestSkipsForRoot")
	for _, c := range []struct {
		name string
		rule Rule
		ok   bool
		want string
	}{
		{"not required: skips pass", Rule{Tier: "u"}, true, "tier u: ok: 1 passed, 0 failed, 2 skipped (0 not allowed)"},
		{"required: a skip not allowed fails", Rule{Tier: "u", Required: true, Allow: []string{"TestSkipsForTarball"}}, false, "tier u: FAILED: 1 passed, 0 failed, 2 skipped (1 not allowed)"},
		{"required: every skip allowed", Rule{Tier: "u", Required: true, Allow: []string{"TestSkipsForTarball", "TestSkipsForRoot"}}, true, "tier u: ok: 1 passed, 0 failed, 2 skipped (0 not allowed)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if ok := Render(&b, s, c.rule); ok != c.ok {
				t.Errorf("passed %v, want %v:\n%s", ok, c.ok, b.String())
			}
			if !strings.Contains(b.String(), c.want+"\n") {
				t.Errorf("no summary line %q in:\n%s", c.want, b.String())
			}
			if !strings.Contains(b.String(), "needs root") {
				t.Errorf("the skip's reason is not printed:\n%s", b.String())
			}
		})
	}
}

// A line that is not an event (go's own messages) is printed as it came.
func TestOtherLinesKept(t *testing.T) {
	s, err := Read(strings.NewReader("go: downloading example.com/x v1.0.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if !Render(&b, s, Rule{Tier: "u", Required: true}) {
		t.Errorf("no test at all failed the tier")
	}
	if !strings.HasPrefix(b.String(), "go: downloading example.com/x v1.0.0\n") {
		t.Errorf("got %q", b.String())
	}
}

// The summary names the slowest top-level tests, slowest first, by the
// seconds go test gave their last event; subtests do not count.
func TestSlowestNamed(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":3.2}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"pass","Package":"p","Test":"TestB/sub","Elapsed":40}
{"Action":"pass","Package":"p","Test":"TestB","Elapsed":41.6}
{"Action":"run","Package":"q","Test":"TestC"}
{"Action":"skip","Package":"q","Test":"TestC","Elapsed":0}
{"Action":"pass","Package":"p","Elapsed":45}
{"Action":"pass","Package":"q","Elapsed":0.1}
`
	s, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Render(&b, s, Rule{Tier: "u"})
	if want := "tier u: slowest: TestB 42 s, TestA 3 s\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("got %q, want it to end %q", b.String(), want)
	}
}
