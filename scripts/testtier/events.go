package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	// Elapsed is the seconds a test or package took, on its final event.
	Elapsed float64
	// ImportPath names the package of a build-output or build-fail event
	// ("pkg [pkg.test]"), which has no Package.
	ImportPath string
}

// test is one test's outcome and everything it printed.
type test struct {
	Package, Name string
	Action        string // pass, fail, skip; "" when it never ended
	Output        []string
	Elapsed       float64 // seconds, once it ended
}

// pkg is one package's outcome, its tests in the order they started, and
// what it printed outside any test (build errors, a timeout's panic).
type pkg struct {
	Name   string
	Action string
	Output []string
	Tests  []*test
}

// Stream is everything read from one `go test -json` run: the packages in
// the order they first appeared, and lines that were not JSON (go's own
// messages on stderr, merged into the stream).
type Stream struct {
	Packages []*pkg
	Other    []string
}

// Read decodes a `go test -json` stream. A line that is not a JSON event
// is kept as it is in Other.
func Read(r io.Reader) (*Stream, error) {
	s := &Stream{}
	pkgs := map[string]*pkg{}
	tests := map[string]*test{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
			s.Other = append(s.Other, line)
			continue
		}
		if e.Package == "" {
			e.Package, _, _ = strings.Cut(e.ImportPath, " ")
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkg{Name: e.Package}
			pkgs[e.Package] = p
			s.Packages = append(s.Packages, p)
		}
		if e.Test == "" {
			p.apply(e)
			continue
		}
		key := e.Package + "\x00" + e.Test
		tt := tests[key]
		if tt == nil {
			tt = &test{Package: e.Package, Name: e.Test}
			tests[key] = tt
			p.Tests = append(p.Tests, tt)
		}
		tt.apply(e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the test events: %w", err)
	}
	return s, nil
}

// apply records a package-level event.
func (p *pkg) apply(e event) {
	switch e.Action {
	case "output", "build-output":
		p.Output = append(p.Output, strings.TrimSuffix(e.Output, "\n"))
	case "pass", "fail", "skip":
		p.Action = e.Action
	}
}

// apply records a test's event.
func (t *test) apply(e event) {
	switch e.Action {
	case "output":
		t.Output = append(t.Output, strings.TrimSuffix(e.Output, "\n"))
	case "pass", "fail", "skip":
		t.Action = e.Action
		t.Elapsed = e.Elapsed
	}
}
