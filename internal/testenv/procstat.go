package testenv

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// ProcStat reads a process's CPU clock ticks (utime + stime + cutime +
// cstime: its reaped children's included) and its threads from
// /proc/<pid>/stat, as the tests' independent count of what the tool's
// readings say. The fields are taken after the name's last parenthesis,
// for a name may hold blanks and parentheses.
func ProcStat(t testing.TB, pid int) (ticks, threads int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// f[0] is field 3 of stat(5) (the state): field N is f[N-3].
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	field := func(n int) int64 {
		if n-3 >= len(f) {
			t.Fatalf("/proc/%d/stat has %d fields after its name, want field %d", pid, len(f), n)
		}
		v, err := strconv.ParseInt(f[n-3], 10, 64)
		if err != nil {
			t.Fatalf("/proc/%d/stat field %d: %v", pid, n, err)
		}
		return v
	}
	return field(14) + field(15) + field(16) + field(17), field(20)
}
