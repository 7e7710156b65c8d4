package provision_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/internal/golden"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/localexec"
)

func TestOwnScriptsGolden(t *testing.T) {
	claim, err := provision.ClaimScript(provision.Mark{RunID: "r-1", Version: "v1"}, []string{"/opt/ybbench", "/data/d 0"}, "ybbench")
	if err != nil {
		t.Fatal(err)
	}
	golden.BashSyntax(t, "claim", claim)
	golden.Check(t, "own-claim.sh", []byte(claim))
	release, err := provision.ReleaseScript("r-1", []string{"/opt/ybbench", "/data/d0"})
	if err != nil {
		t.Fatal(err)
	}
	golden.BashSyntax(t, "release", release)
	golden.Check(t, "own-release.sh", []byte(release))
	if _, err := provision.ClaimScript(provision.Mark{RunID: "a\nb"}, nil, ""); err == nil {
		t.Error("a run id with a newline was accepted")
	}
}

// tree is a user's directory the tests must leave exactly as it was.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			v += " -> " + l
		}
		out[p] = v
		return nil
	})
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %q → %q", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

func TestClaimAndRelease(t *testing.T) {
	ctx := context.Background()
	r := localexec.New()
	h := infra.Host{Name: "h1"}
	me := provision.Mark{RunID: "run-a", Version: "test"}
	code := func(err error) int { return exitcode.Of(err) }

	t.Run("claim, claim again, release; the parent and its files stay", func(t *testing.T) {
		parent := t.TempDir()
		os.WriteFile(filepath.Join(parent, "users-file"), []byte("mine"), 0o600)
		os.Mkdir(filepath.Join(parent, "postgres"), 0o700)
		before := snapshot(t, parent)
		if err := provision.Claim(ctx, r, h, me, []string{parent}, ""); err != nil {
			t.Fatal(err)
		}
		own := filepath.Join(parent, "ybbench")
		b, err := os.ReadFile(filepath.Join(own, ".ybbench-owner"))
		if err != nil || !strings.Contains(string(b), "run=run-a\n") || !strings.Contains(string(b), "version=test\n") {
			t.Fatalf("marker: %q, %v", b, err)
		}
		os.MkdirAll(filepath.Join(own, "postgres", "data"), 0o700)
		if err := provision.Claim(ctx, r, h, me, []string{parent}, ""); err != nil {
			t.Fatalf("claiming again: %v", err)
		}
		if err := provision.Release(ctx, r, h, me.RunID, []string{parent}); err != nil {
			t.Fatal(err)
		}
		sameTree(t, before, snapshot(t, parent))
		if err := provision.Release(ctx, r, h, me.RunID, []string{parent}); err != nil {
			t.Errorf("releasing what is gone: %v", err)
		}
	})
	t.Run("an unmarked ybbench directory is neither used nor removed", func(t *testing.T) {
		parent := t.TempDir()
		os.MkdirAll(filepath.Join(parent, "ybbench", "data"), 0o755)
		os.WriteFile(filepath.Join(parent, "ybbench", "data", "PG_VERSION"), []byte("15"), 0o644)
		before := snapshot(t, parent)
		err := provision.Claim(ctx, r, h, me, []string{parent}, "")
		if code(err) != exitcode.Provision || !strings.Contains(err.Error(), "has no .ybbench-owner") {
			t.Errorf("claim: exit %d, %v", code(err), err)
		}
		if err := provision.Release(ctx, r, h, me.RunID, []string{parent}); err != nil {
			t.Errorf("release of what is not the run's: %v", err)
		}
		sameTree(t, before, snapshot(t, parent))
	})
	t.Run("another run's directory names that run", func(t *testing.T) {
		parent := t.TempDir()
		other := provision.Mark{RunID: "run-b", Version: "test"}
		if err := provision.Claim(ctx, r, h, other, []string{parent}, ""); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, parent)
		err := provision.Claim(ctx, r, h, me, []string{parent}, "")
		if code(err) != exitcode.Provision || !strings.Contains(err.Error(), "belongs to run run-b: ybbench down --run run-b") {
			t.Errorf("claim: exit %d, %v", code(err), err)
		}
		if err := provision.Release(ctx, r, h, me.RunID, []string{parent}); err != nil {
			t.Errorf("release of another run's: %v", err)
		}
		sameTree(t, before, snapshot(t, parent))
	})
	t.Run("a parent through a symbolic link is refused before anything is written", func(t *testing.T) {
		tmp := t.TempDir()
		os.Symlink("/usr", filepath.Join(tmp, "data"))
		real := filepath.Join(tmp, "real")
		os.Mkdir(real, 0o755)
		os.Symlink(real, filepath.Join(tmp, "innocent"))
		before := snapshot(t, tmp)
		for _, p := range []string{filepath.Join(tmp, "data"), filepath.Join(tmp, "innocent")} {
			err := provision.Claim(ctx, r, h, me, []string{p}, "")
			if code(err) != exitcode.Config || !strings.Contains(err.Error(), "resolves to") {
				t.Errorf("%s: exit %d, %v", p, code(err), err)
			}
		}
		sameTree(t, before, snapshot(t, tmp))
	})
	t.Run("a missing parent is made, and stays after release", func(t *testing.T) {
		tmp := t.TempDir()
		parent := filepath.Join(tmp, "new", "base")
		changes, err := provision.ClaimReporting(ctx, r, h, me, []string{parent}, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 1 || changes[0] != "mkdir -p "+parent+" (left in place)" {
			t.Errorf("changes reported: %q", changes)
		}
		if changes, err := provision.ClaimReporting(ctx, r, h, me, []string{parent}, ""); err != nil || len(changes) != 0 {
			t.Errorf("claiming again: %q, %v; want no change", changes, err)
		}
		if err := provision.Release(ctx, r, h, me.RunID, []string{parent}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(parent); err != nil || !st.IsDir() {
			t.Errorf("the parent: %v", err)
		}
		if _, err := os.Stat(filepath.Join(parent, "ybbench")); !os.IsNotExist(err) {
			t.Errorf("the own directory remains: %v", err)
		}
	})
	t.Run("a missing parent below a link is not made", func(t *testing.T) {
		tmp := t.TempDir()
		os.Symlink("/usr", filepath.Join(tmp, "link"))
		err := provision.Claim(ctx, r, h, me, []string{filepath.Join(tmp, "link", "ybbench-test-new")}, "")
		if code(err) != exitcode.Config || !strings.Contains(err.Error(), "resolves to /usr") {
			t.Errorf("exit %d, %v", code(err), err)
		}
		if _, err := os.Lstat("/usr/ybbench-test-new"); err == nil {
			os.RemoveAll("/usr/ybbench-test-new")
			t.Error("a directory was made in /usr")
		}
	})
	t.Run("the precheck refuses what a claim would, and writes nothing", func(t *testing.T) {
		tmp := t.TempDir()
		os.Symlink("/usr", filepath.Join(tmp, "link"))
		os.MkdirAll(filepath.Join(tmp, "unmarked", "ybbench"), 0o755)
		os.MkdirAll(filepath.Join(tmp, "mine", "ybbench"), 0o755)
		os.WriteFile(filepath.Join(tmp, "mine", "ybbench", ".ybbench-owner"), []byte("run=run-a\n"), 0o644)
		before := snapshot(t, tmp)
		for _, c := range []struct {
			parent string
			exit   int
		}{
			{filepath.Join(tmp, "link", "x"), 20},
			{filepath.Join(tmp, "link"), 20},
			{filepath.Join(tmp, "unmarked"), 21},
			{filepath.Join(tmp, "mine"), 0},
			{filepath.Join(tmp, "missing", "deeper"), 0},
			{"/usr/local/x", 20},
		} {
			script, err := provision.OwnScript("own_precheck " + shellquote.Quote(c.parent) + " run-a\n")
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(ctx, h, script)
			if err != nil || res.ExitCode != c.exit {
				t.Errorf("own_precheck %s: exit %d (%v), want %d: %s", c.parent, res.ExitCode, err, c.exit, res.Stderr)
			}
		}
		sameTree(t, before, snapshot(t, tmp))
	})
	t.Run("a system directory is refused on the host too", func(t *testing.T) {
		for _, p := range []string{"/usr/local", "/tmp", "/", "/usr/ybbench-test-missing"} {
			err := provision.Claim(ctx, r, h, me, []string{p}, "")
			if code(err) != exitcode.Config || !strings.Contains(err.Error(), "system directory") {
				t.Errorf("%s: exit %d, %v", p, code(err), err)
			}
		}
		if _, err := os.Stat("/usr/local/ybbench"); err == nil {
			t.Error("/usr/local/ybbench was made")
		}
	})
	t.Run("a own directory that is a link is not followed", func(t *testing.T) {
		parent, victim := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(victim, ".ybbench-owner"), []byte("run=run-a\n"), 0o644)
		os.WriteFile(filepath.Join(victim, "precious"), []byte("x"), 0o644)
		os.Symlink(victim, filepath.Join(parent, "ybbench"))
		before := snapshot(t, victim)
		if err := provision.Release(ctx, r, h, me.RunID, []string{parent}); err != nil {
			t.Errorf("release through a link: %v", err)
		}
		sameTree(t, before, snapshot(t, victim))
	})
	t.Run("a service user who cannot reach the directory is named, and no mode changes", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Fatal("this test changes owners: run it as root (make test does)")
		}
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Fatal(err)
		}
		closed, err := os.MkdirTemp("", "ybbench-owner-test") // 0700, root's, below a searchable /tmp
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(closed) })
		parent := filepath.Join(closed, "d")
		os.Mkdir(parent, 0o755)
		st, _ := os.Stat(closed)
		err = provision.Claim(ctx, r, h, me, []string{parent}, "nobody")
		if code(err) != exitcode.Config || !strings.Contains(err.Error(), "the service user nobody cannot reach") {
			t.Errorf("exit %d, %v", code(err), err)
		}
		if st2, _ := os.Stat(closed); st2.Mode() != st.Mode() {
			t.Errorf("mode of %s changed: %v → %v", closed, st.Mode(), st2.Mode())
		}
		os.Chmod(closed, 0o755)
		if err := provision.Claim(ctx, r, h, me, []string{parent}, "nobody"); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command("stat", "-c", "%U", filepath.Join(parent, "ybbench")).Output()
		if strings.TrimSpace(string(out)) != "nobody" {
			t.Errorf("own directory's owner: %s", out)
		}
	})
}

// A TERM to the script's process group while own_claim's mkdir runs (a
// cancelled run's kill, here sent by a mkdir on PATH right after it made
// the directory) waits until the marker is there, then ends the script as
// TERM does: the directory is never left unmarked, and a caller's own TERM
// trap is the one that runs. A mkdir the TERM killed would stop the script
// under set -e with the directory made and unmarked, which a teardown
// leaves alone.
func TestClaimHoldsATermUntilMarked(t *testing.T) {
	for _, tc := range []struct {
		name, trap string
		code       int // -1: ended by TERM
		out        string
	}{
		{"default action", "", -1, ""},
		{"the caller's trap", "trap 'echo caller-trap; exit 7' TERM\n", 7, "caller-trap\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			bin := t.TempDir()
			mkdir, err := exec.LookPath("mkdir")
			if err != nil {
				t.Fatal(err)
			}
			stub := "#!/bin/bash\n" + shellquote.Quote(mkdir) + " \"$@\" && kill -TERM 0\n"
			if err := os.WriteFile(filepath.Join(bin, "mkdir"), []byte(stub), 0o755); err != nil {
				t.Fatal(err)
			}
			body := tc.trap + "PATH=" + shellquote.Quote(bin) + ":$PATH\n" +
				"own_claim " + shellquote.Quote(parent) + " run-a test ''\necho not-reached\n"
			script, err := provision.OwnScript(body)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-c", script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the TERM goes to this group alone
			out, err := cmd.Output()
			var ee *exec.ExitError
			termed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGTERM
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code || (tc.code == -1) != termed || string(out) != tc.out {
				t.Errorf("exit %v, stdout %q; want exit %d, stdout %q", err, out, tc.code, tc.out)
			}
			b, err := os.ReadFile(filepath.Join(parent, "ybbench", ".ybbench-owner"))
			if err != nil || !strings.Contains(string(b), "run=run-a\n") {
				t.Errorf("the claimed directory's marker: %q, %v", b, err)
			}
		})
	}
}
