package provision

import (
	"strings"
	"testing"
)

// Lines split across writes are joined, empty lines kept, and an
// unterminated rest comes out only on Flush.
func TestLineWriter(t *testing.T) {
	var got []string
	w := &LineWriter{Fn: func(l string) { got = append(got, l) }}
	for _, p := range []string{"12", "3.4\n5", "6.7\n\n", "tail"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if strings.Join(got, "|") != "123.4|56.7|" {
		t.Fatalf("before Flush: %q", got)
	}
	w.Flush()
	w.Flush()
	if strings.Join(got, "|") != "123.4|56.7||tail" {
		t.Fatalf("after Flush: %q", got)
	}
}
