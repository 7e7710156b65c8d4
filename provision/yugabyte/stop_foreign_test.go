package yugabyte

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

// A teardown of one run must not stop another run's servers in a base both
// were given: the stop of run r1 leaves a tserver in a ybbench/ marked by
// another run running, with its pid file.
func TestStopLeavesAnotherRunsServers(t *testing.T) {
	base := t.TempDir()
	h := infra.Host{Name: "db1", Base: base, PrivateIP: "127.0.0.1"}
	l := layoutOf(h)
	p := procOf(l, tserver)
	if err := os.MkdirAll(filepath.Dir(p.PIDFile), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(l.Own, ".ybbench-owner"), []byte("run=other-run\nversion=x\n"), 0o644)
	srv := exec.Command("sleep", "300")
	srv.Env = append(os.Environ(), "YBBENCH_SERVER="+p.Tag)
	srv.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	os.WriteFile(p.PIDFile, []byte(strconv.Itoa(srv.Process.Pid)+"\n"), 0o644)

	script, err := renderStop(stopData{Host: h.Name, Grace: 1, Procs: []proc{p}, RunID: "r1", layout: l})
	if err != nil {
		t.Fatal(err)
	}
	res, err := localexec.New().Run(context.Background(), h, script)
	if err != nil || res.ExitCode != 0 {
		t.Errorf("stop: %v, exit %d: %s", err, res.ExitCode, res.Stderr)
	}
	if err := syscall.Kill(srv.Process.Pid, 0); err != nil {
		t.Fatalf("the stop of run r1 stopped another run's tserver: %v", err)
	}
	if _, err := os.Stat(p.PIDFile); err != nil {
		t.Errorf("the stop of run r1 removed another run's pid file: %v", err)
	}
}
