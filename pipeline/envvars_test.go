package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A misspelt YBBENCH_* variable is refused with the closest known name;
// the settings' variables and the project's other documented ones pass.
func TestUnknownVariablesAreRefused(t *testing.T) {
	environ := []string{"YBBENCH_THREADZ=3", "YBBENCH_THREADS=4", "YBBENCH_TERRAFORM=/x", "YBBENCH_TESTENV_REQUIRED=1",
		"YBBENCH_COMPLETELY_DIFFERENT=1", "PATH=/bin", "YBBENCH_RECORD=5"}
	_, err := Load(CommandLine{Environ: environ})
	if err == nil {
		t.Fatal("YBBENCH_THREADZ accepted")
	}
	got := err.Error()
	for _, want := range []string{"YBBENCH_THREADZ: not a variable ybbench knows; did you mean YBBENCH_THREADS?",
		"YBBENCH_RECORD: not a variable ybbench knows; did you mean YBBENCH_RECORDS?",
		"YBBENCH_COMPLETELY_DIFFERENT: not a variable ybbench knows (ybbench run --help"} {
		if !strings.Contains(got, want) {
			t.Errorf("error lacks %q:\n%s", want, got)
		}
	}
	if lines := strings.Count(got, "\n") + 1; lines != 3 {
		t.Errorf("%d problems, want 3:\n%s", lines, got)
	}
	if _, err := Load(CommandLine{Environ: []string{"YBBENCH_THREADS=4", "YBBENCH_TERRAFORM=/x"}}); err != nil {
		t.Errorf("known variables refused: %v", err)
	}
}

// misspelt are the names tests use to be refused.
var misspelt = map[string]bool{"YBBENCH_THREADZ": true, "YBBENCH_RECORD": true, "YBBENCH_COMPLETELY_DIFFERENT": true}

// Every YBBENCH_* name the repository mentions (scripts, docs, code) is a
// variable ybbench knows, so that a documented one is never refused as a
// typo; and every name on the list is still mentioned somewhere else than
// the list itself.
func TestKnownVariablesAreTheProjects(t *testing.T) {
	root := filepath.Join("..")
	re := regexp.MustCompile(`YBBENCH_[A-Z0-9_]*[A-Z0-9]`)
	mentioned := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// What the repository ignores (.gitignore): runs, builds and
			// benchmark outputs, whose binaries hold any string.
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "runs" || n == "bin" || n == "bench-out") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(path, "envvars.go") || strings.HasSuffix(path, "envvars_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllString(string(b), -1) {
			mentioned[m] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	known := knownVariables()
	for name, where := range mentioned {
		// settings.go's doc comment spells the pattern with a placeholder;
		// the tests of this refusal misspell names on purpose.
		if name == "YBBENCH_NAME" || misspelt[name] {
			continue
		}
		if !slices.Contains(known, name) {
			t.Errorf("%s (in %s) is not a known variable: add it to otherVariables", name, where)
		}
	}
	for name := range otherVariables {
		if _, ok := mentioned[name]; !ok && name != "YBBENCH_TERRAFORM" {
			t.Errorf("%s is on the list but mentioned nowhere else", name)
		}
	}
}
