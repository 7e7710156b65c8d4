package ybbench_test

import (
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ybbench/ybbench"

// rooms is the house's one direction (docs/architecture.md): each top-level
// folder and what of this module it may import besides itself. A room not
// listed may import nothing of the module; "*" is anything. The orchestrator
// (pipeline) sits above every stage; the stages below it meet only in the
// formats they share (record, profiles) and the small helpers (internal).
var rooms = map[string][]string{
	"":          {"*"}, // the module's root holds tests of the whole tree only
	"cmd":       {"*"},
	"scripts":   {"*"},
	"pipeline":  {"collect", "bench", "provision", "infra", "terraform", "record", "profiles", "internal"},
	"collect":   {"record", "profiles", "internal"},
	"bench":     {"record", "internal"},
	"provision": {"infra", "internal"},
	"infra":     {"terraform", "internal"},
	"terraform": {"internal"},
	"record":    {"internal"},
	"profiles":  {"internal"},
	"internal":  {},
}

// roomOf is the top-level folder of a package path inside the module ("" for
// the root package, and for packages outside the module).
func roomOf(pkg string) (string, bool) {
	if pkg == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return "", false
	}
	room, _, _ := strings.Cut(rest, "/")
	return room, true
}

// allowed reports whether a file of room from may import a package of room to.
func allowed(from, to string) bool {
	if from == to {
		return true
	}
	may := rooms[from]
	return slices.Contains(may, "*") || slices.Contains(may, to)
}

type listedPackage struct {
	ImportPath, Dir                                    string
	GoFiles, TestGoFiles, XTestGoFiles, IgnoredGoFiles []string
}

// listPackages is `go list -json ./...`: every package, with its files for
// every build tag (IgnoredGoFiles holds the integration and e2e tiers').
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list listed %d packages: not the whole module?", len(pkgs))
	}
	return pkgs
}

// forbiddenImports lists "file: imports pkg (room A may not import room B)"
// for every import of every Go file of pkgs, tests and tagged files included,
// that the rooms table forbids.
func forbiddenImports(t *testing.T, pkgs []listedPackage, root string) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	for _, p := range pkgs {
		from, ok := roomOf(p.ImportPath)
		if !ok {
			continue
		}
		if _, known := rooms[from]; !known {
			bad = append(bad, p.ImportPath+": a top-level folder the rooms table does not name (add it to layers_test.go and docs/architecture.md)")
			continue
		}
		files := slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles, p.IgnoredGoFiles)
		for _, name := range files {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			rel, _ := filepath.Rel(root, path)
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				to, ok := roomOf(ip)
				if !ok || allowed(from, to) {
					continue
				}
				bad = append(bad, rel+":"+strconv.Itoa(fset.Position(imp.Pos()).Line)+": imports "+ip+
					" (room "+show(from)+" may import only "+strings.Join(rooms[from], ", ")+")")
			}
		}
	}
	return bad
}

func show(room string) string {
	if room == "" {
		return "(root)"
	}
	return room + "/"
}

// Every import of the module, tests included, runs down the rooms table.
func TestImportsRunOneWay(t *testing.T) {
	root, _ := filepath.Abs(".")
	for _, b := range forbiddenImports(t, listPackages(t), root) {
		t.Error(b)
	}
}

// The check itself: a stage importing the orchestrator, an import from the
// ground up, and an unknown folder are each named; imports the table allows
// are not (the positive control).
func TestForbiddenImportsAreNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	pkgs := []listedPackage{
		{ImportPath: module + "/collect", Dir: dir, GoFiles: []string{write("c.go",
			"package collect\nimport (\n\t\"fmt\"\n\t\""+module+"/record\"\n\t\""+module+"/pipeline\"\n)\n")}},
		{ImportPath: module + "/internal/x", Dir: dir, TestGoFiles: []string{write("x_test.go",
			"package x\nimport \""+module+"/bench\"\n")}},
		{ImportPath: module + "/cmd/y", Dir: dir, IgnoredGoFiles: []string{write("y.go",
			"//go:build e2e\n\npackage main\nimport \""+module+"/pipeline\"\n")}},
		{ImportPath: module + "/attic", Dir: dir},
	}
	got := forbiddenImports(t, pkgs, dir)
	want := []string{
		"c.go:5: imports " + module + "/pipeline (room collect/ may import only record, profiles, internal)",
		"x_test.go:2: imports " + module + "/bench (room internal/ may import only )",
		module + "/attic: a top-level folder the rooms table does not name (add it to layers_test.go and docs/architecture.md)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// The orchestrator links no load engine: the agent's packages (the YCSB,
// sysbench and KV engines, their pacing and the PostgreSQL binding) are
// ybload's alone, and what the agents ran (the DDL included) reaches ybbench
// in their files. (gocql stays: the Cassandra flavor's readiness check
// speaks CQL.)
func TestOrchestratorLinksNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./cmd/ybbench").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/pipeline") {
		t.Fatalf("go list -deps ./cmd/ybbench lists no pipeline: %d packages", len(deps))
	}
	for _, banned := range []string{"bench", "bench/ysql", "bench/ycql", "bench/ycsb", "bench/pace", "bench/sysbench", "bench/kv"} {
		if slices.Contains(deps, module+"/"+banned) {
			t.Errorf("ybbench links %s", banned)
		}
	}
}
