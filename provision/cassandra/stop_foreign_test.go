package cassandra

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision/localexec"
)

// A teardown of one run must not stop another run's node that lives in a
// base both were given: the stop and the wipe of run r1 leave a node in a
// ybbench/ marked by another run running, and its directory as it was.
func TestStopAndWipeLeaveAnotherRunsNode(t *testing.T) {
	base := t.TempDir()
	h := infra.Host{Name: "db1", Base: base, PrivateIP: "127.0.0.1"}
	l := layoutOf(h)
	if err := os.MkdirAll(filepath.Dir(l.PIDFile), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(l.Own, ".ybbench-owner"), []byte("run=other-run\nversion=x\n"), 0o644)
	node := exec.Command("sleep", "300") // the other run's node, tagged as the flavor tags its own
	node.Env = append(os.Environ(), "YBBENCH_SERVER="+l.Tag)
	node.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Process.Kill(); node.Wait() })
	os.WriteFile(l.PIDFile, []byte(strconv.Itoa(node.Process.Pid)+"\n"), 0o644)

	r := localexec.New()
	for name, render := range map[string]func(stopData) (string, error){"stop": renderStop, "wipe": renderWipe} {
		script, err := render(stopData{Host: h.Name, Grace: 1, RunID: "r1", layout: l})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), h, script)
		if err != nil || res.ExitCode != 0 {
			t.Errorf("%s: %v, exit %d: %s", name, err, res.ExitCode, res.Stderr)
		}
		if err := syscall.Kill(node.Process.Pid, 0); err != nil {
			t.Fatalf("%s of run r1 stopped another run's node: %v", name, err)
		}
		if _, err := os.Stat(l.PIDFile); err != nil {
			t.Errorf("%s of run r1 removed another run's pid file: %v", name, err)
		}
	}
}
