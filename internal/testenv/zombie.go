package testenv

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// ZombieGroup starts a process in a group of its own, kills it and waits
// (waitid with WNOWAIT: the exit is the event, and the process is left
// unreaped) until it has died, and returns the group's id: a group whose
// only member is a zombie, on which kill(-pgid, 0) still succeeds. The
// process is reaped at the test's end.
func ZombieGroup(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Wait() })
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			t.Fatalf("waitid %d: %v", pid, err)
		}
	}
	if syscall.Kill(-pid, 0) != nil {
		t.Fatalf("kill(-%d, 0) fails on a zombie group", pid)
	}
	return pid
}
