package sshdtest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/testenv"
)

// LoginUser makes an unprivileged user of the test's own (removed in
// t.Cleanup with its home), able to log in with a key (HostAs), and with
// passwordless sudo when sudo is set (a sudoers drop-in, removed too), as
// a cloud image's ubuntu. Call it before starting the server, so that the
// server and its sessions as the user are stopped before the user goes.
func LoginUser(t testing.TB, sudo bool) string {
	t.Helper()
	if _, err := exec.LookPath("sudo"); err != nil {
		if testenv.Required() {
			t.Fatal("needs sudo (scripts/setup.sh installs it)")
		}
		t.Skip("needs sudo")
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := "ybt" + hex.EncodeToString(rnd[:])
	if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/bash", "--comment", "ybbench test login", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v: %s", err, out)
	}
	sudoers := "/etc/sudoers.d/" + name
	t.Cleanup(func() {
		_ = os.Remove(sudoers)
		// A failed test may leave commands it ran as the user (the
		// sshd is gone by now): they go first, by pid.
		killUserProcesses(name)
		if out, err := exec.Command("userdel", "--remove", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	// A new account's password is "!" (locked), and sshd without PAM
	// refuses any login to a locked account; "*" is no password at all.
	if out, err := exec.Command("usermod", "-p", "*", name).CombinedOutput(); err != nil {
		t.Fatalf("usermod: %v: %s", err, out)
	}
	if sudo {
		if err := os.WriteFile(sudoers, []byte(name+" ALL=(ALL) NOPASSWD: ALL\n"), 0o440); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

// killUserProcesses kills, by pid, every process whose real uid is the
// user's, and waits (up to 5 s) until they are gone.
func killUserProcesses(name string) {
	u, err := user.Lookup(name)
	if err != nil {
		return
	}
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if uid, ok := RealUID(pid); ok && uid == u.Uid {
			pids = append(pids, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range pids {
		for Alive(p) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// RealUID is the real uid of pid, from /proc/<pid>/status.
func RealUID(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "Uid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0], true
			}
		}
	}
	return "", false
}
