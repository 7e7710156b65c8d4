package steplog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHeaderRedactsValues(t *testing.T) {
	env := map[string]string{"PGPASSWORD": "hunter2", "A": "visible?"}
	h := Header(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "db1", "install", "echo hi", env)
	want := "=== 2026-01-02T03:04:05Z host=db1 step=install\n=== env: A=<redacted> PGPASSWORD=<redacted>\n=== script:\necho hi\n=== output:\n"
	if h != want {
		t.Fatalf("header\n%q\nwant\n%q", h, want)
	}
	if strings.Contains(h, "hunter2") || strings.Contains(h, "visible?") {
		t.Fatal("a value leaked")
	}
	if RedactEnv(nil) != "" {
		t.Fatal("empty env")
	}
}

func TestLogFile(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, "db/1", "", "true", map[string]string{"S": "value"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = l.Write([]byte("out\n"))
	if err := l.Close("exit 0"); err != nil {
		t.Fatal(err)
	}
	// Appends: a second run of the step adds to the file.
	l, _ = Open(dir, "db/1", "", "false", nil)
	_ = l.Close("exit 1")
	p := filepath.Join(dir, "db_1", "run.log")
	if p != Path(dir, "db/1", "") {
		t.Fatalf("Path = %s", Path(dir, "db/1", ""))
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, "=== script:") != 2 || !strings.Contains(s, "out\n") || !strings.Contains(s, "exit 0") || !strings.Contains(s, "exit 1") || strings.Contains(s, "value") {
		t.Fatalf("log:\n%s", s)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	// No directory: nothing written, nothing fails.
	l, err = Open("", "h", "s", "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.Write([]byte("x")); n != 1 || err != nil || l.Close("done") != nil {
		t.Fatal("discarding log failed")
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"db1": "db1", "a/b": "a_b", "..": "__", ".": "_", "": "_", "x y:z": "x_y_z", "install-2.log": "install-2.log"} {
		if got := SafeName(in); got != want {
			t.Fatalf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTail(t *testing.T) {
	tl := NewTail(8)
	if tl.Bytes() != nil {
		t.Fatal("empty tail")
	}
	var all bytes.Buffer
	for i := range 100 {
		w := []byte(strings.Repeat(string(rune('a'+i%26)), i%5))
		all.Write(w)
		_, _ = tl.Write(w)
		want := all.Bytes()
		if len(want) > 8 {
			want = want[len(want)-8:]
		}
		if got := tl.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("after %d writes: %q, want %q", i+1, got, want)
		}
	}
	_, _ = tl.Write([]byte("0123456789abc"))
	if string(tl.Bytes()) != "56789abc" {
		t.Fatalf("big write: %q", tl.Bytes())
	}
}
