package ybbench_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every package (build tags included) has a package doc comment in one of
// its non-test files, as `go doc` shows it.
func TestEveryPackageHasADocComment(t *testing.T) {
	dirs := map[string]bool{} // dir → has a doc comment
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "runs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		dirs[dir] = dirs[dir] || f.Doc != nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d packages: not walking the module?", len(dirs))
	}
	for dir, ok := range dirs {
		if !ok {
			t.Errorf("package in %s has no doc comment (// Package … before its package clause)", dir)
		}
	}
}
