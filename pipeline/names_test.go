package pipeline

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestNoProviderOrFlavorNames: the orchestrator, the collector and the CLI
// ask a provider's or flavor's traits (through pipeline/parts) instead of
// matching their names, so no string literal in their non-test Go files
// is a provider's or flavor's name, except where the allowed list below
// says why.
func TestNoProviderOrFlavorNames(t *testing.T) {
	names := map[string]bool{}
	// The names as they are today, and whatever the registry adds.
	for _, n := range []string{"local", "inventory", "aws", "gcp", "postgres", "cassandra", "yugabyte"} {
		names[n] = true
	}
	for _, p := range builtin.Providers {
		names[p.Name] = true
	}
	for _, f := range builtin.Flavors {
		names[f.Name] = true
	}
	type place struct{ file, name string }
	allowed := map[place]struct {
		n   int
		why string
	}{
		{"pipeline/settings.go", "inventory"}: {1, "inventorySetting: the name of the setting that names an inventory file"},
		{"pipeline/settings.go", "local"}:     {2, "the --local preset: its flag's name and the provider it sets"},
	}
	found := map[place][]string{}
	fset := token.NewFileSet()
	for _, dir := range []string{"pipeline", "collect", "cmd/ybbench"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			rel := filepath.ToSlash(filepath.Join(dir, filepath.Base(path)))
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if v, err := strconv.Unquote(lit.Value); err == nil && names[v] {
					p := place{rel, v}
					found[p] = append(found[p], fmt.Sprintf("%s:%d", rel, fset.Position(lit.Pos()).Line))
				}
				return true
			})
		}
	}
	var bad []string
	for p, at := range found {
		if a, ok := allowed[p]; !ok || len(at) != a.n {
			bad = append(bad, fmt.Sprintf("%q at %s", p.name, strings.Join(at, ", ")))
		}
	}
	for p, a := range allowed {
		if _, ok := found[p]; !ok {
			bad = append(bad, fmt.Sprintf("%s: the allowed %q (%s) is gone: drop it from this test", p.file, p.name, a.why))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		var why []string
		for p, a := range allowed {
			why = append(why, fmt.Sprintf("%s: %q ×%d (%s)", p.file, p.name, a.n, a.why))
		}
		sort.Strings(why)
		t.Errorf("provider or flavor names as string literals (ask pipeline/parts for the traits instead):\n  %s\nallowed:\n  %s",
			strings.Join(bad, "\n  "), strings.Join(why, "\n  "))
	}
}
