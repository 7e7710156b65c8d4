//go:build integration

package ssh_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/internal/sshdtest"
	"github.com/ybbench/ybbench/provision/ssh"
)

// tlog is a slog handler output that goes to the test's log.
type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

type fixture struct {
	runner     *ssh.Runner
	knownHosts string
	logDir     string
}

func newRunner(t *testing.T, opts ...ssh.Option) fixture {
	t.Helper()
	dir := t.TempDir()
	f := fixture{knownHosts: filepath.Join(dir, "ssh", "known_hosts"), logDir: filepath.Join(dir, "logs")}
	base := []ssh.Option{
		ssh.WithKnownHosts(f.knownHosts),
		ssh.WithLogDir(f.logDir),
		ssh.WithLogger(slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		ssh.WithDialTimeout(5 * time.Second),
		ssh.WithRetryWindow(30 * time.Second),
		ssh.WithKeepalive(time.Second),
	}
	r, err := ssh.New(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f.runner = r
	return f
}

// logWatch is a slog handler that passes records on to next and closes
// seen the first time a record's message is msg: what a test waits for
// when the event it acts on is one the runner logs.
type logWatch struct {
	slog.Handler
	msg  string
	seen chan struct{}
	once *sync.Once
}

func (w logWatch) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == w.msg {
		w.once.Do(func() { close(w.seen) })
	}
	return w.Handler.Handle(ctx, r)
}

func (w logWatch) WithAttrs(as []slog.Attr) slog.Handler {
	w.Handler = w.Handler.WithAttrs(as)
	return w
}

func (w logWatch) WithGroup(name string) slog.Handler {
	w.Handler = w.Handler.WithGroup(name)
	return w
}

// watchLog is a runner option logging as newRunner's does, and a channel
// closed once the runner logs msg.
func watchLog(t *testing.T, msg string) (ssh.Option, <-chan struct{}) {
	seen := make(chan struct{})
	h := logWatch{Handler: slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug}), msg: msg, seen: seen, once: &sync.Once{}}
	return ssh.WithLogger(slog.New(h)), seen
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestIntegrationRunOutputExitAndNoRetry(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)

	var streamed bytes.Buffer
	res, err := f.runner.Run(ctx, h, "echo hello; echo oops >&2; printf '%s' \"$0\"", provision.Step("hello"), provision.Output(&streamed, nil))
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || string(res.Stdout) != "hello\nybbench" || string(res.Stderr) != "oops\n" || res.Host != "db1" || res.Attempts != 1 {
		t.Fatalf("result: exit %d stdout %q stderr %q host %q attempts %d", res.ExitCode, res.Stdout, res.Stderr, res.Host, res.Attempts)
	}
	if streamed.String() != "hello\nybbench" {
		t.Fatalf("streamed stdout %q", streamed.String())
	}

	// Stdin after the script and environment blocks is the caller's.
	res, err = f.runner.Run(ctx, h, "set -euo pipefail; tr a-z A-Z", provision.Stdin(strings.NewReader("from stdin\n")))
	if err != nil || string(res.Stdout) != "FROM STDIN\n" {
		t.Fatalf("stdin: %v %q", err, res.Stdout)
	}

	// A non-zero exit is a Result, never retried: the counter on the host
	// says the command ran once.
	counter := filepath.Join(srv.Dir, "counter")
	script := fmt.Sprintf("set -euo pipefail\nn=$(cat %[1]s 2>/dev/null || echo 0)\necho $((n+1)) > %[1]s\necho failing >&2\nexit 7\n", counter)
	res, err = f.runner.Run(ctx, h, script, provision.Step("fail"))
	if err != nil {
		t.Fatalf("a remote non-zero exit must not be a Go error: %v", err)
	}
	if res.ExitCode != 7 || res.Attempts != 1 {
		t.Fatalf("exit %d attempts %d", res.ExitCode, res.Attempts)
	}
	var ce *provision.CmdError
	if !errors.As(res.Err(), &ce) || ce.ExitCode != 7 || !strings.Contains(ce.Stderr, "failing") {
		t.Fatalf("res.Err() = %v", res.Err())
	}
	if b, _ := os.ReadFile(counter); strings.TrimSpace(string(b)) != "1" {
		t.Fatalf("counter %q: the command ran more than once or not at all", b)
	}

	// One connection served all of it.
	if n := strings.Count(srv.Log(), "Accepted publickey"); n != 1 {
		t.Fatalf("%d logins, want 1 (connection reuse)\n%s", n, srv.Log())
	}

	// The step logs: header with the script, the output, the exit.
	b, err := os.ReadFile(filepath.Join(f.logDir, "db1", "fail.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"step=fail", "exit 7", "failing", "echo $((n+1))"} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("fail.log lacks %q:\n%s", want, b)
		}
	}
	if _, err := os.Stat(filepath.Join(f.logDir, "db1", "run.log")); err != nil {
		t.Fatalf("an unnamed step logs to run.log: %v", err)
	}
}

func TestIntegrationPutGet(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)

	data := make([]byte, 1<<20+123)
	_, _ = rand.Read(data)
	dst := filepath.Join(srv.Dir, "put", "a", "b", "file.bin")
	if err := f.runner.Put(ctx, h, dst, bytes.NewReader(data), 0o640); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 || st.Size() != int64(len(data)) {
		t.Fatalf("mode %v size %d", st.Mode().Perm(), st.Size())
	}
	var got bytes.Buffer
	if err := f.runner.Get(ctx, h, dst, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("round trip differs: %d bytes back of %d", got.Len(), len(data))
	}

	// Overwriting replaces content and mode; no temporary file remains.
	if err := f.runner.Put(ctx, h, dst, strings.NewReader("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dst); st.Mode().Perm() != 0o755 {
		t.Fatalf("mode after overwrite %v", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Dir(dst))
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(ents))
	}

	// A missing remote file is an error naming it.
	err = f.runner.Get(ctx, h, filepath.Join(srv.Dir, "nope"), &got)
	if err == nil || !strings.Contains(err.Error(), "nope") || exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("get of a missing file: %v (code %d)", err, exitcode.Of(err))
	}
}

func TestIntegrationDialRetryWhileSSHDStartsLate(t *testing.T) {
	srv := sshdtest.New(t, sshdtest.Options{})
	watch, retried := watchLog(t, "ssh connect failed; retrying")
	f := newRunner(t, watch)
	h := srv.Host("late")
	ctx := testCtx(t, 60*time.Second)

	// The server starts once the runner has failed to connect and says it
	// retries.
	started := make(chan error, 1)
	go func() {
		select {
		case <-retried:
			started <- srv.Start()
		case <-ctx.Done():
			started <- ctx.Err()
		}
	}()
	begin := time.Now()
	res, err := f.runner.Run(ctx, h, "echo up")
	if serr := <-started; serr != nil {
		t.Fatal(serr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "up\n" || res.Attempts < 2 {
		t.Fatalf("stdout %q attempts %d (want ≥ 2)", res.Stdout, res.Attempts)
	}
	if time.Since(begin) > 30*time.Second {
		t.Fatalf("took %s", time.Since(begin))
	}

	// Nothing listening, a short window: a classified connection error
	// that counts its attempts.
	port, err := sshdtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	short := newRunner(t, ssh.WithRetryWindow(time.Second))
	dead := h
	dead.Name, dead.SSH.Port = "dead", port
	res, err = short.runner.Run(ctx, dead, "true")
	var ce *ssh.ConnError
	if !errors.As(err, &ce) || exitcode.Of(err) != exitcode.Provision || res.Attempts < 2 || !strings.Contains(err.Error(), "dead") {
		t.Fatalf("err %v, code %d, attempts %d", err, exitcode.Of(err), res.Attempts)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("want connection refused inside: %v", err)
	}
}

func TestIntegrationHostKeyChangeRefused(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)
	oldKey := srv.HostPublicKey()

	if _, err := f.runner.Run(ctx, h, "true"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.knownHosts)
	if err != nil || !strings.Contains(string(b), strings.Fields(oldKey)[1]) {
		t.Fatalf("known_hosts after first contact: %v\n%s", err, b)
	}
	if got := f.runner.HostKey(h); got != oldKey {
		t.Fatalf("HostKey = %q, want %q", got, oldKey)
	}

	// The machine comes back with another key (the connection drops with it).
	if err := srv.RotateHostKey(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	newKey := srv.HostPublicKey()

	begin := time.Now()
	res, err := f.runner.Run(ctx, h, "true")
	var hk *ssh.HostKeyChangedError
	if !errors.As(err, &hk) {
		t.Fatalf("want HostKeyChangedError, got %v", err)
	}
	if hk.Host != "db1" || hk.Pinned != fingerprint(t, oldKey) || hk.Offered != fingerprint(t, newKey) {
		t.Fatalf("error fields: %+v", hk)
	}
	if res.Attempts != 1 || time.Since(begin) > 10*time.Second {
		t.Fatalf("a changed host key was retried: attempts %d in %s", res.Attempts, time.Since(begin))
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Fatalf("exit code %d", exitcode.Of(err))
	}
	for _, want := range []string{"db1", hk.Pinned, hk.Offered} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("message lacks %q: %v", want, err)
		}
	}

	// The pin outlives the process: a resumed run refuses the key too.
	again := newRunner(t, ssh.WithKnownHosts(f.knownHosts))
	if _, err := again.runner.Run(ctx, h, "true"); !errors.As(err, &hk) {
		t.Fatalf("resumed runner: want HostKeyChangedError, got %v", err)
	}

	// A key recorded on the host (cluster.json) is the pin: the new key
	// passes with it, the old one is refused.
	fresh := newRunner(t)
	pinned := h
	pinned.SSH.HostKey = newKey
	if _, err := fresh.runner.Run(ctx, pinned, "true"); err != nil {
		t.Fatalf("host pinned to its current key: %v", err)
	}
	pinned.SSH.HostKey = oldKey
	fresh2 := newRunner(t)
	if _, err := fresh2.runner.Run(ctx, pinned, "true"); !errors.As(err, &hk) {
		t.Fatalf("host pinned to its old key: want HostKeyChangedError, got %v", err)
	}
}

func TestIntegrationRedialAfterConnectionLoss(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)
	if _, err := f.runner.Run(ctx, h, "true"); err != nil {
		t.Fatal(err)
	}
	// A reboot with the same host key: the open connection dies.
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	res, err := f.runner.Run(ctx, h, "echo back")
	if err != nil || string(res.Stdout) != "back\n" {
		t.Fatalf("after the connection died: %v %q", err, res.Stdout)
	}
	if n := strings.Count(srv.Log(), "Accepted publickey"); n != 2 {
		t.Fatalf("%d logins, want 2 (one redial)", n)
	}
}

func TestIntegrationCancelKillsRemoteProcessGroup(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	pidFile := filepath.Join(srv.Dir, "sleeps")
	ctx, cancel := context.WithCancel(testCtx(t, 60*time.Second))
	defer cancel()

	script := fmt.Sprintf(`bash -c 'sleep 300 & echo $! >> %[1]s; sleep 300 & echo $! >> %[1]s; wait'`, pidFile)
	type out struct {
		res provision.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := f.runner.Run(ctx, h, script, provision.Step("sleep"))
		done <- out{res, err}
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
	// Whatever happens below, no sleep outlives the test.
	t.Cleanup(func() {
		for _, p := range pids {
			if sshdtest.Alive(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	for _, p := range pids {
		if !sshdtest.Alive(p) {
			t.Fatalf("sleep %d not running before the cancel", p)
		}
	}

	begin := time.Now()
	cancel()
	var o out
	select {
	case o = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return within 15 s of the cancel")
	}
	t.Logf("Run returned %s after the cancel: %v", time.Since(begin), o.err)
	if !errors.Is(o.err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", o.err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for sshdtest.Alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("sleep %d still alive 10 s after the cancel", p)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	b, _ := os.ReadFile(filepath.Join(f.logDir, "db1", "sleep.log"))
	if !strings.Contains(string(b), "cancelled") || !strings.Contains(string(b), "killed") {
		t.Fatalf("sleep.log does not record the cancellation:\n%s", b)
	}

	// The connection stays usable.
	if res, err := f.runner.Run(testCtx(t, 30*time.Second), h, "echo still"); err != nil || string(res.Stdout) != "still\n" {
		t.Fatalf("after the cancel: %v %q", err, res.Stdout)
	}
}

func TestIntegrationParallelHostOrderAndPerHostErrors(t *testing.T) {
	a := sshdtest.Start(t, sshdtest.Options{})
	c := sshdtest.Start(t, sshdtest.Options{})
	port, err := sshdtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	down := a.Host("h1")
	down.SSH.Port = port
	hosts := []infra.Host{a.Host("h0"), down, c.Host("h2"), a.Host("h3")}
	f := newRunner(t, ssh.WithRetryWindow(time.Second))
	ctx := testCtx(t, 60*time.Second)

	exit := map[string]int{"h0": 0, "h2": 3, "h3": 0}
	delay := map[string]string{"h0": "0.8", "h2": "0.4", "h3": "0"}
	results, err := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (provision.Result, error) {
		// h0 finishes last and h3 first: results still come in host order.
		res, err := f.runner.Run(ctx, h, fmt.Sprintf("sleep %s; echo %s; exit %d", delay[h.Name], h.Name, exit[h.Name]))
		if err != nil {
			return res, err
		}
		return res, res.Err()
	})
	if len(results) != 4 {
		t.Fatalf("%d results", len(results))
	}
	for i, want := range []string{"h0", "h1", "h2", "h3"} {
		if results[i].Host != want {
			t.Fatalf("result %d is %q, want %q", i, results[i].Host, want)
		}
	}
	if string(results[0].Stdout) != "h0\n" || string(results[3].Stdout) != "h3\n" || results[2].ExitCode != 3 {
		t.Fatalf("results: %q %q exit %d", results[0].Stdout, results[3].Stdout, results[2].ExitCode)
	}
	var failed []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var he *provision.HostError
		if errors.As(e, &he) {
			failed = append(failed, he.Host)
		}
	}
	if strings.Join(failed, ",") != "h1,h2" {
		t.Fatalf("failed hosts %v, want h1,h2: %v", failed, err)
	}
	var ce *ssh.ConnError
	var cmd *provision.CmdError
	if !errors.As(err, &ce) || ce.Host != "h1" || !errors.As(err, &cmd) || cmd.Host != "h2" || cmd.ExitCode != 3 {
		t.Fatalf("per-host errors: %v", err)
	}
}

func TestIntegrationEnvValuesStayOffCommandLinesAndLogs(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	f := newRunner(t)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	secret := "s3cr3t-" + hex.EncodeToString(rnd[:]) + " 'quoted' $HOME"
	ready, proceed := filepath.Join(srv.Dir, "ready"), filepath.Join(srv.Dir, "go")

	script := fmt.Sprintf(`set -euo pipefail
touch %s
while [ ! -e %s ]; do sleep 0.05; done
sh -c 'printf "%%s" "$YB_SECRET"' | sha256sum | cut -c1-16
echo "len ${#YB_SECRET}"
`, ready, proceed)
	done := make(chan error, 1)
	var res provision.Result
	go func() {
		var err error
		res, err = f.runner.Run(ctx, h, script, provision.Step("secret"), provision.Env(map[string]string{"YB_SECRET": secret, "OTHER": "x"}))
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// While it runs: no process list entry holds the value.
	ps, err := exec.Command("ps", "-eo", "pid,args", "ww").CombinedOutput()
	if err != nil {
		t.Fatalf("ps: %v\n%s", err, ps)
	}
	if !strings.Contains(string(ps), "ybbench") {
		t.Fatalf("ps shows no bootstrap command at all; is the command running?\n%s", ps)
	}
	if strings.Contains(string(ps), hex.EncodeToString(rnd[:])) {
		t.Fatalf("the value is on a command line:\n%s", ps)
	}
	if err := os.WriteFile(proceed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
	sum := sha256Hex(secret)[:16]
	if want := fmt.Sprintf("%s\nlen %d\n", sum, len(secret)); string(res.Stdout) != want {
		t.Fatalf("the command saw another value: stdout %q, want %q", res.Stdout, want)
	}
	b, err := os.ReadFile(filepath.Join(f.logDir, "db1", "secret.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), hex.EncodeToString(rnd[:])) {
		t.Fatalf("the value is in the log:\n%s", b)
	}
	if !strings.Contains(string(b), "YB_SECRET=<redacted>") {
		t.Fatalf("the log does not name the variable:\n%s", b)
	}
}

func TestIntegrationKeepaliveDropsAHungConnection(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	watch, dropped := watchLog(t, "ssh keepalive unanswered; dropping the connection")
	f := newRunner(t, ssh.WithKeepalive(300*time.Millisecond), watch)
	h := srv.Host("db1")
	ctx := testCtx(t, 60*time.Second)
	if _, err := f.runner.Run(ctx, h, "true"); err != nil {
		t.Fatal(err)
	}
	// Freeze the processes serving the open connection (the listener's
	// descendants, by pid): the TCP connection stays up but nothing
	// answers, as with a host that hangs or a dropped NAT entry.
	frozen := sshdtest.Descendants(srv.PID())
	if len(frozen) == 0 {
		t.Fatal("no per-connection sshd process found")
	}
	for _, p := range frozen {
		_ = syscall.Kill(p, syscall.SIGSTOP)
	}
	t.Cleanup(func() {
		for _, p := range frozen {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
	})
	// Without keepalives the next session would wait forever on the hung
	// connection; with them it is dropped (3 missed intervals) and the
	// next Run redials the listener, which still answers.
	select {
	case <-dropped:
	case <-ctx.Done():
		t.Fatal("the hung connection was never dropped")
	}
	begin := time.Now()
	res, err := f.runner.Run(ctx, h, "echo fresh")
	if err != nil || string(res.Stdout) != "fresh\n" {
		t.Fatalf("after the hang: %v %q", err, res.Stdout)
	}
	if time.Since(begin) > 15*time.Second {
		t.Fatalf("took %s", time.Since(begin))
	}
	if n := strings.Count(srv.Log(), "Accepted publickey"); n != 2 {
		t.Fatalf("%d logins, want 2", n)
	}
}
