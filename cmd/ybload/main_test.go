package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		var out, errb bytes.Buffer
		code := realMain([]string{arg}, &out, &errb)
		if code != 0 || !strings.HasPrefix(out.String(), "ybload "+version+" (") || !strings.Contains(out.String(), runtime.Version()) {
			t.Errorf("ybload %s: exit %d, %q %q", arg, code, out.String(), errb.String())
		}
	}
}
