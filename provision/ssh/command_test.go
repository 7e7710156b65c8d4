package ssh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
)

func TestStdinHeader(t *testing.T) {
	h, err := stdinHeader(map[string]string{"B": "it's", "A": "x y"}, "echo hi\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "export A='x y'\nexport B='it'\\''s'\n\x00echo hi\n\x00"
	if string(h) != want {
		t.Fatalf("header %q, want %q", h, want)
	}
	for _, tc := range []struct {
		env    map[string]string
		script string
		want   string
	}{
		{map[string]string{"1A": "x"}, "", "not a shell identifier"},
		{map[string]string{"A;rm": "x"}, "", "not a shell identifier"},
		{map[string]string{"A": "x\x00y"}, "", "NUL"},
		{nil, "echo \x00", "NUL"},
	} {
		if _, err := stdinHeader(tc.env, tc.script); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("stdinHeader(%v, %q) = %v, want %q", tc.env, tc.script, err, tc.want)
		}
	}
}

func TestBootstrapCommandLineHoldsNoValue(t *testing.T) {
	cmd := bootstrapCommand(false)
	if strings.Count(bootstrap, "'") != 0 {
		t.Fatal("the bootstrap must not contain a single quote")
	}
	if !strings.HasPrefix(cmd, "exec bash --norc -c '") || !strings.HasSuffix(cmd, "' ybbench") {
		t.Fatalf("command %q", cmd)
	}
}

// TestBootstrapInLocalBash runs the bootstrap the way sshd would (through a
// login shell's -c) with a local bash, to check what reaches the script.
func TestBootstrapInLocalBash(t *testing.T) {
	testenv.Need(t, testenv.OnPath("bash"), "no bash on PATH")
	secret := "v@l 'q' \"d\" $HOME `x` \\ \n second line"
	script := `set -euo pipefail
printf 'secret=%s|\n' "$SECRET"
env | grep -c '^__ybbench' || true
echo "zero=$0"
printf 'stdin=%s\n' "$(cat)"
exit 3
`
	header, err := stdinHeader(map[string]string{"SECRET": secret}, script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", bootstrapCommand(false))
	cmd.Stdin = bytes.NewReader(append(header, "caller's stdin\n"...))
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	sniff := newPgidSniffer(&stderr)
	cmd.Stderr = sniff
	err = cmd.Run()
	_ = sniff.Flush()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v (stderr %q)", err, stderr.String())
	}
	want := fmt.Sprintf("secret=%s|\n0\nzero=ybbench\nstdin=caller's stdin\n", secret)
	if stdout.String() != want {
		t.Fatalf("stdout\n%q\nwant\n%q", stdout.String(), want)
	}
	if stderr.Len() != 0 {
		t.Fatalf("stderr %q (the pgid line must be stripped)", stderr.String())
	}
	select {
	case <-sniff.Got():
	default:
		t.Fatal("no pgid line")
	}
	if sniff.PGID() <= 1 {
		t.Fatalf("pgid %d", sniff.PGID())
	}

	// A truncated stdin is refused with a message, not run.
	cmd = exec.Command("bash", "-c", bootstrapCommand(false))
	cmd.Stdin = strings.NewReader("export A=1\n")
	out, err := cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 255 || !strings.Contains(string(out), "incomplete environment block") {
		t.Fatalf("truncated: %v %q", err, out)
	}
}

// TestBootstrapReadsTheRCFileOnce runs the bootstrap as sshd would on
// Debian (a login bash with -c, SSH_CLIENT set, at the top shell level):
// the user's ~/.bashrc runs at most once, in the login shell, never again
// in the bash the bootstrap execs (each run cost every command its time).
func TestBootstrapReadsTheRCFileOnce(t *testing.T) {
	testenv.Need(t, testenv.OnPath("bash"), "no bash on PATH")
	home := t.TempDir()
	runs := filepath.Join(home, "rc-runs")
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo x >> "+runs+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	header, err := stdinHeader(nil, "echo ran\n")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", bootstrapCommand(false))
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "SSH_CLIENT=10.0.0.1 40000 22"}
	cmd.Stdin = bytes.NewReader(header)
	out, err := cmd.Output()
	if err != nil || string(out) != "ran\n" {
		t.Fatalf("bootstrap: %v, stdout %q", err, out)
	}
	b, _ := os.ReadFile(runs)
	if n := strings.Count(string(b), "x"); n > 1 {
		t.Fatalf("~/.bashrc ran %d times for one command, want at most once (the login shell's)", n)
	}
}

func TestPgidSniffer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		pgid   int
		out    string
	}{
		{"marker then output", []string{"ybbench-pgid 4242\nhello\n"}, 4242, "hello\n"},
		{"marker split across writes", []string{"ybbench-", "pgid 17", "\nrest"}, 17, "rest"},
		{"no marker", []string{"bash: not found\n", "more\n"}, 0, "bash: not found\nmore\n"},
		{"short output, no newline", []string{"oops"}, 0, "oops"},
		{"bad number", []string{"ybbench-pgid x\n"}, 0, "ybbench-pgid x\n"},
		{"long first line", []string{strings.Repeat("x", 300) + "\n"}, 0, strings.Repeat("x", 300) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			s := newPgidSniffer(&out)
			for _, w := range tc.writes {
				if n, err := s.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("write: %d %v", n, err)
				}
			}
			_ = s.Flush()
			if s.PGID() != tc.pgid || out.String() != tc.out {
				t.Fatalf("pgid %d out %q, want %d %q", s.PGID(), out.String(), tc.pgid, tc.out)
			}
		})
	}
}

func TestKillCommandKillsALocalGroup(t *testing.T) {
	testenv.Need(t, testenv.OnPath("setsid"), "no setsid on PATH")
	// A group of its own: a shell ignoring TERM, with a child; it says
	// "ready" once both are so, and the test waits for that line.
	cmd := exec.Command("setsid", "bash", "-c", `trap "" TERM; sleep 300 & echo ready; wait`)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the group did not start: %q %v", line, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pgid := cmd.Process.Pid // setsid execs (we are not a group leader): its pid leads the group
	script := killCommand(pgid, 300*time.Millisecond)
	if !strings.Contains(script, fmt.Sprintf("g=%d", pgid)) {
		t.Fatalf("script:\n%s", script)
	}
	out, err := exec.Command("bash", "-c", script).CombinedOutput()
	if err != nil || string(out) != "sigkill\n" {
		t.Fatalf("kill script: %v %q, want sigkill (the shell ignores TERM)", err, out)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the group survived SIGTERM and SIGKILL")
	}
}

// A group whose members are all zombies (dead, not yet reaped: kill -0
// on the group still succeeds) is gone: the kill script says so and sends
// no SIGKILL. Its positive control is the test above, whose group outlives
// the grace.
func TestKillCommandTakesAZombieGroupAsGone(t *testing.T) {
	pgid := testenv.ZombieGroup(t)
	out, err := exec.Command("bash", "-c", killCommand(pgid, 5*time.Second)).CombinedOutput()
	if err != nil || string(out) != "gone\n" {
		t.Errorf("kill script on a zombie group: %v %q, want gone", err, out)
	}
}

func TestSudoCommandLineIsTheFixedOneThroughSudo(t *testing.T) {
	plain, sudo := bootstrapCommand(false), bootstrapCommand(true)
	if sudo != "exec sudo -n -- "+strings.TrimPrefix(plain, "exec ") {
		t.Fatalf("with sudo %q, without %q: want the same command behind sudo -n --", sudo, plain)
	}
	if k := shellCommand(true, killCommand(42, time.Second)); !strings.HasPrefix(k, "exec sudo -n -- bash --norc -c ") {
		t.Fatalf("the kill of a root command does not go through sudo: %q", k)
	}
}

func TestEscalatesForEveryUserButRoot(t *testing.T) {
	for user, want := range map[string]bool{"root": false, "ubuntu": true, "someone": true} {
		h := infra.Host{SSH: infra.SSH{User: user}}
		if escalates(h) != want {
			t.Errorf("escalates(%s) = %v, want %v", user, !want, want)
		}
	}
}
