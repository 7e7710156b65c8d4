package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// A reader never sees part of a write: while one file is rewritten over
// and over with two contents of different lengths, every read gets one of
// them whole.
func TestWriteIsAtomicForReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	a, b := []byte(strings.Repeat("a", 64<<10)), []byte(strings.Repeat("b", 3))
	if err := Write(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := Write(path, data, 0o644); err != nil {
				errs <- err
				return
			}
		}
	}()
	reads := 0
	for {
		select {
		case <-done:
			select {
			case err := <-errs:
				t.Fatal(err)
			default:
			}
			if reads == 0 {
				t.Fatal("no read happened")
			}
			return
		default:
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("read %d saw %d bytes, neither write whole", reads, len(got))
		}
		reads++
	}
}

// A file written a piece at a time appears whole at Commit and not
// before; an aborted one leaves the old content and no temporary file.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		f.Write([]byte(strings.Repeat("x", 100)))
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("before Commit the file holds %d bytes, want the old content", len(b))
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); len(b) != 100_000 {
		t.Fatalf("after Commit %d bytes, want 100000", len(b))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	g, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("new"))
	g.Abort()
	if b, _ := os.ReadFile(path); len(b) != 100_000 {
		t.Fatalf("after Abort %d bytes, want the committed 100000", len(b))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}
