package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/collect"
)

// Added is what adding one run to a store did.
type Added struct {
	RunID string
	Build Build
	// Added is false when the store had the run already.
	Added  bool
	Series int
	// Skipped says what of the run was left out, and why.
	Skipped []string
}

// AddRun adds a run directory (or a directory holding only its
// result.json, as CI artifacts keep it) to a store: its entry, or, to a
// directory history, its result. given names the build where the result
// does not.
func AddRun(ctx context.Context, st Store, dir string, given Build) (Added, error) {
	p := filepath.Join(dir, "result.json")
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		p = dir // a result file given itself
	}
	r, err := ReadResultFile(p)
	if err != nil {
		return Added{}, err
	}
	e, err := FromResult(r, given)
	if err != nil {
		return Added{}, fmt.Errorf("%s: %w", p, err)
	}
	if rep, err := filepath.Abs(filepath.Join(filepath.Dir(p), "report.html")); err == nil && fileExists(rep) {
		e.Report = rep
	}
	out := Added{RunID: e.RunID, Build: e.Build, Series: len(e.Points), Skipped: e.Skipped}
	if ds, ok := st.(*dirStore); ok {
		raw, err := os.ReadFile(p)
		if err != nil {
			return out, err
		}
		if r.Build == nil && given.ID != "" {
			// The directory keeps whole results: the build given goes
			// into the copy, or reading it back would lose it.
			r.Build = &collect.Build{ID: given.ID}
			if !given.Time.IsZero() {
				r.Build.Time = &given.Time
			}
			if raw, err = json.Marshal(r); err != nil {
				return out, err
			}
		}
		out.Added, err = ds.AddResult(r, raw)
		return out, err
	}
	out.Added, err = st.Add(ctx, e)
	return out, err
}
