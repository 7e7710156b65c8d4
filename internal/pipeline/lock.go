package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockFile is the file in a run directory that one process at a time holds
// (flock) for as long as it works on the run; it names that process's pid.
const LockFile = ".lock"

// LockedError says that another process holds a run.
type LockedError struct {
	Dir string
	PID int // 0 when the holder's pid could not be read
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("run %s is in use by %s: one process at a time works on a run; wait for it to end, or stop it with kill -INT %s (a run or resume then tears the run down)",
		e.Dir, e.holder(), e.pidText())
}

func (e *LockedError) holder() string {
	if e.PID > 0 {
		return "process " + strconv.Itoa(e.PID)
	}
	return "another process (its pid is not in " + filepath.Join(e.Dir, LockFile) + " yet)"
}

func (e *LockedError) pidText() string {
	if e.PID > 0 {
		return strconv.Itoa(e.PID)
	}
	return "<pid>"
}

// DownMessage is what down says instead: a run or resume tears the run
// down itself when interrupted.
func (e *LockedError) DownMessage() string {
	return fmt.Sprintf("run %s is in use by %s: stop it with kill -INT %s instead; a run or resume then tears the run down itself (after any other stage, run down again once it has ended)",
		e.Dir, e.holder(), e.pidText())
}

// runLock is a held lock on a run directory; the kernel releases it when
// the process ends, however it ends.
type runLock struct{ f *os.File }

// lockRun takes the run directory's lock without waiting, and writes this
// process's pid into it.
func lockRun(dir string) (*runLock, error) {
	path := filepath.Join(dir, LockFile)
	// No O_TRUNC: the file may be another process's, holding its pid.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Dir: dir, PID: holderPID(path)}
		}
		return nil, fmt.Errorf("lock run %s: %w", dir, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock run %s: %w", dir, err)
	}
	return &runLock{f: f}, nil
}

// holderPID reads the holder's pid, waiting briefly for a holder that has
// just taken the lock and not yet written it.
func holderPID(path string) int {
	for i := 0; i < 20; i++ {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(25 * time.Millisecond)
	}
	return 0
}

func (l *runLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the only descriptor releases the flock
	l.f = nil
	return err
}
