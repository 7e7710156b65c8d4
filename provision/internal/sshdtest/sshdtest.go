// Package sshdtest starts OpenSSH servers of a test's own on 127.0.0.1 (or
// in a network namespace of the test's own):
// each with its own directory, sshd_config, host key, authorized keys and
// pid file, run with `sshd -D -e` and stopped by pid in t.Cleanup. The
// integration tests of provision/ssh and provision use it; it needs root
// and /usr/sbin/sshd.
package sshdtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/testenv"
)

// SSHD is the server binary (sshd re-executes itself, so the path is absolute).
const SSHD = "/usr/sbin/sshd"

// Require skips the test (or fails it when the environment is required)
// unless it runs as root with an sshd installed.
func Require(t testing.TB) {
	t.Helper()
	var why string
	if os.Geteuid() != 0 {
		why = "needs root (sshd logs in as root)"
	} else if _, err := os.Stat(SSHD); err != nil {
		why = "needs " + SSHD + " (openssh-server)"
	}
	if why == "" {
		return
	}
	if testenv.Required() {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Options shape a server.
type Options struct {
	// AuthorizedKey is the authorized_keys line to accept and KeyFile the
	// matching private key; when empty the server makes a client key of
	// its own.
	AuthorizedKey, KeyFile string
	// Extra lines appended to sshd_config (e.g. "SetEnv PATH=...").
	Extra []string
	// Netns, when set, is the network namespace the server runs in, on
	// Addr:22 (a host of its own, as the local provider's): see the
	// nshost package.
	Netns, Addr string
}

// Server is one sshd of a test.
type Server struct {
	t       testing.TB
	Dir     string
	Addr    string // where it listens: 127.0.0.1, or Options.Addr
	Port    int
	netns   string
	Config  string // path of its sshd_config
	KeyFile string // client private key
	LogFile string // sshd's stderr (-e)
	cmd     *exec.Cmd
	exited  chan struct{}
}

// New prepares a server (directory, keys, config, a free port) without
// starting it.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	s := &Server{t: t, Dir: dir, Config: filepath.Join(dir, "sshd_config"), LogFile: filepath.Join(dir, "sshd.log"),
		Addr: "127.0.0.1", netns: o.Netns}
	if err := s.RotateHostKey(); err != nil {
		t.Fatal(err)
	}
	auth, keyFile := o.AuthorizedKey, o.KeyFile
	if auth == "" {
		var err error
		auth, keyFile, err = clientKey(dir)
		if err != nil {
			t.Fatal(err)
		}
	}
	s.KeyFile = keyFile
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), []byte(auth+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if o.Netns != "" {
		// Alone in its namespace: the standard port is free.
		s.Addr, s.Port = o.Addr, 22
	} else {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		s.Port = port
	}
	cfg := []string{
		"Port " + strconv.Itoa(s.Port),
		"ListenAddress " + s.Addr,
		"HostKey " + filepath.Join(dir, "host_ed25519"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"PermitRootLogin prohibit-password",
		// The test directory sits under /tmp (mode 1777), which
		// StrictModes would reject for the authorized_keys file.
		"StrictModes no",
		"Subsystem sftp internal-sftp",
		"LogLevel VERBOSE",
	}
	cfg = append(cfg, o.Extra...)
	if err := os.WriteFile(s.Config, []byte(strings.Join(cfg, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// Start prepares and starts a server, failing the test if it does not
// accept connections.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	s := New(t, o)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// Host is an infra.Host that reaches this server as root.
func (s *Server) Host(name string) infra.Host {
	return infra.Host{
		Name:      name,
		Roles:     []infra.Role{infra.RoleDB},
		PublicIP:  s.Addr,
		PrivateIP: s.Addr,
		SSH:       infra.SSH{User: "root", Port: s.Port, KeyFile: s.KeyFile},
		Base:      filepath.Join(s.Dir, "base"),
	}
}

// HostAs is Host with another login user. sshd reads a user's
// authorized keys as that user, so the server's directory (and the
// temporary directory above it) become 0755 and its authorized_keys, a
// public key, 0644.
func (s *Server) HostAs(name, user string) infra.Host {
	s.t.Helper()
	for _, d := range []string{s.Dir, filepath.Dir(s.Dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			s.t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(s.Dir, "authorized_keys"), 0o644); err != nil {
		s.t.Fatal(err)
	}
	h := s.Host(name)
	h.SSH.User = user
	return h
}

// Start runs sshd -D -e in the background and waits (up to 10 s) until it
// accepts TCP connections. It may be called from any goroutine.
func (s *Server) Start() error {
	if s.cmd != nil {
		return errors.New("sshd already running")
	}
	logf, err := os.OpenFile(s.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(SSHD, "-D", "-e", "-f", s.Config)
	if s.netns != "" {
		// ip execs sshd once in the namespace: the pid stays sshd's.
		cmd = exec.Command("ip", "netns", "exec", s.netns, SSHD, "-D", "-e", "-f", s.Config)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start sshd: %w", err)
	}
	logf.Close()
	s.cmd = cmd
	s.exited = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(s.Addr, strconv.Itoa(s.Port)), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("sshd exited at start:\n%s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd does not accept connections on port %d after 10 s: %v\n%s", s.Port, err, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// PID is the listening sshd's pid (0 when stopped).
func (s *Server) PID() int {
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Stop stops the server as a reboot would: the per-connection sshd
// processes it forked (found by their parent pid) first, then the
// listener, both by pid.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	pid := s.cmd.Process.Pid
	for _, child := range children(pid) {
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
	return nil
}

// Restart stops and starts the server.
func (s *Server) Restart() error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.Start()
}

// RotateHostKey writes a new host key (used at the next start).
func (s *Server) RotateHostKey() error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block, err := xssh.MarshalPrivateKey(priv, "sshdtest host key")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.Dir, "host_ed25519"), pem.EncodeToMemory(block), 0o600)
}

// HostPublicKey is the server's current host key, authorized_keys format.
func (s *Server) HostPublicKey() string {
	b, err := os.ReadFile(filepath.Join(s.Dir, "host_ed25519"))
	if err != nil {
		return ""
	}
	signer, err := xssh.ParsePrivateKey(b)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(signer.PublicKey())))
}

// Log is what sshd printed so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.LogFile)
	return string(b)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// children lists the pids whose parent is pid, from /proc.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := PPID(n); ok && ppid == pid {
			out = append(out, n)
		}
	}
	return out
}

// Descendants lists every process below pid (children, their children, …).
func Descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// PPID reads a process's parent pid from /proc/<pid>/stat.
func PPID(pid int) (int, bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil
}

// Alive reports whether pid exists and is not a zombie.
func Alive(pid int) bool {
	f, ok := statFields(pid)
	return ok && len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// statFields returns the fields of /proc/<pid>/stat after the command name
// (state, ppid, pgrp, …).
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

// clientKey makes a client key pair in dir.
func clientKey(dir string) (authorized, keyFile string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", err
	}
	block, err := xssh.MarshalPrivateKey(priv, "sshdtest client")
	if err != nil {
		return "", "", err
	}
	keyFile = filepath.Join(dir, "client_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", "", err
	}
	sp, err := xssh.NewPublicKey(pub)
	if err != nil {
		return "", "", err
	}
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(sp))), keyFile, nil
}
