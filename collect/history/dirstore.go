package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

// dirStore is a directory of run directories (DIR/<run>/result.json, or
// result files directly in DIR), as CI jobs kept their passing runs before
// there was a store: its entries are taken from the results when read, so
// a directory written by hand or by an older ybbench is a history as it
// is. Adding writes DIR/<run id>/result.json, once.
type dirStore struct {
	dir string
}

func openDir(dir string) (Store, error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("history store %s: not a directory of results", dir)
	}
	return &dirStore{dir: dir}, nil
}

func (s *dirStore) Describe() string { return "history directory " + s.dir }
func (s *dirStore) Close() error     { return nil }

// resultFiles are the directory's result files, in name order.
func (s *dirStore) resultFiles() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, "*", "result.json"))
	if err != nil {
		return nil, err
	}
	direct, _ := filepath.Glob(filepath.Join(s.dir, "*.json"))
	paths = append(paths, direct...)
	sort.Strings(paths)
	return paths, nil
}

// Entries reads every result of the directory. A file that is not a
// result is an error naming it: a history that silently drops runs is not
// the history asked for.
func (s *dirStore) Entries(context.Context) ([]*Entry, error) {
	paths, err := s.resultFiles()
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, p := range paths {
		r, err := ReadResultFile(p)
		if err != nil {
			return nil, err
		}
		e, err := FromResult(r, Build{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if rep := filepath.Join(filepath.Dir(p), "report.html"); fileExists(rep) {
			e.Report = rep
		}
		out = append(out, e)
	}
	return out, nil
}

// Add writes the entry's result as DIR/<run id>/result.json. Only a result
// carries everything a directory history reads, so an entry alone (from
// another store) cannot be added.
func (s *dirStore) Add(_ context.Context, e *Entry) (bool, error) {
	return false, errors.New("a directory history takes whole results: copy the run's directory into " + s.dir)
}

// AddResult writes a run's result.json into the directory, unless a
// result of that run is there.
func (s *dirStore) AddResult(r *collect.Result, raw []byte) (bool, error) {
	p := filepath.Join(s.dir, r.RunID, "result.json")
	if fileExists(p) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	return true, atomicfile.Write(p, raw, 0o644)
}

// ReadResultFile reads and checks a result.json, naming the file (and the
// field, from the schema's check) when it is not one.
func ReadResultFile(path string) (*collect.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := collect.Validate(b); err != nil {
		return nil, fmt.Errorf("%s: not a result.json of this schema: %w", path, err)
	}
	r, err := collect.ReadResult(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
