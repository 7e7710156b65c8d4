package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// The file gets the content and exactly the mode asked for, even over an
// existing wider file, and no temporary file is left beside it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "secret" {
		t.Fatalf("content %q, %v", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if err := WriteJSON(filepath.Join(dir, "v.json"), map[string]int{"a": 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "v.json")); string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("json %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
	if err := Write(filepath.Join(dir, "no", "such", "dir"), nil, 0o644); err == nil {
		t.Error("a missing directory was not an error")
	}
}
