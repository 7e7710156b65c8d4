package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// TestRunRefusesHTTPTarballWithoutSHA256: `ybbench run` with a plain
// http:// tarball and no sha256 exits 2 naming the setting, before any
// run directory is made, and does not print the URL's secrets.
func TestRunRefusesHTTPTarballWithoutSHA256(t *testing.T) {
	runs := t.TempDir()
	var stdout, stderr bytes.Buffer
	root := newRoot(&stdout, &stderr)
	root.SetArgs([]string{"run", "--local", "--flavor", "yugabyte", "--runs-dir", runs,
		"--yb-tarball", "http://me:PASSWORD1@mirror.example/yugabyte-2.20.1.3.tar.gz?token=TOKEN2"})
	err := root.Execute()
	if exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), "--yb-tarball:") || !strings.Contains(err.Error(), "yb_sha256") {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	out := err.Error() + stdout.String() + stderr.String()
	if strings.Contains(out, "PASSWORD1") || strings.Contains(out, "TOKEN2") {
		t.Errorf("the URL's secrets were printed:\n%s", out)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 {
		t.Errorf("a run was started: %v", entries)
	}
}
