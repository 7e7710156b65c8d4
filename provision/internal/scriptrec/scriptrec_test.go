package scriptrec

import "testing"

func TestParse(t *testing.T) {
	out := "noise\nYBB sha256 abc\nYBB limits Max open files  1024  4096  files\nYBB empty\nYBBX no\nYBB sha256 def\n"
	rs := Parse("YBB ", []byte(out))
	if v, _ := rs.Last("sha256"); v != "def" {
		t.Errorf("Last(sha256) = %q, want def", v)
	}
	if got := rs.All("sha256"); len(got) != 2 || got[0] != "abc" || got[1] != "def" {
		t.Errorf("All(sha256) = %q", got)
	}
	if v, _ := rs.Last("limits"); v != "Max open files  1024  4096  files" {
		t.Errorf("a value with spaces was cut: %q", v)
	}
	if v, ok := rs.Last("empty"); !ok || v != "" {
		t.Errorf("empty = %q, %v", v, ok)
	}
	if _, ok := rs.Last("YBBX"); ok {
		t.Error("a line without the prefix was read")
	}
	if _, ok := rs.Last("missing"); ok {
		t.Error("Last found a key no record has")
	}
	if got := rs.All("missing"); got != nil {
		t.Errorf("All(missing) = %q", got)
	}
}

func TestParseLongLine(t *testing.T) {
	long := make([]byte, 200*1024)
	for i := range long {
		long[i] = 'x'
	}
	rs := Parse("P ", append([]byte("P big "), long...))
	if v, _ := rs.Last("big"); len(v) != len(long) {
		t.Errorf("a 200 KiB value came back as %d bytes", len(v))
	}
}
