package localexec

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/ybbench/ybbench/internal/testenv"
)

// A group whose only member is a zombie is not running, though
// kill(-pgid, 0) still succeeds on it; a group with a live member is.
func TestGroupRunningIgnoresZombies(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if !groupRunning(cmd.Process.Pid) {
		t.Fatalf("group %d of a running sleep: not running", cmd.Process.Pid)
	}
	if pgid := testenv.ZombieGroup(t); groupRunning(pgid) {
		t.Errorf("group %d of a zombie: running", pgid)
	}
}

func TestStatGroup(t *testing.T) {
	for _, tc := range []struct {
		line  string
		state byte
		pgrp  string
		ok    bool
	}{
		{"123 (bash) S 1 123 123 0 -1", 'S', "123", true},
		{"77 (a) b (c)) Z 5 60 60 0", 'Z', "60", true},
		{"9 (x) R", 0, "", false},
		{"garbage", 0, "", false},
	} {
		state, pgrp, ok := statGroup([]byte(tc.line))
		if ok != tc.ok || state != tc.state || string(pgrp) != tc.pgrp {
			t.Errorf("%q: %c %q %v, want %c %q %v", tc.line, state, pgrp, ok, tc.state, tc.pgrp, tc.ok)
		}
	}
}
