package ssh

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/provision"
)

// How a script reaches the host.
//
// The command line the host's sshd sees (and `ps` shows) is fixed and
// holds no script and no value: bootstrapCommand. Everything else comes on
// the session's standard input, ahead of the caller's own stdin:
//
//	export NAME='value' ...   (the RunOptions' Env, shell-quoted)
//	NUL
//	the script
//	NUL
//	the caller's stdin, if any
//
// The bootstrap shell reads the two NUL-terminated blocks with `read -d ""`,
// which reads a pipe one byte at a time and so leaves the caller's stdin
// untouched for the script. The preamble is evaluated (so the variables
// are exported for the script and its children) and the script then runs
// in the same bash with `eval`: its values never appear on a command line.
//
// Before reading anything the bootstrap writes one line on stderr,
// "ybbench-pgid <n>", naming its process group, which Run strips from
// the output and uses to kill the command and its children on
// cancellation (killCommand). OpenSSH starts every session's command in a
// new session (setsid), so that group holds the command and every child
// that does not leave it on purpose; the pgid is read from /proc rather
// than assumed, so a login shell that forks instead of exec'ing changes
// nothing.

// pgidPrefix starts the line on which the bootstrap reports its process group.
const pgidPrefix = "ybbench-pgid "

// bootstrap is the script of the fixed command line. It must not contain
// a single quote (it is single-quoted on the command line).
const bootstrap = `read -r _ _ _ _ __ybbench_g _ </proc/$$/stat && printf "` + pgidPrefix + `%s\n" "$__ybbench_g" >&2
unset __ybbench_g
IFS= read -r -d "" __ybbench_e || { echo "ybbench: incomplete environment block on stdin" >&2; exit 255; }
IFS= read -r -d "" __ybbench_s || { echo "ybbench: incomplete script block on stdin" >&2; exit 255; }
eval "$__ybbench_e"
unset __ybbench_e
eval "unset __ybbench_s
$__ybbench_s"`

// bootstrapCommand is the command line sent to sshd; with sudo, the
// bootstrap runs as root through `sudo -n` (see escalate.go). sudo passes
// its standard input on untouched, so the environment and script blocks
// still travel there and the command line stays the fixed one.
func bootstrapCommand(sudo bool) string {
	return shellCommand(sudo, bootstrap)
}

// shellCommand is the command line that runs script with bash on the
// host, as root through `sudo -n` when sudo is set. Only fixed scripts of
// this package go there (the bootstrap, the kill): nothing a caller gives.
//
// --norc: a bash that sshd's session starts with -c reads ~/.bashrc (as
// Debian builds it), and so would this one, which the login shell execs
// with SSH_CLIENT still set, at the same shell level: the user's rc file
// ran twice a command. What it exports reaches the script from the login
// shell already. On a machine whose root .bashrc runs `pyenv init`, the
// second run cost each command about 0.25 s, and one SSH command on each
// of 29 local hosts took 7 to 9 s with it, 3 s without.
func shellCommand(sudo bool, script string) string {
	cmd := "bash --norc -c " + shellquote.Quote(script) + " ybbench"
	if sudo {
		// -n: never ask for a password (there is no one to type it);
		// escalate.go checks this works before the first command.
		cmd = "sudo -n -- " + cmd
	}
	return "exec " + cmd
}

// stdinHeader renders the environment and script blocks that precede the
// caller's stdin. It refuses names that are not shell identifiers and
// NUL bytes (which cannot be in an environment and would end a block).
func stdinHeader(env map[string]string, script string) ([]byte, error) {
	if err := provision.CheckEnv(env); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, k := range names {
		fmt.Fprintf(&b, "export %s=%s\n", k, shellquote.Quote(env[k]))
	}
	b.WriteByte(0)
	if strings.IndexByte(script, 0) >= 0 {
		return nil, fmt.Errorf("script holds a NUL byte")
	}
	b.WriteString(script)
	b.WriteByte(0)
	return b.Bytes(), nil
}

// killCommand kills process group g: SIGTERM first, so traps run, then
// SIGKILL for whatever is left after grace. It prints "gone" when the
// group ended within grace, "sigkill" when it had to. A member still in
// the group is one whose /proc stat names it and is not a zombie:
// kill -0 on the group succeeds while a killed member waits to be reaped,
// and a killed script's children are orphans whose reaping is up to
// whichever process adopts them (an init that reaped every couple of
// seconds kept a cancelled command waiting that long).
func killCommand(g int, grace time.Duration) string {
	steps := max(int(grace/(100*time.Millisecond)), 1)
	return fmt.Sprintf(`g=%d
running() {
  kill -0 -- -$g 2>/dev/null || return 1
  local s l
  for s in /proc/[0-9]*/stat; do
    read -r l 2>/dev/null < "$s" || continue
    set -- ${l##*) }
    [ "$3" = "$g" ] && [ "$1" != Z ] && [ "$1" != X ] && return 0
  done
  return 1
}
kill -TERM -- -$g 2>/dev/null || { echo gone; exit 0; }
i=0
while [ $i -lt %d ] && running; do sleep 0.1; i=$((i+1)); done
if running; then kill -KILL -- -$g 2>/dev/null; echo sigkill; else echo gone; fi
exit 0`, g, steps)
}

// pgidSniffer passes stderr through, except the bootstrap's first line,
// from which it takes the command's process group. Writes come from one
// goroutine (the session's stderr copy); Got and PGID may be read from
// another once Got is closed.
type pgidSniffer struct {
	next io.Writer
	buf  []byte
	done bool
	pgid int
	got  chan struct{}
}

func newPgidSniffer(next io.Writer) *pgidSniffer {
	return &pgidSniffer{next: next, got: make(chan struct{})}
}

// sniffLimit bounds the bytes held while looking for the first line.
const sniffLimit = 256

func (s *pgidSniffer) Write(p []byte) (int, error) {
	if s.done {
		return s.next.Write(p)
	}
	s.buf = append(s.buf, p...)
	i := bytes.IndexByte(s.buf, '\n')
	if i < 0 && len(s.buf) < sniffLimit {
		return len(p), nil
	}
	rest := s.buf
	if i >= 0 {
		line := string(s.buf[:i])
		if g, ok := strings.CutPrefix(line, pgidPrefix); ok {
			if n, err := strconv.Atoi(g); err == nil && n > 1 {
				s.pgid = n
				rest = s.buf[i+1:]
			}
		}
	}
	s.finish()
	if len(rest) > 0 {
		if _, err := s.next.Write(rest); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush passes on what is still held (an output shorter than its first
// line) once the stream has ended.
func (s *pgidSniffer) Flush() error {
	if s.done {
		return nil
	}
	s.finish()
	if len(s.buf) > 0 {
		_, err := s.next.Write(s.buf)
		return err
	}
	return nil
}

func (s *pgidSniffer) finish() {
	s.done = true
	close(s.got)
}

// Got is closed once the first line was seen (PGID is then 0 if it was
// not the bootstrap's).
func (s *pgidSniffer) Got() <-chan struct{} { return s.got }

// PGID is the remote process group, valid after Got is closed.
func (s *pgidSniffer) PGID() int { return s.pgid }
