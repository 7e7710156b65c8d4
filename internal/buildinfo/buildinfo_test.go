package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	got := Describe("v1.2.3")
	if !strings.HasPrefix(got, "v1.2.3 (") || !strings.HasSuffix(got, runtime.Version()+")") || !strings.Contains(got, "commit") {
		t.Errorf("Describe = %q", got)
	}
}
