// Package golden holds the test helpers for golden files and rendered
// shell scripts, shared by the packages whose output is compared byte for
// byte with a file in their testdata/ (reports, DDL, provisioning scripts).
package golden

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ instead of comparing")

// Updating reports whether the test runs with -update, for a test that
// keeps a file other than a testdata/ one current (the README's tables).
func Updating() bool { return *update }

// Check compares got with testdata/name, or rewrites that file when the
// test runs with -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// BashSyntax checks a rendered script with bash -n.
func BashSyntax(t testing.TB, name, script string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: bash -n: %v\n%s", name, err, out)
	}
}
