package main

// Pinning the test PostgreSQL for the sysbench section's "apart" placement:
// the postmaster (every thread of it, taskset -a) goes to one core before the
// clients connect, so that the backends it forks for them start there, and
// the client runs on the other core; the client's own saturation then shows
// instead of hiding in the server's share of both cores. The postmaster is
// shared with every other user of the test environment, so its affinity is
// given back when the section ends, on error and on SIGINT/SIGTERM too.

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// pinned is the postmaster's affinity while pinned, and how to give it back.
type pinned struct {
	pid      int
	original string // hex mask, as taskset prints it
	once     sync.Once
	stop     chan struct{}
}

// postmasterPID reads the first line of dataDir/postmaster.pid.
func postmasterPID(dataDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("postmaster pid: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, fmt.Errorf("postmaster pid: %s line 1: %w", filepath.Join(dataDir, "postmaster.pid"), err)
	}
	return pid, nil
}

// affinity is a process's CPU mask in taskset's hex form.
func affinity(pid int) (string, error) {
	b, err := exec.Command("taskset", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return "", fmt.Errorf("taskset -p %d: %w", pid, err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "", fmt.Errorf("taskset -p %d: no mask in %q", pid, b)
	}
	return f[len(f)-1], nil
}

// pinPostmaster pins the postmaster of dataDir to core; the caller defers
// restore. A signal meanwhile restores and exits.
func pinPostmaster(dataDir string, core int) (*pinned, error) {
	pid, err := postmasterPID(dataDir)
	if err != nil {
		return nil, err
	}
	mask, err := affinity(pid)
	if err != nil {
		return nil, err
	}
	p := &pinned{pid: pid, original: mask, stop: make(chan struct{})}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case s := <-sigs:
			p.restore()
			fmt.Fprintf(os.Stderr, "sidebyside: %v: the postmaster's affinity is restored to %s\n", s, mask)
			os.Exit(1)
		case <-p.stop:
			signal.Stop(sigs)
		}
	}()
	if b, err := exec.Command("taskset", "-a", "-cp", strconv.Itoa(core), strconv.Itoa(pid)).CombinedOutput(); err != nil {
		p.restore()
		return nil, fmt.Errorf("taskset -a -cp %d %d: %v: %s", core, pid, err, b)
	}
	return p, nil
}

// restore gives the postmaster its original mask back; once, whichever of
// the deferred call and the signal handler comes first.
func (p *pinned) restore() error {
	var err error
	p.once.Do(func() {
		if b, e := exec.Command("taskset", "-a", "-p", p.original, strconv.Itoa(p.pid)).CombinedOutput(); e != nil {
			err = fmt.Errorf("restore the postmaster's affinity (taskset -a -p %s %d): %v: %s", p.original, p.pid, e, b)
		}
		close(p.stop)
	})
	return err
}
