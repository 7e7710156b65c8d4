//go:build integration

package ssh_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	"github.com/ybbench/ybbench/provision/ssh"
)

// rootDir is a directory only root may enter, for files the login user
// could not write or read itself.
func rootDir(t *testing.T, srv *sshdtest.Server) string {
	t.Helper()
	d := filepath.Join(srv.Dir, "rootonly")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestIntegrationSudoLoginRunsAsRootWithEnvOnStdin(t *testing.T) {
	name := sshdtest.LoginUser(t, true)
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.HostAs("db1", name)
	ctx := testCtx(t, 60*time.Second)
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	secret := "s3cr3t-" + hex.EncodeToString(rnd[:])
	ready, proceed := filepath.Join(srv.Dir, "ready"), filepath.Join(srv.Dir, "go")

	script := fmt.Sprintf(`set -euo pipefail
touch %s
while [ ! -e %s ]; do sleep 0.05; done
echo "uid $(id -u) sudo_user ${SUDO_USER:-none}"
printf '%%s' "$YB_SECRET" | sha256sum | cut -c1-16
tr a-z A-Z
`, ready, proceed)
	type out struct {
		res provision.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := f.runner.Run(ctx, h, script, provision.Step("root"), provision.Env(map[string]string{"YB_SECRET": secret}),
			provision.Stdin(strings.NewReader("caller's stdin\n")))
		done <- out{res, err}
	}()
	waitFile(t, ready)
	// While it runs: the value is on no command line, and the command
	// line is the fixed one, through sudo.
	ps, err := exec.Command("ps", "-eo", "pid,user,args", "ww").CombinedOutput()
	if err != nil {
		t.Fatalf("ps: %v\n%s", err, ps)
	}
	if strings.Contains(string(ps), hex.EncodeToString(rnd[:])) {
		t.Fatalf("the value is on a command line:\n%s", ps)
	}
	if !strings.Contains(string(ps), "sudo -n -- bash --norc -c") {
		t.Fatalf("no command runs through sudo -n:\n%s", ps)
	}
	if err := os.WriteFile(proceed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var o out
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	want := fmt.Sprintf("uid 0 sudo_user %s\n%s\nCALLER'S STDIN\n", name, sha256Hex(secret)[:16])
	if o.res.ExitCode != 0 || string(o.res.Stdout) != want {
		t.Fatalf("exit %d stdout %q, want %q (stderr %q)", o.res.ExitCode, o.res.Stdout, want, o.res.Stderr)
	}
	// The server logged the login as the unprivileged user, not root.
	if !strings.Contains(srv.Log(), "Accepted publickey for "+name+" ") {
		t.Fatalf("sshd did not log a login as %s:\n%s", name, srv.Log())
	}
	b, err := os.ReadFile(filepath.Join(f.logDir, "db1", "root.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), hex.EncodeToString(rnd[:])) {
		t.Fatalf("the value is in the step log:\n%s", b)
	}
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(p); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear: the command did not start", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestIntegrationSudoLoginPutGetRootOwned(t *testing.T) {
	name := sshdtest.LoginUser(t, true)
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.HostAs("db1", name)
	ctx := testCtx(t, 60*time.Second)
	dir := rootDir(t, srv)

	data := make([]byte, 3<<20+17)
	_, _ = rand.Read(data)
	dst := filepath.Join(dir, "a", "b", "ybload")
	if err := f.runner.Put(ctx, h, dst, bytes.NewReader(data), 0o750); err != nil {
		t.Fatal(err)
	}
	checkFile(t, dst, data, 0o750)
	// A parent made on the way is root's, 0755 (as SFTP as root makes it).
	checkOwner(t, filepath.Join(dir, "a", "b"), 0o755)

	// A file's reader (PutFile) and a reader of unknown length.
	local := filepath.Join(t.TempDir(), "local")
	if err := os.WriteFile(local, data[:1000], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := provision.PutFile(ctx, f.runner, h, local, dst, 0o644); err != nil {
		t.Fatal(err)
	}
	checkFile(t, dst, data[:1000], 0o644)
	if err := f.runner.Put(ctx, h, dst, io.MultiReader(strings.NewReader("x"), strings.NewReader("yz")), 0o600); err != nil {
		t.Fatal(err)
	}
	checkFile(t, dst, []byte("xyz"), 0o600)
	if ents, _ := os.ReadDir(filepath.Dir(dst)); len(ents) != 1 {
		t.Fatalf("%s holds %d entries, want only the file", filepath.Dir(dst), len(ents))
	}

	// Root's 0600 file, which the login user cannot read, comes back.
	secretFile := filepath.Join(dir, "records.jsonl")
	if err := os.WriteFile(secretFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := f.runner.Get(ctx, h, secretFile, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("get: %d bytes back of %d, or different", got.Len(), len(data))
	}
	err := f.runner.Get(ctx, h, filepath.Join(dir, "nope"), &got)
	if err == nil || !strings.Contains(err.Error(), "nope") || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("get of a missing file: %v (code %d)", err, exitcode.Of(err))
	}
}

// stallingReader says it holds size bytes, gives half, then waits for
// the context: a transfer cut short.
type stallingReader struct {
	ctx  context.Context
	data []byte
	off  int
}

func (s *stallingReader) Len() int { return len(s.data) - s.off }

func (s *stallingReader) Read(p []byte) (int, error) {
	if s.off < len(s.data)/2 {
		n := copy(p, s.data[s.off:len(s.data)/2])
		s.off += n
		return n, nil
	}
	<-s.ctx.Done()
	return 0, s.ctx.Err()
}

func TestIntegrationSudoLoginCutPutLeavesTheOldFile(t *testing.T) {
	name := sshdtest.LoginUser(t, true)
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.HostAs("db1", name)
	dir := rootDir(t, srv)
	dst := filepath.Join(dir, "tarball")
	if err := os.WriteFile(dst, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testCtx(t, 60*time.Second))
	data := make([]byte, 1<<20)
	src := &stallingReader{ctx: ctx, data: data}
	done := make(chan error, 1)
	go func() { done <- f.runner.Put(ctx, h, dst, src, 0o644) }()
	// The temporary file appears once the data flows; then the cut.
	deadline := time.Now().Add(20 * time.Second)
	for len(temps(t, dir)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no temporary file appeared")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cut put: %v, want context.Canceled", err)
	}
	// The host's script sees its input end, refuses the short file and
	// removes it; the old file stays.
	deadline = time.Now().Add(20 * time.Second)
	for len(temps(t, dir)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("temporary files left: %v", temps(t, dir))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if b, _ := os.ReadFile(dst); string(b) != "old" {
		t.Fatalf("%s holds %d bytes, want the old file", dst, len(b))
	}
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".ybbench-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func checkFile(t *testing.T, p string, want []byte, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("%s: %d bytes, want %d (or different)", p, len(b), len(want))
	}
	checkOwner(t, p, mode)
}

func checkOwner(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if st.Mode().Perm() != mode || sys.Uid != 0 || sys.Gid != 0 {
		t.Fatalf("%s: mode %v uid %d gid %d, want %v root:root", p, st.Mode().Perm(), sys.Uid, sys.Gid, mode)
	}
}

func TestIntegrationLoginWithoutPasswordlessSudoFailsEarly(t *testing.T) {
	name := sshdtest.LoginUser(t, false)
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.HostAs("db7", name)
	ctx := testCtx(t, 60*time.Second)
	// Where the user could write without sudo: the check is that nothing
	// ran at all.
	marker := filepath.Join("/home", name, "ran")

	res, err := f.runner.Run(ctx, h, "touch "+marker)
	var se *ssh.SudoError
	if !errors.As(err, &se) || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("want a SudoError of the provisioning class, got %v (code %d)", err, exitcode.Of(err))
	}
	want := fmt.Sprintf("user %s on host db7 cannot run sudo without a password; ybbench needs root or passwordless sudo", name)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	if res.ExitCode != -1 {
		t.Fatalf("exit %d: the command must not have run", res.ExitCode)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the script ran although sudo does not work")
	}
	// It did log in: the failure is sudo's, not the key's.
	if !strings.Contains(srv.Log(), "Accepted publickey for "+name+" ") {
		t.Fatalf("sshd did not log a login as %s:\n%s", name, srv.Log())
	}
	// Transfers fail the same way.
	if err := f.runner.Put(ctx, h, filepath.Join(srv.Dir, "f"), strings.NewReader("x"), 0o644); !errors.As(err, &se) {
		t.Fatalf("put: want a SudoError, got %v", err)
	}
}

func TestIntegrationSudoLoginCancelKillsRootProcessGroup(t *testing.T) {
	name := sshdtest.LoginUser(t, true)
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.HostAs("db1", name)
	dir := rootDir(t, srv)
	pidFile := filepath.Join(dir, "sleeps")
	ctx, cancel := context.WithCancel(testCtx(t, 60*time.Second))
	defer cancel()

	script := fmt.Sprintf(`sleep 300 & echo $! >> %[1]s; sleep 300 & echo $! >> %[1]s; wait`, pidFile)
	done := make(chan error, 1)
	go func() {
		_, err := f.runner.Run(ctx, h, script, provision.Step("sleep"))
		done <- err
	}()
	var pids []int
	deadline := time.Now().Add(20 * time.Second)
	for len(pids) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the sleeps did not start; pid file has %v", pids)
		}
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(pidFile)
		pids = pids[:0]
		for _, l := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(l); err == nil {
				pids = append(pids, n)
			}
		}
	}
	t.Cleanup(func() {
		for _, p := range pids {
			if sshdtest.Alive(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	for _, p := range pids {
		if uid := procUID(t, p); uid != "0" {
			t.Fatalf("sleep %d runs as uid %s, want root", p, uid)
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return within 15 s of the cancel")
	}
	deadline = time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for sshdtest.Alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("root's sleep %d still alive 10 s after the cancel", p)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	b, _ := os.ReadFile(filepath.Join(f.logDir, "db1", "sleep.log"))
	if !strings.Contains(string(b), "killed") {
		t.Fatalf("sleep.log does not record the kill:\n%s", b)
	}
}

// procUID is the real uid of pid, from /proc.
func procUID(t *testing.T, pid int) string {
	t.Helper()
	uid, ok := sshdtest.RealUID(pid)
	if !ok {
		t.Fatalf("no uid for %d", pid)
	}
	return uid
}
