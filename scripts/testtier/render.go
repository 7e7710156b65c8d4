package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Rule says which skips fail a tier.
type Rule struct {
	Tier string
	// Required: a skipped test fails the tier unless it is allowed.
	Required bool
	// Allow names the tests that may skip (their subtests too).
	Allow []string
}

// allowed reports whether a test (or subtest) may skip under r.
func (r Rule) allowed(name string) bool {
	top, _, _ := strings.Cut(name, "/")
	return slices.Contains(r.Allow, top)
}

// Render writes the failures, the skips and the tier's summary line, and
// reports whether the tier passed. It is a pure function of the stream.
func Render(w io.Writer, s *Stream, r Rule) bool {
	var passed, failed, skipped, refused int
	for _, line := range s.Other {
		fmt.Fprintln(w, line)
	}
	for _, p := range s.Packages {
		for _, t := range p.Tests {
			switch {
			case t.Action == "pass":
				passed++
			case t.Action == "skip":
				skipped++
				verdict := "allowed"
				if r.Required && !r.allowed(t.Name) {
					verdict = "NOT ALLOWED: the tier requires every test to run"
					refused++
				} else if !r.Required {
					verdict = "the test environment is not required"
				}
				fmt.Fprintf(w, "--- SKIP %s %s (%s): %s\n", p.Name, t.Name, verdict, reason(t.Output))
			case t.Action == "fail" || p.Action == "fail":
				// A test that never ended in a failed package was cut off
				// (a timeout, a panic elsewhere): its output matters too.
				failed++
				fmt.Fprintf(w, "--- FAIL %s %s\n", p.Name, t.Name)
				for _, line := range t.Output {
					fmt.Fprintln(w, "    "+line)
				}
			}
		}
		if p.Action == "fail" {
			fmt.Fprintf(w, "FAIL %s\n", p.Name)
			for _, line := range p.Output {
				fmt.Fprintln(w, "    "+line)
			}
		}
	}
	pkgFailed := slices.ContainsFunc(s.Packages, func(p *pkg) bool { return p.Action == "fail" })
	ok := !pkgFailed && failed == 0 && refused == 0
	if r.Required && len(r.Allow) > 0 {
		fmt.Fprintf(w, "tier %s: skips allowed for %s\n", r.Tier, strings.Join(r.Allow, ", "))
	}
	verdict := "ok"
	if !ok {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "tier %s: %s: %d passed, %d failed, %d skipped (%d not allowed)\n", r.Tier, verdict, passed, failed, skipped, refused)
	if slow := slowest(s, 15); slow != "" {
		// Where a tier's time goes, so that its budget can be watched
		// from the CI log alone.
		fmt.Fprintf(w, "tier %s: slowest: %s\n", r.Tier, slow)
	}
	return ok
}

// slowest names the n top-level tests that took longest, with their
// seconds ("" when no test says how long it took).
func slowest(s *Stream, n int) string {
	var all []*test
	for _, p := range s.Packages {
		for _, t := range p.Tests {
			if !strings.Contains(t.Name, "/") && t.Elapsed > 0 {
				all = append(all, t)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b *test) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	var out []string
	for _, t := range all[:min(n, len(all))] {
		out = append(out, fmt.Sprintf("%s %.0f s", t.Name, t.Elapsed))
	}
	return strings.Join(out, ", ")
}

// reason is a skipped test's message: its output without go test's own
// "=== RUN" and "--- SKIP" lines.
func reason(out []string) string {
	var kept []string
	for _, line := range out {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) == 0 {
		return "no reason given"
	}
	return strings.Join(kept, " / ")
}
