package ycsb

import (
	"strconv"
	"testing"
)

// Keys carved from the arena keep their text while the buffer they came
// from is rewritten, across several chunks (an independent copy made with
// string() is the reference).
func TestKeyArenaKeysStayIntact(t *testing.T) {
	var a keyArena
	var buf []byte
	var got, want []string
	for i := range 3 * keyChunk / 10 {
		buf = append(buf[:0], "user"...)
		buf = strconv.AppendInt(buf, int64(i)*7919, 10)
		got = append(got, a.str(buf))
		want = append(want, string(buf))
	}
	buf = append(buf[:0], "overwritten"...)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("key %d is %q, want %q", i, got[i], want[i])
		}
	}
	if s := a.str(nil); s != "" {
		t.Errorf("empty key %q", s)
	}
	long := make([]byte, keyChunk+5)
	for i := range long {
		long[i] = 'k'
	}
	if s := a.str(long); s != string(long) {
		t.Errorf("a key longer than a chunk comes back %d bytes long", len(s))
	}
}
