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
	if err := flockRetrying(f); err != nil {
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

// lockAttempts and lockRetry bound lockRun's tries: Holder's instant of
// shared lock (status, runs) must not pass for a holder.
const (
	lockAttempts = 3
	lockRetry    = 20 * time.Millisecond
)

// flockRetrying takes the exclusive lock without waiting for a holder, but
// tries again briefly when refused, in case the one in the way was only
// Holder's test.
func flockRetrying(f *os.File) error {
	var err error
	for i := 0; i < lockAttempts; i++ {
		if i > 0 {
			time.Sleep(lockRetry)
		}
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
	}
	return err
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

// Holder reports whether a process holds the run directory's lock now,
// and its pid when the lock file names it (0 otherwise). It asks the
// kernel, not the ledger: the pid the ledger records is that of the last
// process that began a step, which may be long gone.
//
// The test takes a shared lock for an instant and gives it back, so it
// never blocks a holder; a process taking the run in that very instant is
// refused as if the run were held, and lockRun tries again briefly for
// that reason.
func Holder(dir string) (pid int, held bool, err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.Open(path) // read only, and never created: status writes nothing
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("the lock of run %s: %w", dir, err)
	}
	defer f.Close()
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, false, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		b, _ := os.ReadFile(path)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return max(pid, 0), true, nil
	default:
		return 0, false, fmt.Errorf("the lock of run %s: %w", dir, err)
	}
}
