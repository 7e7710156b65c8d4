package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	if got := Describe("v1.2.3", "abc123"); got != "v1.2.3 (commit abc123, "+runtime.Version()+")" {
		t.Errorf("Describe with a commit = %q", got)
	}
	got := Describe("v1.2.3", "")
	if !strings.HasPrefix(got, "v1.2.3 (") || !strings.HasSuffix(got, runtime.Version()+")") || !strings.Contains(got, "commit") {
		t.Errorf("Describe = %q", got)
	}
}
