package localexec

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

func host() infra.Host { return infra.Host{Name: "local1", Shared: true} }

func TestRunResultAndLogs(t *testing.T) {
	logs := t.TempDir()
	r := New(WithLogDir(logs))
	ctx := context.Background()
	var streamed bytes.Buffer
	res, err := r.Run(ctx, host(), `echo out; echo err >&2; printf '%s\n' "$0" "$SECRET_X" | wc -c; tr a-z A-Z; exit 4`,
		provision.Step("s1"), provision.Env(map[string]string{"SECRET_X": "hidden-value"}),
		provision.Stdin(strings.NewReader("abc\n")), provision.Output(&streamed, nil))
	if err != nil {
		t.Fatalf("a non-zero exit must not be a Go error: %v", err)
	}
	wantOut := "out\n" + strconv.Itoa(len("ybbench\nhidden-value\n")) + "\nABC\n"
	if res.ExitCode != 4 || string(res.Stdout) != wantOut || string(res.Stderr) != "err\n" || res.Attempts != 1 || res.Host != "local1" {
		t.Fatalf("result %+v stdout %q", res, res.Stdout)
	}
	if streamed.String() != wantOut {
		t.Fatalf("streamed %q", streamed.String())
	}
	b, err := os.ReadFile(filepath.Join(logs, "local1", "s1.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hidden-value") || !strings.Contains(string(b), "SECRET_X=<redacted>") || !strings.Contains(string(b), "exit 4") {
		t.Fatalf("log:\n%s", b)
	}
	if _, err := r.Run(ctx, host(), "true", provision.Env(map[string]string{"A=B": "x"})); exitcode.Of(err) != exitcode.Config {
		t.Fatalf("bad name: %v", err)
	}
}

func TestRunCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	r := New(WithKillGrace(500 * time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, host(), `bash -c 'sleep 300 & echo $! >> `+pidFile+`; sleep 300 & echo $! >> `+pidFile+`; wait'`)
		done <- err
	}()
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for len(pids) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("sleeps did not start")
		}
		time.Sleep(20 * time.Millisecond)
		b, _ := os.ReadFile(pidFile)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	t.Cleanup(func() {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of the cancel")
	}
	deadline = time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("sleep %d survived the cancel", p)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

func TestRunTimeoutAndSignalExit(t *testing.T) {
	r := New(WithKillGrace(200 * time.Millisecond))
	begin := time.Now()
	_, err := r.Run(context.Background(), host(), "sleep 30", provision.Timeout(200*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(begin) > 10*time.Second {
		t.Fatalf("timeout: %v after %s", err, time.Since(begin))
	}
	res, err := r.Run(context.Background(), host(), "kill -TERM $$")
	if err != nil || res.ExitCode != 128+int(syscall.SIGTERM) {
		t.Fatalf("signal exit: %v %d", err, res.ExitCode)
	}
}

func TestPutGet(t *testing.T) {
	r := New()
	ctx := context.Background()
	dst := filepath.Join(t.TempDir(), "a", "b", "f.sh")
	if err := r.Put(ctx, host(), dst, strings.NewReader("#!/bin/sh\necho hi\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o750 {
		t.Fatalf("stat: %v %v", err, st.Mode())
	}
	if out, err := exec.Command(dst).Output(); err != nil || string(out) != "hi\n" {
		t.Fatalf("run: %v %q", err, out)
	}
	if err := r.Put(ctx, host(), dst, strings.NewReader("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Get(ctx, host(), dst, &b); err != nil || b.String() != "x" {
		t.Fatalf("get: %v %q", err, b.String())
	}
	if ents, _ := os.ReadDir(filepath.Dir(dst)); len(ents) != 1 {
		t.Fatalf("%d entries: temporaries left", len(ents))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.Put(cctx, host(), dst, strings.NewReader("y"), 0o600); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled put: %v", err)
	}
	if err := r.Get(ctx, host(), dst+".missing", &b); exitcode.Of(err) != exitcode.Provision || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing: %v", err)
	}
}
