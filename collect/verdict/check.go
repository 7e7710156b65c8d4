package verdict

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Scope is what a gate file is checked against before a run: the
// profile's workloads and the operations its family measures, and
// whether its published table may gate (only a self-consistent one).
type Scope struct {
	Profile    string
	Workloads  []string
	Operations []string
	// PublishedUsable is false when the profile's published table does not
	// satisfy Little's law; Why says how.
	PublishedUsable bool
	Why             string
}

// Check reports every rule of f that names what the profile does not
// have, a published baseline the profile's table cannot be, and a ratio
// with no baseline at all (after --history, which may give it).
func (f *File) Check(s Scope) error {
	var errs []error
	fail := func(line int, field, format string, args ...any) {
		errs = append(errs, &Error{File: f.Path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if f.Baseline.Source == "" && slices.ContainsFunc(f.Gates, func(r Rule) bool { return r.Ratio != nil }) {
		fail(f.Baseline.Line, "baseline", "missing, and a gate has a ratio (of it): want published, run: DIR or history: {dir: DIR, last: N} (or --history DIR)")
	}
	if f.Baseline.Source == SourcePublished && !s.PublishedUsable {
		fail(f.Baseline.Line, "baseline", "published: profile %s's published table is not self-consistent (%s), so it cannot gate", s.Profile, s.Why)
	}
	for i, r := range f.Gates {
		at := fmt.Sprintf("gates[%d]", i)
		if r.Workload != Any && !slices.Contains(s.Workloads, r.Workload) {
			fail(r.Line, at+".workload", "profile %s has no workload %q (known: %s, or \"*\")", s.Profile, r.Workload, strings.Join(s.Workloads, ", "))
		}
		if r.Operation != "" && r.Operation != Any && !slices.Contains(s.Operations, r.Operation) {
			fail(r.Line, at+".operation", "profile %s measures no operation %q (known: %s, or \"*\")", s.Profile, r.Operation, strings.Join(s.Operations, ", "))
		}
	}
	return errors.Join(errs...)
}
